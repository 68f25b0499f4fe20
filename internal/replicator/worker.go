package replicator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

// Service is what the worker needs of the object service
// (*objects.Service).
type Service interface {
	OpenVersion(ctx context.Context, bucket, key, versionID string) (catalog.Object, io.ReadCloser, error)
	PutReplica(ctx context.Context, id *iam.Identity, in objects.ReplicaInput) error
	PutReplicaMeta(ctx context.Context, id *iam.Identity, in objects.ReplicaInput) error
	// ReplicationFailed makes the events of a version's failed
	// replication (its notifications) for the catalog to queue with its
	// FAILED status.
	ReplicationFailed(ctx context.Context, bucket, key, versionID string, f objects.ReplicationFailure) ([]catalog.Event, error)
}

// Identities rebuilds a configuration writer's identity (*iam.Keyring).
type Identities interface {
	UserIdentity(ctx context.Context, tenant, user, canonicalID string) (*iam.Identity, error)
}

// Options pace and bound the worker.
type Options struct {
	// Concurrency bounds the transfers at once (0 = 4).
	Concurrency int
	// InFlight bounds the bytes of the versions being transferred at
	// once (0 = 64 MiB); a larger version takes the whole of it.
	InFlight int64
	// Batch is how many due events one pass takes (0 = 100).
	Batch int
	// Poll is the wait when nothing is due (0 = 1 s).
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait before a failed delivery
	// is tried again, doubling with each attempt (0 = 1 s and 1 min): a
	// target down for hours is tried every MaxBackoff and catches up
	// when it is back.
	MinBackoff, MaxBackoff time.Duration
	// BackfillInterval is the time between passes that queue existing
	// versions for rules with ExistingObjectReplication (0 = 1 min).
	BackfillInterval time.Duration
	// PlainHTTP are the networks where a remote target may be plain
	// http (never for an encrypted version).
	PlainHTTP []netip.Prefix
	Metrics   *metrics.Replication
}

// Worker delivers replication's events. One node runs it at a time,
// under the JobName lease.
type Worker struct {
	cat    catalog.Store
	svc    Service
	ids    Identities
	sealer *iam.Sealer
	o      Options
	bytes  *semaphore.Weighted
	remote remoteClients
}

// New returns a worker over the catalog's outbox.
func New(cat catalog.Store, svc Service, ids Identities, sealer *iam.Sealer, o Options) *Worker {
	o.Concurrency = or(o.Concurrency, 4)
	o.InFlight = or(o.InFlight, 64<<20)
	o.Batch = or(o.Batch, 100)
	o.Poll = or(o.Poll, time.Second)
	o.MinBackoff = or(o.MinBackoff, time.Second)
	o.MaxBackoff = or(o.MaxBackoff, time.Minute)
	o.BackfillInterval = or(o.BackfillInterval, time.Minute)
	return &Worker{cat: cat, svc: svc, ids: ids, sealer: sealer, o: o, bytes: semaphore.NewWeighted(o.InFlight),
		remote: remoteClients{m: map[string]*remoteClient{}}}
}

func or[T int | int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Run delivers due events until ctx ends, and runs the backfill of
// existing versions beside.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.runBackfill(ctx) }()
	defer wg.Wait()
	for ctx.Err() == nil {
		n, err := w.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Warn("replication: pass", "err", err)
		}
		if n == 0 || err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(w.o.Poll):
			}
		}
	}
}

// Pass delivers one batch of due events, at most Concurrency at once,
// and reports how many it took.
func (w *Worker) Pass(ctx context.Context) (int, error) {
	es, err := w.cat.DueEvents(ctx, replication.Sink, w.o.Batch)
	if err != nil || len(es) == 0 {
		return 0, err
	}
	slots := make(chan struct{}, w.o.Concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var settled []int64 // acknowledged together, in one transaction
	ack := func() error {
		wg.Wait()
		if len(settled) == 0 {
			return nil
		}
		// Not the pass's context: what was delivered is acknowledged even
		// as the lease ends (else it is only delivered again).
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return w.cat.AckEvents(actx, settled...)
	}
	for _, e := range es {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return len(es), errors.Join(ctx.Err(), ack())
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if w.handle(ctx, e) {
				mu.Lock()
				settled = append(settled, e.ID)
				mu.Unlock()
			}
		}()
	}
	return len(es), ack()
}

