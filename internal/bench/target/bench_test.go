package target_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// BenchmarkGet4KiBMock is the generator's own cost per signed GET, with
// the no-op mock on the other side of loopback.
func BenchmarkGet4KiBMock(b *testing.B) {
	srv := httptest.NewServer(mock.New())
	defer srv.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	ctx := context.Background()
	if _, err := tg.Put(ctx, "b", "k", 4096); err != nil {
		b.Fatal(err)
	}
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := tg.Get(ctx, "b", "k", 4096, false); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
}
