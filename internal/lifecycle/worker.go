package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/metrics"
)

// JobName is the worker's lease and cursor name.
const JobName = "lifecycle"

// Defaults of the worker's pace.
const (
	DefaultInterval = time.Hour
	DefaultRate     = 200 // removals (and listed pages) per second
	DefaultBatch    = 100 // versions or uploads listed at once
)

// ErrLocked is a removal the catalog refused because object lock keeps
// the version: the worker skips it, as AWS's lifecycle does.
var ErrLocked = errors.New("lifecycle: the version is locked")

// ErrChanged is an expiry of a current version that another write
// replaced since the listing: the worker leaves the key alone.
var ErrChanged = errors.New("lifecycle: the version is no longer current")

// Store is what the worker reads of the catalog (catalog.Store).
type Store interface {
	ListBuckets(ctx context.Context, f catalog.BucketFilter) ([]catalog.Bucket, error)
	GetBucket(ctx context.Context, name string) (catalog.Bucket, error)
	ListVersions(ctx context.Context, bucket string, q catalog.VersionQuery) ([]catalog.Object, error)
	GetObject(ctx context.Context, bucket, key, versionID string) (catalog.Object, error)
	ListUploads(ctx context.Context, bucket string, q catalog.UploadQuery) ([]catalog.Upload, error)
	AbortUpload(ctx context.Context, bucket, key, uploadID string) error
}

// Remover removes what a rule made due (objects.Service.LifecycleRemove):
// with current, version o as DeleteObject without a version id does (a
// delete marker in a versioned bucket), failing with ErrChanged once
// another version replaced it; else version o for good. A locked
// version's removal fails with ErrLocked.
type Remover interface {
	LifecycleRemove(ctx context.Context, b catalog.Bucket, o catalog.Object, current bool) (catalog.Object, error)
}

// Options tune the worker; zero values take the defaults.
type Options struct {
	// Day is how long a lifecycle day lasts (Day; shorter only in tests).
	Day time.Duration
	// Interval is the time between the starts of two passes.
	Interval time.Duration
	// Rate bounds the removals per second (each listed page costs one
	// too), so that foreground requests keep their latency.
	Rate int
	// Batch is how many versions or uploads are listed at once.
	Batch int
	// Metrics counts what was done (nil: nothing).
	Metrics *metrics.Lifecycle
}

// Worker applies the buckets' lifecycle rules: it walks every bucket
// that has rules, in name order, and each one's versions in key order,
// keeping its position in the catalog (when the catalog keeps cursors),
// so that a pass cut short, here or on a node that took the lease over,
// resumes near where it stopped.
type Worker struct {
	store   Store
	rm      Remover
	mv      Mover           // nil: transitions wait (rm does not move)
	cursors catalog.Cursors // nil: every pass starts over
	o       Options
	// saveEvery spaces the cursor's saves.
	saveEvery time.Duration
	next      time.Time // the pacer's next free slot
}

