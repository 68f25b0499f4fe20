package catalogtest

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func testLeases(t *testing.T, s catalog.Store) {
	acquire := func(holder string, ttl time.Duration, want bool) {
		t.Helper()
		got, err := s.AcquireLease(ctx, "collector", holder, ttl)
		must(t, err)
		if got != want {
			t.Fatalf("AcquireLease(%s) = %v, want %v", holder, got, want)
		}
	}
	acquire("a", time.Hour, true)
	acquire("b", time.Hour, false) // a holds it
	acquire("a", time.Hour, true)  // renewal
	got, err := s.AcquireLease(ctx, "sweeper", "b", time.Hour)
	must(t, err)
	if !got {
		t.Fatal("a second lease name was not free")
	}
	ls, err := s.ListLeases(ctx)
	must(t, err)
	if len(ls) != 2 || ls[0].Name != "collector" || ls[0].Holder != "a" || ls[1].Holder != "b" || ls[0].Expires.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("ListLeases = %+v", ls)
	}
	must(t, s.ReleaseLease(ctx, "collector", "b")) // not b's: no effect
	acquire("b", time.Hour, false)
	must(t, s.ReleaseLease(ctx, "collector", "a"))
	acquire("b", time.Millisecond, true)
	time.Sleep(5 * time.Millisecond)
	acquire("a", time.Hour, true) // b's lease expired
	acquire("b", time.Hour, false)
}