// permanent marks a failure that trying again will not mend (access
// refused, a destination gone or misconfigured): the version is FAILED,
// as AWS leaves it, and its event is dropped.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

func permanentf(format string, a ...any) error { return permanent{fmt.Errorf(format, a...)} }

// handle delivers one event and settles it, reporting whether it is
// done with (COMPLETED or FAILED; the caller acknowledges it), else it is
// retried later.
func (w *Worker) handle(ctx context.Context, e catalog.Event) bool {
	var p payload
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		slog.Error("replication: undecodable event dropped", "bucket", e.Bucket, "key", e.Key, "err", err)
		w.settle(ctx, e, p, replication.StatusFailed)
		return true
	}
	size, err := w.deliver(ctx, e, p)
	var perm permanent
	switch {
	case ctx.Err() != nil:
		return false // not an attempt: the next holder of the lease takes it again
	case err == nil:
		w.o.Metrics.Done(e.Bucket, size)
		w.settle(ctx, e, p, replication.StatusCompleted)
		return true
	case errors.As(err, &perm) || isPermanent(err):
		slog.Warn("replication failed", "bucket", e.Bucket, "key", e.Key, "version", e.VersionID, "err", err)
		w.o.Metrics.Failed(e.Bucket)
		w.settle(ctx, e, p, replication.StatusFailed, w.failedEvents(ctx, e, p, err)...)
		return true
	default:
		wait := w.o.MinBackoff << min(e.Attempts, 20)
		if wait > w.o.MaxBackoff || wait <= 0 {
			wait = w.o.MaxBackoff
		}
		w.o.Metrics.Retried(e.Bucket)
		slog.Debug("replication retried", "bucket", e.Bucket, "key", e.Key, "attempts", e.Attempts+1, "in", wait, "err", err)
		if rerr := w.cat.RetryEvent(ctx, e.ID, time.Now().Add(wait), err.Error()); rerr != nil {
			slog.Warn("replication: retry", "err", rerr)
		}
		return false
	}
}

// isPermanent tells the object service's refusals, which a retry gets
// again.
func isPermanent(err error) bool {
	for _, k := range []error{objects.ErrAccessDenied, objects.ErrInvalidRequest, objects.ErrReplicaSSEC,
		objects.ErrQuotaExceeded, objects.ErrEntityTooLarge, iam.ErrUnknownUser, catalog.ErrNoSuchReplicationTarget} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// settle records a version's status (a delete marker has none, a
// replica stays REPLICA), before its event is acknowledged, with events
// to queue in the same transaction (a failure's notifications). A
// status the catalog cannot record is logged: the replica is there
// either way.
func (w *Worker) settle(ctx context.Context, e catalog.Event, p payload, status string, events ...catalog.Event) {
	if p.DeleteMarker || p.Replica {
		return
	}
	// A change made since, still on its way, keeps the version PENDING
	// until it is delivered in turn.
	err := w.cat.SettleReplicationStatus(ctx, e, status, events...)
	if err != nil && !errors.Is(err, catalog.ErrNoSuchObject) {
		slog.Warn("replication: status", "bucket", e.Bucket, "key", e.Key, "err", err)
	}
}

// deliver sends an event's version to each of its destinations, or for
// a change of its metadata brings the replicas' to it, and returns the
// bytes sent. What it writes at a destination of this Ostium arrived by
// replication, and is not replicated again.
func (w *Worker) deliver(ctx context.Context, e catalog.Event, p payload) (int64, error) {
	ctx = iam.WithOrigin(ctx, iam.Origin{Replication: true})
	b, err := w.cat.GetBucket(ctx, e.Bucket)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return 0, permanentf("source bucket gone")
	}
	if err != nil {
		return 0, err
	}
	cfg, err := replication.Decode(b.Replication)
	if err != nil {
		return 0, permanent{err}
	}
	if cfg == nil {
		return 0, permanentf("the bucket's replication configuration was removed")
	}
	obj, err := w.cat.GetObject(ctx, e.Bucket, e.Key, e.VersionID)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return 0, nil // removed since: nothing is left to replicate
	}
	if err != nil {
		return 0, err
	}
	if obj.DeleteMarker != p.DeleteMarker {
		return 0, permanentf("version %s is not what was queued", e.VersionID)
	}
	n := min(obj.Size, w.o.InFlight)
	if err := w.bytes.Acquire(ctx, n); err != nil {
		return 0, err
	}
	defer w.bytes.Release(n)
	open := func() (catalog.Object, io.ReadCloser, error) {
		return w.svc.OpenVersion(ctx, e.Bucket, e.Key, e.VersionID)
	}
	var sent int64
	for _, d := range p.Destinations {
		arn, err := replication.ParseARN(d.ARN)
		if err != nil {
			return sent, permanent{err}
		}
		switch {
		case p.Meta && arn.Target == "":
			err = w.localMeta(ctx, cfg.Writer, arn, d, obj, p.Replica, open)
		case p.Meta:
			err = w.remoteMeta(ctx, b, arn, d, obj, p.Replica, open)
		case arn.Target == "":
			err = w.local(ctx, cfg.Writer, arn, d, open)
		default:
			err = w.toRemote(ctx, b, arn, d, obj, open)
		}
		if err != nil {
			return sent, destError{d, fmt.Errorf("to %s: %w", d.ARN, err)}
		}
		if !p.Meta {
			sent += obj.Size
		}
	}
	return sent, nil
}

