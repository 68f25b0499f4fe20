package kms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// RewrapJobName is the re-wrap job's lease and cursor name.
const RewrapJobName = "kms-rewrap"

// Defaults of the re-wrap job's pace.
const (
	DefaultRewrapInterval = 10 * time.Minute
	DefaultRewrapRate     = 100 // re-wraps (and listed pages) per second
)

// RewrapOptions tune the re-wrap job.
type RewrapOptions struct {
	// Context is what each stored wrapped key is bound to, as the object
	// service binds it when it writes (objects.KeyContext).
	Context  func(bucket, key string, enc *catalog.Encryption) []byte
	Interval time.Duration // between passes (0 = DefaultRewrapInterval)
	Rate     int           // re-wraps a second at most (0 = DefaultRewrapRate)
}

// RewrapStats count what a pass did.
type RewrapStats struct {
	Seen, Rewrapped, Skipped int
}

// RewrapJob moves every stored wrapped data key (of object versions and
// of multipart uploads) to its tenant key's newest version, after a
// rotation: it re-wraps the data key, never re-encrypts object bytes. It
// runs under a lease (one node at a time), paced, and keeps its place in
// the catalog, so that a node taking over resumes there. Older key
// versions stay: a write begun before a rotation may still commit under
// one.
type RewrapJob struct {
	cat  catalog.Store
	wk   catalog.WrappedKeys
	keys Rewrapper
	o    RewrapOptions
	next time.Time // the pacer's next free slot
}

// NewRewrapJob returns the job; the catalog must implement
// catalog.WrappedKeys (and catalog.Cursors, to resume).
func NewRewrapJob(cat catalog.Store, keys Rewrapper, o RewrapOptions) (*RewrapJob, error) {
	wk, ok := cat.(catalog.WrappedKeys)
	if !ok {
		return nil, fmt.Errorf("kms: catalog %T cannot re-wrap stored keys", cat)
	}
	if o.Context == nil {
		return nil, errors.New("kms: the re-wrap job needs the object service's key context")
	}
	if o.Interval <= 0 {
		o.Interval = DefaultRewrapInterval
	}
	if o.Rate <= 0 {
		o.Rate = DefaultRewrapRate
	}
	return &RewrapJob{cat: cat, wk: wk, keys: keys, o: o}, nil
}

// Run makes a pass every interval until ctx ends.
func (j *RewrapJob) Run(ctx context.Context) {
	for {
		st, err := j.Pass(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			slog.Warn("kms re-wrap pass stopped; resumes at the next", "err", err, "rewrapped", st.Rewrapped)
		case st.Rewrapped > 0:
			slog.Info("kms re-wrap pass", "seen", st.Seen, "rewrapped", st.Rewrapped, "skipped", st.Skipped)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(j.o.Interval):
		}
	}
}

// position is where a pass is: a bucket, and in it the versions (then
// the uploads) after a marker.
type position struct {
	Bucket   string `json:"b"`
	Uploads  bool   `json:"u,omitempty"`
	Key      string `json:"k,omitempty"`
	Marker   string `json:"m,omitempty"` // version id, or upload id
	NotFirst bool   `json:"n,omitempty"` // Key/Marker are set
}

func (j *RewrapJob) load(ctx context.Context) position {
	var p position
	if c, ok := j.cat.(catalog.Cursors); ok {
		if s, err := c.Cursor(ctx, RewrapJobName); err == nil && s != "" {
			json.Unmarshal([]byte(s), &p)
		}
	}
	return p
}

func (j *RewrapJob) save(ctx context.Context, p position) {
	if c, ok := j.cat.(catalog.Cursors); ok {
		b, _ := json.Marshal(p)
		if p == (position{}) {
			b = nil
		}
		if err := c.SetCursor(ctx, RewrapJobName, string(b)); err != nil && ctx.Err() == nil {
			slog.Warn("kms re-wrap: save position", "err", err)
		}
	}
}

