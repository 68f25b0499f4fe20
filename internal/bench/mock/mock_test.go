package mock_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/quick"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Against a target of known latency, the report says so. A shared machine
// only ever adds latency, so the bounds that must hold whatever the load are
// the floors: no percentile below the target's 20 ms, no more than 8 workers'
// 400 op/s; and Little's law ties the reported throughput to the reported
// mean. The ceiling on the median is loose: it catches a unit error, not a
// slow machine.
func TestReportAgainstKnownLatency(t *testing.T) {
	m := mock.New()
	m.Delay = 20 * time.Millisecond
	srv := httptest.NewServer(m)
	defer srv.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	const workers = 8
	sum, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: "stat", Duration: time.Second, Concurrency: workers,
		Size: quick.Size{Min: 1, Max: 1}, Buckets: 1, BucketPrefix: "lat", Objects: 8})
	if err != nil {
		t.Fatal(err)
	}
	op := sum.Stages[1].Ops[0]
	p := op.PercentilesMs
	for name, ms := range p {
		if ms < 20 {
			t.Errorf("%s = %.3f ms, below the target's 20 ms", name, ms)
		}
	}
	if p["p50"] > 100 {
		t.Errorf("p50 = %.3f ms against a 20 ms target", p["p50"])
	}
	if !(p["p50"] <= p["p99"] && p["p99"] <= p["max"]) {
		t.Errorf("percentiles out of order: %v", p)
	}
	if op.AvgResTimeMs < 20 {
		t.Errorf("mean %.3f ms, below the target's 20 ms", op.AvgResTimeMs)
	}
	if op.ThroughputOps > workers*1000/20 {
		t.Errorf("throughput %.1f op/s, above 8 workers / 20 ms = 400", op.ThroughputOps)
	}
	// Closed-loop workers keep 8 requests in flight, less the client's own
	// time between them: throughput x mean latency is just under 8.
	if inFlight := op.ThroughputOps * op.AvgResTimeMs / 1000; inFlight > workers*1.02 || inFlight < workers*0.75 {
		t.Errorf("throughput %.1f op/s x mean %.3f ms = %.2f in flight, want just under %d",
			op.ThroughputOps, op.AvgResTimeMs, inFlight, workers)
	}
}