// local writes the replica into a bucket of this Ostium as the
// configuration's writer, whose rights are decided again.
func (w *Worker) local(ctx context.Context, wr replication.Writer, arn replication.ARN, d Destination, open func() (catalog.Object, io.ReadCloser, error)) error {
	id, err := w.writer(ctx, wr)
	if err != nil {
		return err
	}
	obj, body, err := open()
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return nil
	}
	if err != nil {
		return err
	}
	if body != nil {
		defer body.Close()
	}
	return w.svc.PutReplica(ctx, id, objects.ReplicaInput{Bucket: arn.Bucket, Source: obj, Body: body,
		StorageClass: d.StorageClass, KMSKeyID: d.KMSKeyID, OwnerIsDestination: d.OwnerIsDest})
}

// localMeta brings a replica in a bucket of this Ostium to the
// metadata of obj, the version as it is now, as the configuration's
// writer. A replica not there yet is written whole (it then carries the
// metadata); for replica modification sync, the version a replica was
// made from that is no longer there is left gone.
func (w *Worker) localMeta(ctx context.Context, wr replication.Writer, arn replication.ARN, d Destination, obj catalog.Object, replica bool, open func() (catalog.Object, io.ReadCloser, error)) error {
	id, err := w.writer(ctx, wr)
	if err != nil {
		return err
	}
	err = w.svc.PutReplicaMeta(ctx, id, objects.ReplicaInput{Bucket: arn.Bucket, Source: obj, OwnerIsDestination: d.OwnerIsDest})
	if errors.Is(err, catalog.ErrNoSuchObject) {
		if replica {
			return nil
		}
		return w.local(ctx, wr, arn, d, open)
	}
	return err
}

// writer is the identity a configuration was written by, as it is now.
func (w *Worker) writer(ctx context.Context, wr replication.Writer) (*iam.Identity, error) {
	if wr.Root {
		return &iam.Identity{Root: true, CanonicalID: iam.RootCanonicalID}, nil
	}
	id, err := w.ids.UserIdentity(ctx, wr.Tenant, wr.User, wr.CanonicalID)
	if err != nil {
		return nil, err
	}
	if wr.App != nil {
		id.App = &iam.AppLimits{Buckets: wr.App.Buckets, ReadOnly: wr.App.ReadOnly}
	}
	return id, nil
}
