package s3

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Requests signed with one key not in the cache share one catalog read;
// distinct keys beyond the budget get SlowDown at once.
func TestColdKeysOneLoadPerKeyWithinBudget(t *testing.T) {
	c := newColdKeys(2)
	release := make(chan struct{})
	var fills atomic.Int32
	fill := func() { fills.Add(1); <-release }
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.load(ctx, "AKIAONE", fill) }()
	}
	// The second budgeted key, then a third that finds the budget spent.
	wg.Add(1)
	go func() { defer wg.Done(); _ = c.load(ctx, "AKIATWO", fill) }()
	deadline := time.Now().Add(5 * time.Second)
	for fills.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the other nine are waiting by now
	var ae *apiError
	if err := c.load(ctx, "AKIATHREE", fill); !errors.As(err, &ae) || ae.Code != "SlowDown" {
		t.Fatalf("third key with the budget spent: %v, want SlowDown", err)
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d signed with the loading key: %v", i, err)
		}
	}
	if n := fills.Load(); n != 2 {
		t.Fatalf("%d catalog reads, want one per key (2)", n)
	}
	if err := c.load(ctx, "AKIATHREE", func() {}); err != nil {
		t.Fatalf("once the budget is back: %v", err)
	}
}
