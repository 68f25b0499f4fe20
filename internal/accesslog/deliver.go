package accesslog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

// Writer stores a log object in its target bucket as the logging
// service (*objects.Service).
type Writer interface {
	DeliverAccessLog(ctx context.Context, source, target, key string, body []byte) error
}

// Delivery defaults.
const (
	// DefaultInterval paces delivery: AWS delivers within hours, usually
	// minutes; a log object then holds a few minutes of a bucket's requests.
	DefaultInterval = 5 * time.Minute
	// DefaultObjectRecords bounds the records of one log object.
	DefaultObjectRecords = 10_000
	// pendingBatch bounds the records read from the queue at once.
	pendingBatch = 5000
)

// Deliverer writes queued records into their target buckets, one object
// per source, target and key prefix of each batch.
type Deliverer struct {
	q          catalog.AccessLogQueue
	w          Writer
	interval   time.Duration
	maxRecords int
	now        func() time.Time
}

// NewDeliverer returns a delivery job running every interval (0 =
// DefaultInterval), with at most maxRecords records in an object (0 =
// DefaultObjectRecords).
func NewDeliverer(q catalog.AccessLogQueue, w Writer, interval time.Duration, maxRecords int) *Deliverer {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if maxRecords <= 0 {
		maxRecords = DefaultObjectRecords
	}
	return &Deliverer{q: q, w: w, interval: interval, maxRecords: maxRecords, now: time.Now}
}

// group is the records that go into one log object.
type group struct {
	source, target, prefix, partition string
	day                               string // of the records, for keys partitioned by their time
}

// RunOnce delivers the queue as it stands and returns how many records
// it delivered. Records leave the queue only once their object is
// committed. Records whose target is gone, or whose owner no longer lets
// logs in, or whose target's quota is full, are dropped, as AWS does not
// deliver them either; any other failure leaves them for the next run.
func (d *Deliverer) RunOnce(ctx context.Context) (int, error) {
	delivered := 0
	for {
		recs, err := d.q.PendingAccessLogs(ctx, pendingBatch)
		if err != nil {
			return delivered, fmt.Errorf("accesslog: read queue: %w", err)
		}
		if len(recs) == 0 {
			return delivered, nil
		}
		var order []group
		groups := map[group][]catalog.AccessLogRecord{}
		for _, r := range recs {
			g := group{source: r.Source, target: r.Target, prefix: r.KeyPrefix, partition: r.Partition}
			if r.Partition == objects.EventTime {
				g.day = r.Time.UTC().Format("2006-01-02")
			}
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], r)
		}
		for _, g := range order {
			rs := groups[g]
			for len(rs) > 0 {
				n := min(len(rs), d.maxRecords)
				if err := d.deliver(ctx, g, rs[:n]); err != nil {
					return delivered, err
				}
				delivered += n
				rs = rs[n:]
			}
		}
		if len(recs) < pendingBatch {
			return delivered, nil
		}
	}
}

// deliver writes one object of records and dequeues them.
func (d *Deliverer) deliver(ctx context.Context, g group, rs []catalog.AccessLogRecord) error {
	var body strings.Builder
	ids := make([]string, len(rs))
	for i, r := range rs {
		body.WriteString(r.Line)
		body.WriteByte('\n')
		ids[i] = r.ID
	}
	key := objects.LogObjectKey(g.prefix, g.partition, rs[0].Time, d.now(), unique())
	err := d.w.DeliverAccessLog(ctx, g.source, g.target, key, []byte(body.String()))
	switch {
	case err == nil:
	case errors.Is(err, objects.ErrAccessDenied), errors.Is(err, objects.ErrNoSuchBucket),
		errors.Is(err, objects.ErrQuotaExceeded), errors.Is(err, objects.ErrInvalidArgument), errors.Is(err, objects.ErrKeyTooLong):
		slog.Warn("access log records not deliverable, dropped", "source", g.source, "target", g.target, "records", len(rs), "err", err)
	default:
		return fmt.Errorf("accesslog: deliver %s/%s: %w", g.target, key, err)
	}
	if err := d.q.AccessLogsDone(ctx, ids); err != nil {
		return fmt.Errorf("accesslog: dequeue: %w", err)
	}
	return nil
}

// unique is the random end of a log object's key, as AWS's 16 characters.
func unique() string {
	var b [8]byte
	rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// Run delivers every interval until ctx ends.
func (d *Deliverer) Run(ctx context.Context) {
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		if n, err := d.RunOnce(ctx); err != nil && ctx.Err() == nil {
			slog.Error("access log delivery failed", "err", err, "delivered", n)
		} else if n > 0 {
			slog.Debug("access logs delivered", "records", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
