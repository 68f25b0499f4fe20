// Package platform holds the storage platforms a node keeps blobs on, by
// name, and routes blob ids to them. A catalog's blob id names its
// platform and namespace ("ceph/acme/<id>"), so an object stays readable
// where it was written when a tenant or bucket moves to another platform.
// Ids from before platforms existed ("<id>") live on the platform named
// "local".
package platform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/fs"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/metrics"
)

// Types of platform.
const (
	TypeFS = "fs" // local disk
	TypeS3 = "s3" // any S3-compatible platform
)

// Legacy is the platform of ids without a platform prefix.
const Legacy = "local"

// Spec configures one platform.
type Spec struct {
	Type string `yaml:"type"`
	Path string `yaml:"path,omitempty"` // fs: the directory
	// InlineMax is the largest object kept in its catalog row rather
	// than on this platform (nil: DefaultInlineMax; 0: none). Inline
	// objects cost one catalog commit and no platform round trip, but
	// they grow the catalog; a provider whose catalog is the scarcer
	// resource turns it down.
	InlineMax *int64 `yaml:"inline_max,omitempty"`
	// The s3 driver's settings (endpoint, credentials, layout, ...).
	S3 s3blob.Config `yaml:",inline"`
}

// DefaultInlineMax is Spec.InlineMax when not set, and also its most:
// the object service keeps no larger object in a row.
const DefaultInlineMax = 32 << 10

// ValidName reports whether name may name a platform.
func ValidName(name string) bool { return blob.ValidNamespace(name) && len(name) <= 32 }

// Set is a node's platforms. It is itself a blob.Store over full ids.
type Set struct {
	members map[string]*member
	def     string
	metrics *metrics.Platforms
}

type member struct {
	name      string
	where     string // endpoint or directory, for errors and logs
	store     blob.Store
	inlineMax int64
	mu        sync.Mutex
	err       error // set once the platform failed checksToFail checks in a row
	fails     int   // checks failed in a row
}

// checksToFail is how many checks in a row must fail before a platform is
// taken for down: a platform slow under load is not an outage, and
// failing its requests fast would make it one.
const checksToFail = 3

// checkTimeout bounds one health check.
const checkTimeout = 10 * time.Second

// checker is a driver that can tell whether its platform answers.
type checker interface {
	Check(ctx context.Context) error
}

// preparer is a driver that sets up a namespace ahead of its first blob.
type preparer interface {
	Prepare(ctx context.Context, ns string) error
}

// Open opens every platform of specs; def names the default. m times
// their requests (nil: none).
func Open(specs map[string]Spec, def string, m *metrics.Platforms) (*Set, error) {
	if _, ok := specs[def]; !ok {
		return nil, fmt.Errorf("default_platform: %q is not among the platforms", def)
	}
	s := &Set{members: map[string]*member{}, def: def, metrics: m}
	for name, spec := range specs {
		st, err := open(name, spec)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.members[name] = &member{name: name, where: where(spec), store: st, inlineMax: DefaultInlineMax}
		if spec.InlineMax != nil {
			s.members[name].inlineMax = *spec.InlineMax
		}
	}
	return s, nil
}

// Validate checks a platform's configuration without contacting it; each
// error names the key.
func Validate(name string, spec Spec) error {
	key := "platforms." + name
	if !ValidName(name) {
		return fmt.Errorf("%s: a name is 1 to 32 of a-z, 0-9 and -", key)
	}
	if m := spec.InlineMax; m != nil && (*m < 0 || *m > DefaultInlineMax) {
		return fmt.Errorf("%s.inline_max: %d is not between 0 and %d bytes", key, *m, DefaultInlineMax)
	}
	switch spec.Type {
	case TypeFS:
		if spec.Path == "" {
			return fmt.Errorf("%s.path: required for an fs platform", key)
		}
		return nil
	case TypeS3:
	default:
		return fmt.Errorf("%s.type: %q is neither fs nor s3", key, spec.Type)
	}
	c := spec.S3
	switch {
	case c.Bucket == "":
		return fmt.Errorf("%s.bucket: required for an s3 platform", key)
	case !blob.ValidNamespace(c.Bucket) || len(c.Bucket) < 3:
		return fmt.Errorf("%s.bucket: %q is not a bucket name (3 to 40 of a-z, 0-9 and -)", key, c.Bucket)
	case c.Layout != "" && c.Layout != s3blob.LayoutShared && c.Layout != s3blob.LayoutBucketPerTenant:
		return fmt.Errorf("%s.layout: %q is neither %s nor %s", key, c.Layout, s3blob.LayoutShared, s3blob.LayoutBucketPerTenant)
	case (c.AccessKey == "") != (c.SecretKey == ""):
		return fmt.Errorf("%s.secret_key: give both keys or neither", key)
	case c.PartSize != 0 && c.PartSize < 5<<20:
		return fmt.Errorf("%s.part_size: %d is below the 5 MiB S3 allows", key, c.PartSize)
	case c.MultipartThreshold < 0 || c.Timeout < 0 || c.MaxConns < 0:
		return fmt.Errorf("%s: multipart_threshold, timeout and max_connections must not be negative", key)
	}
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s.endpoint: %q is not an http(s) URL", key, c.Endpoint)
		}
	}
	if c.Proxy != "" {
		if u, err := url.Parse(c.Proxy); err != nil || u.Host == "" {
			return fmt.Errorf("%s.proxy: %q is not a URL", key, c.Proxy)
		}
	}
	if c.CAFile != "" {
		if _, err := os.Stat(c.CAFile); err != nil {
			return fmt.Errorf("%s.ca_file: %w", key, err)
		}
	}
	return nil
}

