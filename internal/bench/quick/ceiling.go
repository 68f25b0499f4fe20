package quick

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// CeilingTime is how long a generator ceiling runs.
const CeilingTime = 2 * time.Second

// MeasureCeiling runs the mode's own main stage (its operations in its
// mix, its workers, object and part sizes, its verification) for a moment
// against a mock in this process, no network, no storage: the rate no
// target can be measured above, for the very operations the run measures,
// so that the two compare like with like. The mock answers a read of any
// object with the size the run gives that name, so nothing is prepared.
func MeasureCeiling(ctx context.Context, o Options) (*report.Ceiling, error) {
	if o.Concurrency <= 0 || o.Buckets <= 0 {
		return nil, errors.New("quick: generator ceiling: concurrency and buckets must be positive")
	}
	m := mock.New()
	m.Fill = func(bucket, key string) (int64, bool) { return o.Size.Of(target.ContentName(bucket, key)), true }
	ct := &mock.Counting{RT: m}
	t, err := target.New(target.Config{Endpoints: []string{"http://mock"}, Transport: ct})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	r := &run{o: o, t: t, prepared: int64(max(o.Objects, 1)), mixPut: make([]atomic.Int64, o.Concurrency), mixDel: make([]atomic.Int64, o.Concurrency)}
	ops, err := r.mainOps()
	if err != nil {
		return nil, err
	}
	res, err := engine.Run(ctx, engine.Work{Name: "ceiling", Workers: o.Concurrency, Ops: ops, Runtime: CeilingTime})
	if err != nil {
		return nil, fmt.Errorf("quick: generator ceiling: %w", err)
	}
	var finished, failed int64
	last := ""
	for _, s := range res.Stats {
		finished += s.Ops()
		failed += s.Errors()
		if e := s.LastError(); e != "" {
			last = s.Kind + ": " + e
		}
	}
	if failed > 0 {
		return nil, fmt.Errorf("quick: generator ceiling of %s: %d of its operations failed against the in-process mock; last: %s", o.Mode, failed, last)
	}
	secs := res.End.Sub(res.Start).Seconds()
	c := &report.Ceiling{Stage: "main", What: fmt.Sprintf("in-process mock, %s, %d workers", o.what(), o.Concurrency),
		BandwidthMBps: float64(ct.Bytes()) / 1e6 / secs, ThroughputOps: float64(finished) / secs}
	if mean := float64(o.Size.Min+o.Size.Max) / 2; o.payloadOnly() && mean > 0 && finished < int64(o.Concurrency) {
		// Not even an operation a worker finished: every operation
		// carries an object, so the rate is the bandwidth over the mean
		// size.
		c.ThroughputOps = float64(ct.Bytes()) / mean / secs
	}
	return c, nil
}

// payloadOnly: every operation of the mode carries a whole object.
func (o Options) payloadOnly() bool {
	return o.Mode == "put" || o.Mode == "get" || o.Mode == "multipart"
}

// what names the operations a quick run measures, as its ceiling says.
func (o Options) what() string {
	var s string
	switch o.Mode {
	case "put":
		s = "PUT of " + o.Size.String()
	case "get":
		s = "GET of " + o.Size.String()
	case "stat":
		s = "HEAD of objects of " + o.Size.String()
	case "delete":
		s = "DELETE"
	case "list":
		s = "LIST (ListObjectsV2)"
	case "multipart":
		s = fmt.Sprintf("multipart PUT of %s in %s parts", o.Size, Human(max(o.PartSize, 5<<20)))
	case "mixed":
		mix := o.Mix
		if len(mix) == 0 {
			mix, _ = ParseMix(DefaultMix)
		}
		s = "mixed " + MixString(mix) + " of " + o.Size.String()
	default:
		s = o.Mode
	}
	if o.Verify && (o.Mode == "get" || o.Mode == "mixed") {
		s += ", verifying"
	}
	return s
}
