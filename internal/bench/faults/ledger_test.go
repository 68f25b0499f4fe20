package faults_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/faults"
	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The ledger keeps what a real node acknowledged and reads it back: a
// write lost behind its back is missing, one replaced by other contents
// is a mismatch, and an acknowledged delete is no longer expected.
func TestLedgerReadsBackAcknowledgedWrites(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ctx := context.Background()
	l := faults.NewLedger()
	cfg := target.Config{Endpoints: []string{srv.URL}, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey}
	mk := func(acked bool) *target.Target {
		c := cfg
		if acked {
			c.Acked = l.For(0)
		}
		tg, err := target.New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tg.Close)
		return tg
	}
	tracked, behind := mk(true), mk(false)
	if err := tracked.CreateBucket(ctx, "ledger"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"kept", "lost", "replaced", "deleted"} {
		if _, err := tracked.Put(ctx, "ledger", k, 3000); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tracked.Delete(ctx, "ledger", "deleted"); err != nil {
		t.Fatal(err)
	}
	// What a faulty endpoint would do: lose one, and keep another of
	// another size (the contents a different write would have left).
	if _, err := behind.Delete(ctx, "ledger", "lost"); err != nil {
		t.Fatal(err)
	}
	if _, err := behind.Put(ctx, "ledger", "replaced", 1000); err != nil {
		t.Fatal(err)
	}
	// A failed write is not acknowledged: no bucket, no entry.
	if _, err := tracked.Put(ctx, "no-such-bucket", "x", 10); err == nil {
		t.Fatal("a write to a missing bucket succeeded")
	}
	if l.Len() != 3 {
		t.Fatalf("the ledger holds %d keys, want kept, lost and replaced", l.Len())
	}
	c, err := l.Verify(ctx, func(store int) (*target.Target, error) { return target.New(cfg) })
	if err != nil {
		t.Fatal(err)
	}
	if c.Acknowledged != 3 || c.Verified != 1 || c.Missing != 1 || c.Mismatched != 1 || c.Unreadable != 0 || !c.Lost() {
		t.Fatalf("%+v", c)
	}
	// An endpoint that does not answer is asked again (5 times a second
	// apart), then each of its keys is unreadable: not verified, lost.
	srv.Stop()
	t0 := time.Now()
	c, err = l.Verify(ctx, func(store int) (*target.Target, error) { return target.New(cfg) })
	if err != nil {
		t.Fatal(err)
	}
	if c.Unreadable != 3 || c.Verified != 0 || !c.Lost() || !strings.Contains(c.LastError, "connection refused") || time.Since(t0) < 4*time.Second {
		t.Fatalf("%+v after %v", c, time.Since(t0))
	}
}
