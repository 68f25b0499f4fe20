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

// Against a target of known latency, the report says so: every percentile
// of a 20 ms target lies between 20 ms and a little more, and throughput
// is workers / latency.
func TestReportAgainstKnownLatency(t *testing.T) {
	m := mock.New()
	m.Delay = 20 * time.Millisecond
	srv := httptest.NewServer(m)
	defer srv.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	sum, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: "stat", Duration: time.Second, Concurrency: 8,
		Size: quick.Size{Min: 1, Max: 1}, Buckets: 1, BucketPrefix: "lat", Objects: 8})
	if err != nil {
		t.Fatal(err)
	}
	op := sum.Stages[1].Ops[0]
	for name, ms := range op.PercentilesMs {
		if ms < 20 || ms > 40 {
			t.Errorf("%s = %.3f ms against a 20 ms target", name, ms)
		}
	}
	if op.AvgResTimeMs < 20 || op.AvgResTimeMs > 25 {
		t.Errorf("mean %.3f ms against a 20 ms target", op.AvgResTimeMs)
	}
	// 8 workers at 20 ms: at most 400 op/s, and not much less.
	if op.ThroughputOps > 400 || op.ThroughputOps < 300 {
		t.Errorf("throughput %.1f op/s, want just under 8 / 20 ms = 400", op.ThroughputOps)
	}
}