// Check is Validate and what opening the platform reads without
// contacting it (an s3 platform's CA file, parsed): what a start refuses,
// for `ostium config validate`. An fs platform's directory is made at
// start, so only its path is checked.
func Check(name string, spec Spec) error {
	if err := Validate(name, spec); err != nil || spec.Type != TypeS3 {
		return err
	}
	st, err := open(name, spec)
	if err != nil {
		return err
	}
	return st.Close()
}

func open(name string, spec Spec) (blob.Store, error) {
	if err := Validate(name, spec); err != nil {
		return nil, err
	}
	switch spec.Type {
	case TypeFS:
		st, err := fs.Open(spec.Path)
		if err != nil {
			return nil, fmt.Errorf("platforms.%s: %w", name, err)
		}
		return st, nil
	case TypeS3:
		st, err := s3blob.Open(spec.S3)
		if err != nil {
			return nil, fmt.Errorf("platforms.%s: %w", name, err)
		}
		return st, nil
	}
	return nil, fmt.Errorf("platforms.%s.type: %q is neither fs nor s3", name, spec.Type)
}

// where is the endpoint of an s3 platform or the directory of an fs one.
func where(spec Spec) string {
	switch {
	case spec.Type == TypeFS:
		return spec.Path
	case spec.S3.Endpoint != "":
		return spec.S3.Endpoint
	}
	return "AWS S3 " + or(spec.S3.Region, "us-east-1")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fail names the platform in a failure of its driver ("platform ceph
// (http://10.0.0.5:7480): s3blob: get ...: connection refused"), which
// is what the request log and the operator see. Answers that are no
// failure (not found, taken, cancelled) pass as they are.
func (m *member) fail(err error) error {
	if err == nil || errors.Is(err, blob.ErrNotFound) || errors.Is(err, blob.ErrExists) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("platform %s (%s): %w", m.name, m.where, err)
}

// Default is the platform blobs go to when neither bucket nor tenant
// names one.
func (s *Set) Default() string { return s.def }

// Has reports whether name is one of the platforms.
func (s *Set) Has(name string) bool { _, ok := s.members[name]; return ok }

// Names lists the platforms, sorted.
func (s *Set) Names() []string {
	var out []string
	for n := range s.members {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// NewID returns a fresh blob id on platform ("" = the default), in
// namespace ns ("" = none).
func (s *Set) NewID(platform, ns string) string {
	if platform == "" {
		platform = s.def
	}
	id := blob.NewID()
	if ns != "" {
		id = ns + "/" + id
	}
	return platform + "/" + id
}

// InlineMax is the largest object platform ("" = the default) leaves in
// its catalog row.
func (s *Set) InlineMax(platform string) int64 {
	if platform == "" {
		platform = s.def
	}
	if m, ok := s.members[platform]; ok {
		return m.inlineMax
	}
	return DefaultInlineMax
}

// Prepare sets up namespace ns on a platform ahead of its first blob (a
// platform bucket per tenant is made at onboarding).
func (s *Set) Prepare(ctx context.Context, platform, ns string) error {
	m, err := s.member(platform)
	if err != nil {
		return err
	}
	if p, ok := m.store.(preparer); ok {
		return m.fail(p.Prepare(ctx, ns))
	}
	return nil
}

// route splits a full id into its platform's member and driver id.
func (s *Set) route(id string) (*member, string, error) {
	name, rest, ok := strings.Cut(id, "/")
	if !ok {
		name, rest = Legacy, id
	}
	m, err := s.member(name)
	if err != nil {
		return nil, "", err
	}
	if err := m.healthy(); err != nil {
		return nil, "", m.fail(err)
	}
	return m, rest, nil
}

func (s *Set) member(name string) (*member, error) {
	m, ok := s.members[name]
	if !ok {
		return nil, fmt.Errorf("platform: %q is not configured on this node", name)
	}
	return m, nil
}

func (m *member) healthy() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (s *Set) Put(ctx context.Context, id string, r io.Reader, size int64) (n int64, err error) {
	m, rest, err := s.route(id)
	if err != nil {
		return 0, err
	}
	defer func(start time.Time) { s.metrics.Request(m.name, "put", start, err) }(time.Now())
	n, err = m.store.Put(ctx, rest, r, size)
	return n, m.fail(err)
}

func (s *Set) Get(ctx context.Context, id string, off, length int64) (rc io.ReadCloser, err error) {
	m, rest, err := s.route(id)
	if err != nil {
		return nil, err
	}
	defer func(start time.Time) { s.metrics.Request(m.name, "get", start, err) }(time.Now())
	rc, err = m.store.Get(ctx, rest, off, length)
	return rc, m.fail(err)
}

func (s *Set) Delete(ctx context.Context, id string) (err error) {
	m, rest, err := s.route(id)
	if err != nil {
		return err
	}
	defer func(start time.Time) { s.metrics.Request(m.name, "delete", start, err) }(time.Now())
	return m.fail(m.store.Delete(ctx, rest))
}

// ReportsMD5 tells whether the platform of id reports the MD5 of a blob
// of size bytes.
func (s *Set) ReportsMD5(id string, size int64) bool {
	m, rest, err := s.route(id)
	if err != nil {
		return false
	}
	r, ok := m.store.(blob.MD5Reporter)
	return ok && r.ReportsMD5(rest, size)
}

func (s *Set) PutMD5(ctx context.Context, id string, r io.Reader, size int64) (n int64, sum []byte, err error) {
	m, rest, err := s.route(id)
	if err != nil {
		return 0, nil, err
	}
	mr, ok := m.store.(blob.MD5Reporter)
	if !ok {
		return 0, nil, fmt.Errorf("platform: %s does not report MD5s", id)
	}
	defer func(start time.Time) { s.metrics.Request(m.name, "put", start, err) }(time.Now())
	n, sum, err = mr.PutMD5(ctx, rest, r, size)
	return n, sum, m.fail(err)
}

// Walk visits the blobs of every healthy platform with their full ids;
// a platform that is down is skipped (its blobs wait for the next walk).
func (s *Set) Walk(ctx context.Context, fn func(blob.Info) error) error {
	for _, name := range s.Names() {
		m := s.members[name]
		if m.healthy() != nil {
			continue
		}
		err := m.store.Walk(ctx, func(in blob.Info) error {
			in.ID = name + "/" + in.ID
			return fn(in)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Health returns each platform's state: nil when it answered its last
// check.
func (s *Set) Health() map[string]error {
	out := map[string]error{}
	for name, m := range s.members {
		out[name] = m.healthy()
	}
	return out
}

// CheckOnce asks every platform whether it answers, at once.
func (s *Set) CheckOnce(ctx context.Context) {
	var wg sync.WaitGroup
	for name, m := range s.members {
		c, ok := m.store.(checker)
		if !ok {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, checkTimeout)
			defer cancel()
			err := c.Check(cctx)
			if err != nil && ctx.Err() != nil {
				return // shutting down
			}
			if err != nil && !errors.Is(err, blob.ErrUnavailable) {
				err = fmt.Errorf("%w: %w", blob.ErrUnavailable, err)
			}
			m.mu.Lock()
			was := m.err
			if m.fails = m.fails + 1; err == nil {
				m.fails = 0
			}
			if err == nil || m.fails >= checksToFail {
				m.err = err
			}
			err = m.err
			m.mu.Unlock()
			switch {
			case err != nil && was == nil:
				slog.Warn("platform unavailable", "platform", name, "endpoint", m.where, "err", err)
			case err == nil && was != nil:
				slog.Info("platform available again", "platform", name, "endpoint", m.where)
			}
		}()
	}
	wg.Wait()
}

// Watch checks the platforms every interval until ctx ends.
func (s *Set) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.CheckOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Set) Close() error {
	var errs []error
	for _, m := range s.members {
		errs = append(errs, m.store.Close())
	}
	return errors.Join(errs...)
}
