package quick

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/payload"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// ceilingObjects is how many objects the ceiling reads among: enough that
// workers do not all read one, few enough to seed at once.
const ceilingObjects = 64

// MeasureCeiling runs the generator for a moment against a mock in this
// process (no network, no storage) reading objects of the run's own sizes,
// with its workers, verifying as it verifies: the rate no target can be
// measured above.
func MeasureCeiling(ctx context.Context, concurrency int, size Size, verify bool) (*report.Ceiling, error) {
	sizes := make([]int64, ceilingObjects)
	for i := range sizes {
		sizes[i] = size.Of(target.ContentName("ceiling", objName(int64(i))))
	}
	return Ceiling(ctx, concurrency, sizes, verify, "GET of "+size.String())
}

// Ceiling measures GETs of objects of these sizes by concurrency workers
// against the in-process mock, for about two seconds. Rates come from the
// bytes read as they flow, not only from finished reads: with large objects
// and many workers, few reads finish in two seconds, yet the generator's
// bandwidth is known to the byte.
func Ceiling(ctx context.Context, concurrency int, sizes []int64, verify bool, what string) (*report.Ceiling, error) {
	if concurrency <= 0 || len(sizes) == 0 {
		return nil, errors.New("quick: generator ceiling: no workers or no sizes")
	}
	m := mock.New()
	var mean float64
	for i, sz := range sizes {
		m.Seed("ceiling", objName(int64(i)), sz)
		mean += float64(sz) / float64(len(sizes))
	}
	t, err := target.New(target.Config{Endpoints: []string{"http://mock"}, Transport: m})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var read, finished atomic.Int64
	op := engine.Op{Kind: "read", Ratio: 100, Do: func(ctx context.Context, w *engine.Worker) (engine.Outcome, error) {
		i := w.Rand.Int64N(int64(len(sizes)))
		resp, done, err := t.Do(ctx, target.Request{Method: http.MethodGet, Bucket: "ceiling", Key: objName(i)})
		if err != nil {
			return engine.Outcome{}, err
		}
		defer done()
		defer resp.Body.Close()
		var sink io.Writer = io.Discard
		var v *payload.Verifier
		if verify {
			v = payload.NewVerifier(target.ContentName("ceiling", objName(i)), sizes[i])
			sink = v
		}
		n, err := io.Copy(counter{sink, &read}, resp.Body)
		if err == nil && v != nil {
			err = v.Check()
		}
		if err == nil {
			finished.Add(1)
		}
		return engine.Outcome{Bytes: n}, err
	}}
	const d = 2 * time.Second
	start := time.Now()
	if _, err := engine.Run(ctx, engine.Work{Name: "ceiling", Workers: concurrency, Ops: []engine.Op{op}, Runtime: d}); err != nil {
		return nil, fmt.Errorf("quick: generator ceiling: %w", err)
	}
	secs := time.Since(start).Seconds()
	c := &report.Ceiling{What: fmt.Sprintf("in-process mock, %s, %d workers", what, concurrency),
		BandwidthMBps: float64(read.Load()) / 1e6 / secs, ThroughputOps: float64(finished.Load()) / secs}
	if mean > 0 && finished.Load() < int64(concurrency) {
		// Not even a read per worker finished: the op rate is the
		// bandwidth over the mean size.
		c.ThroughputOps = float64(read.Load()) / mean / secs
	}
	if verify {
		c.What += ", verifying"
	}
	return c, nil
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n *atomic.Int64
}

func (c counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}
