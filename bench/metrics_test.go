package bench

import (
	"context"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/s3"
)

// BenchmarkGet4KiBMetrics measures what the instrumentation costs 4 KiB
// GETs: one node's objects served by its own handler (metrics and the
// /metrics route) and by a bare S3 handler over the same service without
// metrics, in slices of 1 s taken in the order off, on, on, off, ... so
// that the load other processes put on a shared machine falls on both
// alike. It reports each side's ops/s and the cost in percent.
//
//	go test -run '^$' -bench Get4KiBMetrics -benchtime 1x ./bench
func BenchmarkGet4KiBMetrics(b *testing.B) {
	const objects, rounds, slice = 256, 10, time.Second
	srv := nodetest.Start(b, nodetest.Options{})
	n := srv.Node
	bare := httptest.NewServer(s3.New(n.Service, n.Keys, n.Meter, s3.Options{MaxRequests: node.DefaultMaxRequests}))
	b.Cleanup(bare.Close)
	on, off := ostiumOn(b, srv, objects), newTarget(bare.URL)
	measure := func(t *target) int64 {
		var ops atomic.Int64
		ctx, cancel := context.WithTimeout(context.Background(), slice)
		defer cancel()
		var wg sync.WaitGroup
		for w := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int64(w); ctx.Err() == nil; i += clients {
					if _, err := t.do(context.Background(), "GET", "/bench/obj-"+pad6(i%objects), nil); err != nil {
						b.Error(err)
						return
					}
					ops.Add(1)
				}
			}()
		}
		wg.Wait()
		return ops.Load()
	}
	measure(on) // warm both
	measure(off)
	b.ResetTimer()
	var onOps, offOps int64
	for r := range rounds {
		first, second := off, on
		if r%2 == 1 {
			first, second = on, off
		}
		a, c := measure(first), measure(second)
		if r%2 == 1 {
			a, c = c, a
		}
		offOps += a
		onOps += c
	}
	secs := float64(rounds) * slice.Seconds()
	b.ReportMetric(float64(offOps)/secs, "off-ops/s")
	b.ReportMetric(float64(onOps)/secs, "on-ops/s")
	b.ReportMetric(100*(1-float64(onOps)/float64(offOps)), "cost-%")
}

// ostiumOn fills srv's bucket as ostium does and returns a target on it.
func ostiumOn(b *testing.B, srv *nodetest.Server, n int) *target {
	t := newTarget(srv.URL)
	ctx := context.Background()
	if _, err := t.do(ctx, "PUT", "/bench", nil); err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 4<<10)
	for i := range n {
		if _, err := t.do(ctx, "PUT", "/bench/obj-"+pad6(int64(i)), body); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

func pad6(i int64) string {
	s := []byte("000000")
	for j := 5; j >= 0 && i > 0; j-- {
		s[j] = byte('0' + i%10)
		i /= 10
	}
	return string(s)
}