// pace waits for the pacer's next slot: at most Rate a second.
func (j *RewrapJob) pace(ctx context.Context) error {
	now := time.Now()
	if j.next.Before(now) {
		j.next = now
	}
	wait := time.Until(j.next)
	j.next = j.next.Add(time.Second / time.Duration(j.o.Rate))
	if wait <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

const rewrapPage = 100

// Pass goes once over every bucket's versions and uploads, from where
// the last pass stopped, and starts the next from the beginning.
func (j *RewrapJob) Pass(ctx context.Context) (RewrapStats, error) {
	var st RewrapStats
	p := j.load(ctx)
	buckets, err := j.cat.ListBuckets(ctx, catalog.BucketFilter{})
	if err != nil {
		return st, fmt.Errorf("kms re-wrap: list buckets: %w", err)
	}
	for _, b := range buckets {
		if b.Name < p.Bucket {
			continue
		}
		if b.Name != p.Bucket {
			p = position{Bucket: b.Name}
		}
		if !p.Uploads {
			if err := j.versions(ctx, b, &p, &st); err != nil {
				return st, j.stopped(p, err)
			}
			p = position{Bucket: b.Name, Uploads: true}
		}
		if err := j.uploads(ctx, b, &p, &st); err != nil {
			return st, j.stopped(p, err)
		}
		p = position{Bucket: b.Name + "\x00"} // the next bucket
		j.save(ctx, p)
	}
	j.save(ctx, position{})
	return st, nil
}

// stopped saves where a pass that is stopping got to (the last row it
// finished), even as its context ends, so that the next pass starts
// there rather than at the last page saved.
func (j *RewrapJob) stopped(p position, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	j.save(ctx, p)
	return err
}

// rewrap re-wraps one stored key; swap stores the result if the row
// still holds the old one.
func (j *RewrapJob) rewrap(ctx context.Context, b catalog.Bucket, key string, enc *catalog.Encryption, st *RewrapStats,
	swap func(old, wrapped []byte) (bool, error)) error {
	if enc == nil || enc.KeyID == "" || len(enc.WrappedKey) == 0 {
		return nil // plaintext, or SSE-C: the customer's key wraps it
	}
	st.Seen++
	out, changed, err := j.keys.Rewrap(ctx, b.Tenant, enc.KeyID, enc.WrappedKey, j.o.Context(b.Name, key, enc))
	switch {
	case errors.Is(err, ErrUnavailable):
		return err // the next pass resumes here
	case err != nil:
		// Destroyed or disabled keys, or a key that does not open: the
		// row stays as it is, for reads to report.
		st.Skipped++
		return nil
	case !changed:
		return nil
	}
	if err := j.pace(ctx); err != nil {
		return err
	}
	done, err := swap(enc.WrappedKey, out)
	if err != nil {
		return fmt.Errorf("kms re-wrap: %s/%s: %w", b.Name, key, err)
	}
	if done {
		st.Rewrapped++
	}
	return nil
}

func (j *RewrapJob) versions(ctx context.Context, b catalog.Bucket, p *position, st *RewrapStats) error {
	for {
		if err := j.pace(ctx); err != nil {
			return err
		}
		q := catalog.VersionQuery{Limit: rewrapPage}
		if p.NotFirst {
			q.KeyMarker, q.VersionMarker = p.Key, p.Marker
		}
		vs, err := j.cat.ListVersions(ctx, b.Name, q)
		if err != nil {
			return fmt.Errorf("kms re-wrap: list versions of %s: %w", b.Name, err)
		}
		for _, v := range vs {
			if !v.DeleteMarker {
				err := j.rewrap(ctx, b, v.Key, v.Meta.Encryption, st, func(old, wrapped []byte) (bool, error) {
					return j.wk.RewrapVersion(ctx, b.Name, v.Key, v.VersionID, old, wrapped)
				})
				if err != nil {
					return err
				}
			}
			p.Key, p.Marker, p.NotFirst = v.Key, v.VersionID, true
		}
		j.save(ctx, *p)
		if len(vs) < rewrapPage {
			return nil
		}
	}
}

func (j *RewrapJob) uploads(ctx context.Context, b catalog.Bucket, p *position, st *RewrapStats) error {
	for {
		if err := j.pace(ctx); err != nil {
			return err
		}
		q := catalog.UploadQuery{Limit: rewrapPage}
		if p.NotFirst {
			q.KeyMarker, q.UploadIDMarker = p.Key, p.Marker
		}
		us, err := j.cat.ListUploads(ctx, b.Name, q)
		if err != nil {
			return fmt.Errorf("kms re-wrap: list uploads of %s: %w", b.Name, err)
		}
		for _, u := range us {
			err := j.rewrap(ctx, b, u.Key, u.Meta.Encryption, st, func(old, wrapped []byte) (bool, error) {
				return j.wk.RewrapUpload(ctx, b.Name, u.Key, u.UploadID, old, wrapped)
			})
			if err != nil {
				return err
			}
			p.Key, p.Marker, p.NotFirst = u.Key, u.UploadID, true
		}
		j.save(ctx, *p)
		if len(us) < rewrapPage {
			return nil
		}
	}
}