// NewWorker returns a worker over store, removing through rm.
func NewWorker(store Store, rm Remover, o Options) *Worker {
	if o.Day <= 0 {
		o.Day = Day
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRate
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	w := &Worker{store: store, rm: rm, o: o, saveEvery: time.Second}
	w.cursors, _ = store.(catalog.Cursors)
	w.mv, _ = rm.(Mover)
	return w
}

// Stats are what one pass did.
type Stats struct {
	Expired, Removed, Aborted, Locked, Failed int
	// Due counts the versions found due for a transition, Moved those
	// moved, MovedBytes the bytes they copied.
	Due, Moved int
	MovedBytes int64
}

func (s Stats) String() string {
	return fmt.Sprintf("expired=%d removed=%d aborted=%d locked=%d failed=%d transitions_due=%d moved=%d moved_bytes=%d",
		s.Expired, s.Removed, s.Aborted, s.Locked, s.Failed, s.Due, s.Moved, s.MovedBytes)
}

// Run makes a pass every interval until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.o.Interval)
	defer t.Stop()
	for {
		st, err := w.RunOnce(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			slog.Error("lifecycle pass failed", "err", err, "stats", st.String())
		case st != Stats{}:
			slog.Info("lifecycle pass", "stats", st.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// position is where a pass is: in bucket, after every version of key.
type position struct {
	Bucket string `json:"bucket"`
	Key    string `json:"key,omitempty"`
}

// RunOnce makes one pass from the saved position to the last bucket,
// then clears the position so that the next pass starts over.
func (w *Worker) RunOnce(ctx context.Context) (Stats, error) {
	var st Stats
	at := w.load(ctx)
	buckets, err := w.store.ListBuckets(ctx, catalog.BucketFilter{})
	if err != nil {
		return st, fmt.Errorf("lifecycle: list buckets: %w", err)
	}
	for _, b := range buckets {
		if b.Name < at.Bucket {
			continue
		}
		// A listing leaves settings out: read them.
		if b, err = w.store.GetBucket(ctx, b.Name); errors.Is(err, catalog.ErrNoSuchBucket) || err == nil && b.Lifecycle == "" {
			continue
		} else if err != nil {
			return st, fmt.Errorf("lifecycle: read bucket: %w", err)
		}
		cfg, err := Decode(b.Lifecycle)
		if err != nil {
			slog.Warn("lifecycle configuration unreadable", "bucket", b.Name, "err", err)
			continue
		}
		marker := ""
		if b.Name == at.Bucket {
			marker = at.Key
		}
		if cfg.Aborts() {
			if err := w.uploads(ctx, b, cfg, &st); err != nil {
				return st, err
			}
		}
		if cfg.Versions() {
			if err := w.versions(ctx, b, cfg, marker, &st); err != nil {
				return st, err
			}
		}
	}
	w.save(ctx, position{})
	w.o.Metrics.SetBacklog(st.Due - st.Moved)
	return st, nil
}

func (w *Worker) load(ctx context.Context) position {
	var p position
	if w.cursors == nil {
		return p
	}
	s, err := w.cursors.Cursor(ctx, JobName)
	if err != nil {
		slog.Warn("lifecycle cursor unreadable: starting over", "err", err)
		return p
	}
	if s != "" {
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			slog.Warn("lifecycle cursor unreadable: starting over", "err", err)
		}
	}
	return p
}

func (w *Worker) save(ctx context.Context, p position) {
	if w.cursors == nil || ctx.Err() != nil {
		return
	}
	b, _ := json.Marshal(p)
	if err := w.cursors.SetCursor(ctx, JobName, string(b)); err != nil {
		slog.Warn("lifecycle cursor not saved", "err", err)
	}
}

// pace waits for the pacer's next slot: at most Rate a second.
func (w *Worker) pace(ctx context.Context) error {
	now := time.Now()
	if w.next.Before(now) {
		w.next = now
	}
	wait := w.next.Sub(now)
	w.next = w.next.Add(time.Second / time.Duration(w.o.Rate))
	if wait <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// keyState is what the walk knows of the key it is in: the version
// seen last (the next newer one of the version at hand) and how many
// noncurrent versions it has seen.
type keyState struct {
	key        string
	newer      time.Time
	noncurrent int
}

// versions walks a bucket's versions after marker, a page at a time.
// Each version is judged once the next is listed: whether a current
// delete marker is its key's only version depends on it, and a version
// still to be judged is the listing's marker, so no removal moves the
// listing.
func (w *Worker) versions(ctx context.Context, b catalog.Bucket, cfg *Configuration, marker string, st *Stats) error {
	q := catalog.VersionQuery{KeyMarker: marker, Limit: w.o.Batch}
	var ks keyState
	var pending *catalog.Object
	done := marker // every version of done and before is judged
	saved := time.Now()
	for {
		if err := w.pace(ctx); err != nil {
			return err
		}
		page, err := w.store.ListVersions(ctx, b.Name, q)
		if err != nil {
			return fmt.Errorf("lifecycle: list versions of %s: %w", b.Name, err)
		}
		for i := range page {
			if pending != nil {
				if err := w.judge(ctx, b, cfg, pending, &page[i], &ks, st); err != nil {
					return err
				}
				if pending.Key != page[i].Key {
					done = pending.Key
				}
			}
			pending = &page[i]
		}
		if len(page) < w.o.Batch {
			if pending != nil {
				return w.judge(ctx, b, cfg, pending, nil, &ks, st)
			}
			return nil
		}
		q.KeyMarker, q.VersionMarker = pending.Key, pending.VersionID
		if time.Since(saved) >= w.saveEvery {
			w.save(ctx, position{Bucket: b.Name, Key: done})
			saved = time.Now()
		}
	}
}

// judge applies the rules to version o; next is the version listed
// after it (nil at the end).
func (w *Worker) judge(ctx context.Context, b catalog.Bucket, cfg *Configuration, o, next *catalog.Object, ks *keyState, st *Stats) error {
	now := time.Now()
	if o.Key != ks.key {
		*ks = keyState{key: o.Key}
	}
	v := Version{Key: o.Key, Size: o.Size, Tags: o.Meta.Tags, LastModified: o.LastModified,
		IsLatest: o.IsLatest, DeleteMarker: o.DeleteMarker, StorageClass: o.StorageClass,
		OnlyVersion: o.IsLatest && (next == nil || next.Key != o.Key)}
	if !o.IsLatest {
		v.NoncurrentSince, v.NewerNoncurrent = ks.newer, ks.noncurrent
		if v.NoncurrentSince.IsZero() {
			// Its successor went since the listing: count from now
			// rather than too early.
			v.NoncurrentSince = now
		}
		ks.noncurrent++
	}
	ks.newer = o.LastModified
	due := cfg.Evaluate(v, now, w.o.Day)
	switch due.Action {
	case ExpireCurrent:
		return w.remove(ctx, b, o, true, due, st)
	case RemoveVersion:
		return w.remove(ctx, b, o, false, due, st)
	case Move:
		return w.move(ctx, b, o, due, st)
	}
	return nil
}

func (w *Worker) remove(ctx context.Context, b catalog.Bucket, o *catalog.Object, current bool, due Due, st *Stats) error {
	if err := w.pace(ctx); err != nil {
		return err
	}
	_, err := w.rm.LifecycleRemove(ctx, b, *o, current)
	switch {
	case errors.Is(err, ErrChanged):
		// Written again since the listing: the new version is judged
		// on a later pass.
	case err == nil && current:
		st.Expired++
		w.o.Metrics.Count("expired", 1)
	case err == nil:
		st.Removed++
		w.o.Metrics.Count("removed_version", 1)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, ErrLocked):
		st.Locked++
		w.o.Metrics.Count("skipped_locked", 1)
		slog.Debug("lifecycle skipped a locked version", "bucket", b.Name, "key", o.Key, "version", o.VersionID, "rule", due.RuleID)
	default:
		st.Failed++
		w.o.Metrics.Count("failed", 1)
		slog.Warn("lifecycle removal failed", "bucket", b.Name, "key", o.Key, "version", o.VersionID, "rule", due.RuleID, "err", err)
	}
	return nil
}

// uploads aborts a bucket's multipart uploads that rules make due. Those
// of a page are aborted once the next page is listed, so that none is
// the listing's marker.
func (w *Worker) uploads(ctx context.Context, b catalog.Bucket, cfg *Configuration, st *Stats) error {
	q := catalog.UploadQuery{Limit: w.o.Batch}
	var due []catalog.Upload
	abort := func() error {
		for _, u := range due {
			if err := w.pace(ctx); err != nil {
				return err
			}
			err := w.store.AbortUpload(ctx, b.Name, u.Key, u.UploadID)
			switch {
			case err == nil:
				st.Aborted++
				w.o.Metrics.Count("aborted_upload", 1)
			case errors.Is(err, catalog.ErrNoSuchUpload): // completed or aborted meanwhile
			case ctx.Err() != nil:
				return ctx.Err()
			default:
				st.Failed++
				w.o.Metrics.Count("failed", 1)
				slog.Warn("lifecycle abort failed", "bucket", b.Name, "key", u.Key, "upload", u.UploadID, "err", err)
			}
		}
		due = due[:0]
		return nil
	}
	for {
		if err := w.pace(ctx); err != nil {
			return err
		}
		page, err := w.store.ListUploads(ctx, b.Name, q)
		if err != nil {
			return fmt.Errorf("lifecycle: list uploads of %s: %w", b.Name, err)
		}
		if err := abort(); err != nil {
			return err
		}
		now := time.Now()
		for _, u := range page {
			if _, ok := cfg.AbortDue(u.Key, u.Initiated, now, w.o.Day); ok {
				due = append(due, u)
			}
		}
		if len(page) < w.o.Batch {
			return abort()
		}
		last := page[len(page)-1]
		q.KeyMarker, q.UploadIDMarker = last.Key, last.UploadID
	}
}
