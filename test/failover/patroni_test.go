package failover

import (
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// A node on a Patroni cluster (two members, synchronous replication),
// named by a multi-host URL with target_session_attrs=read-write, under a
// steady load of writes: the primary hands over to the synchronous
// standby (a switchover), or is killed with its machine and Patroni
// promotes the standby. Clients meet 503 with Retry-After and never a
// 500 in the gap, the node serves again within 10 s of the new primary
// taking writes, with no restart, and no acknowledged write is lost:
// synchronous_commit=on with Patroni's synchronous_mode acknowledges a
// commit only once the standby has it.
func TestPatroniFailover(t *testing.T) {
	c := testenv.Patroni(t, 2)
	srv := nodetest.Start(t, nodetest.Options{Config: func(cfg *node.Config) { cfg.Catalog = c.URL() }})
	l := startLoad(t, srv.URL)
	// One cluster for both, in turn: it takes half a minute to start.
	for _, tc := range []struct {
		name  string
		fault func(leader, standby string)
	}{
		{"switchover", func(leader, standby string) { c.Switchover(leader, standby) }},
		{"kill-primary", func(leader, standby string) { c.Kill(leader) }},
	} {
		leader, standby := c.WaitLeader(10*time.Second), c.WaitSync(90*time.Second)
		faulted := time.Now()
		tc.fault(leader, standby)
		if got := c.WaitLeader(90*time.Second, leader); got != standby {
			t.Fatalf("%s: the new leader is %s, not the synchronous standby %s", tc.name, got, standby)
		}
		promoted := time.Now()
		recovered := l.serving(t, promoted, 10*time.Second)
		t.Logf("%s: answers so far %v; new primary %v after the fault, serving %v after it",
			tc.name, l.seen.counts(), promoted.Sub(faulted).Round(time.Millisecond), recovered.Round(time.Millisecond))
	}
	l.finish(t)
	t.Logf("%d writes acknowledged and read back", len(l.acked))
}
