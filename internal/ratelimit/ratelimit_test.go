package ratelimit

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog/sqlite"
)

// Three nodes sharing a catalog, each asked without pause for one scope
// (one of them three times as hard): together they admit the limit, and
// the busiest admits the most.
func TestSharesAddUpToTheLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cat, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	const limit, seconds = 60, 3
	lim := map[string]Limits{TenantScope("acme"): {Requests: limit}}
	var admitted [3]atomic.Int64
	var counting, stop atomic.Bool
	var wg sync.WaitGroup
	for i := range 3 {
		l := New([]string{"n1", "n2", "n3"}[i], cat)
		go l.Run(ctx)
		workers := []int{3, 1, 1}[i]
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					_, err := l.Admit(lim)
					var rf *Refusal
					switch {
					case err == nil:
						if counting.Load() {
							admitted[i].Add(1)
						}
					case errors.As(err, &rf):
						time.Sleep(time.Millisecond)
					default:
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	time.Sleep(2 * Interval * 2)
	counting.Store(true)
	time.Sleep(seconds * time.Second)
	counting.Store(false)
	stop.Store(true)
	wg.Wait()
	total := admitted[0].Load() + admitted[1].Load() + admitted[2].Load()
	t.Logf("admitted %d, %d, %d: %d in %d s (limit %d/s)", admitted[0].Load(), admitted[1].Load(), admitted[2].Load(), total, seconds, limit)
	if total < limit*seconds*8/10 || total > limit*seconds*12/10 {
		t.Errorf("admitted %d in %d s, want about %d", total, seconds, limit*seconds)
	}
}
