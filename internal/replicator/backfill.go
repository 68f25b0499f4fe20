package replicator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/replication"
)

// backfillCursor is where the backfill of existing versions stopped, in
// the catalog's job cursors, so that the node that takes the lease over
// resumes there.
const backfillCursor = "replication-backfill"

type cursor struct {
	Bucket        string `json:"bucket,omitempty"`
	KeyMarker     string `json:"key,omitempty"`
	VersionMarker string `json:"version,omitempty"`
	// Done names the buckets whose existing versions were all queued,
	// with a digest of the configuration they were queued for: a
	// bucket is walked once per configuration (as AWS's one-time batch
	// of existing objects), and again only when it changes.
	Done map[string]string `json:"done,omitempty"`
}

// digest names a configuration in the cursor.
func digest(encoded string) string {
	h := sha256.Sum256([]byte(encoded))
	return hex.EncodeToString(h[:8])
}

// backfillPage is how many versions one step lists.
const backfillPage = 100

func (w *Worker) runBackfill(ctx context.Context) {
	for {
		if err := w.Backfill(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("replication: backfill", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.o.BackfillInterval):
		}
	}
}

// Backfill makes one pass over the buckets whose rules ask for existing
// object replication, in name order, and queues each version that has
// no replication status yet and that such a rule replicates (marking it
// PENDING). Versions written since the configuration were queued by
// their own write and carry a status already. The position is saved
// after each page; a bucket walked whole for its configuration is not
// walked again until the configuration changes.
func (w *Worker) Backfill(ctx context.Context) error {
	cur, err := w.loadCursor(ctx)
	if err != nil {
		return err
	}
	buckets, err := w.cat.ListBuckets(ctx, catalog.BucketFilter{})
	if err != nil {
		return err
	}
	done := map[string]string{} // of the buckets that still have such rules
	for _, b := range buckets {
		cfg := existingRules(b.Replication)
		if cfg == nil {
			continue
		}
		d := digest(b.Replication)
		if cur.Done[b.Name] == d {
			done[b.Name] = d
			continue
		}
		if b.Name < cur.Bucket {
			continue
		}
		if b.Name != cur.Bucket {
			cur.Bucket, cur.KeyMarker, cur.VersionMarker = b.Name, "", ""
		}
		for {
			vs, err := w.cat.ListVersions(ctx, b.Name, catalog.VersionQuery{KeyMarker: cur.KeyMarker, VersionMarker: cur.VersionMarker, Limit: backfillPage})
			if err != nil {
				return err
			}
			var events []catalog.Event
			for _, v := range vs {
				if v.DeleteMarker || v.Meta.Replication != "" || isReplica(v) {
					continue
				}
				if p := decide(cfg, v, false, false); p != nil {
					p.Existing = true
					events = append(events, event(b.Name, v, "s3:ObjectCreated:Put", *p))
				}
			}
			if len(events) > 0 {
				if err := w.cat.AddEvents(ctx, events); err != nil {
					return err
				}
				for _, e := range events {
					if err := w.cat.SetReplicationStatus(ctx, e.Bucket, e.Key, e.VersionID, replication.StatusPending); err != nil {
						slog.Debug("replication: backfill status", "err", err)
					}
				}
				w.o.Metrics.Backfilled(b.Name, len(events))
			}
			if len(vs) < backfillPage {
				break
			}
			last := vs[len(vs)-1]
			cur.KeyMarker, cur.VersionMarker = last.Key, last.VersionID
			if err := w.saveCursor(ctx, cur); err != nil {
				return err
			}
		}
		done[b.Name] = d
		if cur.Done == nil {
			cur.Done = map[string]string{}
		}
		cur.Done[b.Name] = d
		if err := w.saveCursor(ctx, cur); err != nil {
			return err
		}
	}
	return w.saveCursor(ctx, cursor{Done: done})
}

// existingRules is a configuration reduced to its rules that replicate
// existing versions; nil when none does.
func existingRules(encoded string) *replication.Configuration {
	c, err := replication.Decode(encoded)
	if err != nil || c == nil {
		return nil
	}
	var rules []replication.Rule
	for _, r := range c.Rules {
		if r.ReplicatesExisting() {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	c.Rules = rules
	return c
}

func (w *Worker) loadCursor(ctx context.Context) (cursor, error) {
	var cur cursor
	cs, ok := w.cat.(catalog.Cursors)
	if !ok {
		return cur, nil
	}
	s, err := cs.Cursor(ctx, backfillCursor)
	if err != nil || s == "" {
		return cur, err
	}
	if json.Unmarshal([]byte(s), &cur) != nil {
		return cursor{}, nil
	}
	return cur, nil
}

func (w *Worker) saveCursor(ctx context.Context, cur cursor) error {
	cs, ok := w.cat.(catalog.Cursors)
	if !ok {
		return nil
	}
	b, _ := json.Marshal(cur)
	return cs.SetCursor(ctx, backfillCursor, string(b))
}
