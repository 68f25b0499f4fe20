package node

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/replication"
	"github.com/ostiumio/ostium/internal/replicator"
)

// ReplicationConfig tunes bucket replication's worker (one node runs it,
// under the "replication" lease) and says where remote targets may be
// reached without TLS.
type ReplicationConfig struct {
	// Concurrency bounds the versions transferred at once (0 = 4).
	Concurrency int `yaml:"replication_concurrency,omitempty"`
	// InFlight bounds the bytes of the versions transferred at once
	// (0 = 64 MiB).
	InFlight int64 `yaml:"replication_in_flight,omitempty"`
	// MaxBackoff is the longest wait before a failed delivery is tried
	// again (0 = 1 min): a target down for hours is tried that often.
	MaxBackoff time.Duration `yaml:"replication_max_backoff,omitempty"`
	// Poll is the wait when nothing is due (0 = 1 s).
	Poll time.Duration `yaml:"replication_poll,omitempty"`
	// BackfillInterval is the time between passes that queue existing
	// versions (ExistingObjectReplication; 0 = 1 min).
	BackfillInterval time.Duration `yaml:"replication_backfill_interval,omitempty"`
	// PlainHTTP lists the networks (CIDR) where a remote target may be
	// registered with an http:// endpoint; elsewhere TLS is required, and
	// an encrypted version is never sent without it.
	PlainHTTP []string `yaml:"replication_plain_http,omitempty"`
}

func (c ReplicationConfig) validate() error {
	var errs []error
	if c.Concurrency < 0 || c.InFlight < 0 || c.MaxBackoff < 0 || c.Poll < 0 || c.BackfillInterval < 0 {
		errs = append(errs, errors.New("replication_*: values must not be negative"))
	}
	if _, err := c.plainHTTP(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (c ReplicationConfig) plainHTTP() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.PlainHTTP {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("replication_plain_http: %q is not a network (CIDR): %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// newReplicator is the node's replication worker.
func (n *Node) newReplicator(sealer *iam.Sealer) *replicator.Worker {
	c := n.cfg.Replication
	plain, _ := c.plainHTTP() // Validate checked them
	m := metrics.NewReplication(n.Metrics.Registry())
	n.Metrics.GaugeVec("replication_backlog", "Versions waiting to be replicated, by source bucket (buckets with a replication configuration).",
		[]string{"bucket"}, func(ctx context.Context, emit func(float64, ...string)) error {
			return n.replicationBacklog(ctx, func(b string, count int64, _ time.Duration) { emit(float64(count), b) })
		})
	n.Metrics.GaugeVec("replication_lag_seconds", "Age of the oldest version waiting to be replicated, by source bucket (0 when none waits).",
		[]string{"bucket"}, func(ctx context.Context, emit func(float64, ...string)) error {
			return n.replicationBacklog(ctx, func(b string, _ int64, lag time.Duration) { emit(lag.Seconds(), b) })
		})
	return replicator.New(n.Catalog, n.Service, n.Keys, sealer, replicator.Options{
		Concurrency: c.Concurrency, InFlight: c.InFlight, MaxBackoff: c.MaxBackoff, Poll: c.Poll,
		BackfillInterval: c.BackfillInterval, PlainHTTP: plain, Metrics: m,
	})
}

// replicationBacklog reads the backlog of each bucket with replication.
func (n *Node) replicationBacklog(ctx context.Context, fn func(bucket string, count int64, lag time.Duration)) error {
	bs, err := n.Catalog.ListBuckets(ctx, catalog.BucketFilter{})
	if err != nil {
		return err
	}
	for _, b := range bs {
		if b.Replication == "" {
			continue
		}
		count, oldest, err := n.Catalog.Backlog(ctx, replication.Sink, b.Name)
		if err != nil {
			return err
		}
		var lag time.Duration
		if count > 0 && !oldest.IsZero() {
			lag = time.Since(oldest)
		}
		fn(b.Name, count, lag)
	}
	return nil
}
