package vcsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

// JobName is the indexer's lease.
const JobName = "catalog-index"

// Indexer defaults and bounds.
const (
	// DefaultInterval is how often published libraries are looked at: a
	// subscriber sees a change within it (and its own poll).
	DefaultInterval = time.Minute
	// listPage is the keys read from the catalog at once.
	listPage = 1000
	// DefaultPause paces the walk: it waits this long between pages, so
	// that indexing a bucket of millions of keys does not load the
	// catalog.
	DefaultPause = 20 * time.Millisecond
	// MaxItems, MaxFiles (of an item) and MaxLibraryFiles (of all its
	// items) bound what one library lists, and so the indexer's memory
	// and the documents' size (some 25 MiB of documents and under 100 MiB
	// of heap while indexing, at the bounds); items and files past them
	// are left out (and logged).
	MaxItems        = 10_000
	MaxFiles        = 1_000
	MaxLibraryFiles = 100_000
)

// Catalog is what the indexer reads and writes.
type Catalog interface {
	catalog.Publications
	GetBucket(ctx context.Context, name string) (catalog.Bucket, error)
	ListObjects(ctx context.Context, bucket string, q catalog.ListQuery) ([]catalog.Object, error)
}

// Indexer regenerates the index documents of every published library
// whose objects changed since it last did. One node runs it (a lease).
type Indexer struct {
	cat      Catalog
	interval time.Duration
	pause    time.Duration
	now      func() time.Time
}

// NewIndexer returns the job, running every interval (0 = DefaultInterval).
func NewIndexer(cat Catalog, interval time.Duration) *Indexer {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Indexer{cat: cat, interval: interval, pause: DefaultPause, now: time.Now}
}

// Run indexes every interval until ctx ends.
func (x *Indexer) Run(ctx context.Context) {
	t := time.NewTicker(x.interval)
	defer t.Stop()
	for {
		if n, err := x.RunOnce(ctx); err != nil && ctx.Err() == nil {
			slog.Error("content library indexing failed", "err", err, "changed", n)
		} else if n > 0 {
			slog.Debug("content libraries indexed", "changed", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce looks at every publication and regenerates those whose
// objects changed; it returns how many it regenerated. A failure with
// one library is logged and the others go on; an interrupted run leaves
// the documents as they were, and the next run starts that library over.
func (x *Indexer) RunOnce(ctx context.Context) (int, error) {
	pubs, err := x.cat.ListPublications(ctx, "")
	if err != nil {
		return 0, fmt.Errorf("vcsp: list publications: %w", err)
	}
	n := 0
	for _, p := range pubs {
		changed, err := x.Index(ctx, p)
		switch {
		case ctx.Err() != nil:
			return n, ctx.Err()
		case err != nil:
			slog.Warn("content library not indexed", "tenant", p.Tenant, "library", p.Name, "err", err)
		case changed:
			n++
		}
	}
	return n, nil
}

// builder gathers one walk's items, one at a time (keys of a folder are
// contiguous in key order).
type builder struct {
	p       catalog.Publication
	digest  hash.Hash
	items   []Item
	cur     *Item
	files   int // of all items
	skipped int // items and files past the bounds
}

// Index regenerates p's documents if the objects under its prefix
// changed since they were generated (their digest: every listed key,
// size and ETag), and reports whether it did.
func (x *Indexer) Index(ctx context.Context, p catalog.Publication) (bool, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00", p.Bucket, p.Name, p.Prefix)
	b := &builder{p: p, digest: h}
	// A library of a deleted bucket, or of one made again by another
	// tenant, is empty.
	bk, err := x.cat.GetBucket(ctx, p.Bucket)
	if err != nil && !errors.Is(err, catalog.ErrNoSuchBucket) {
		return false, fmt.Errorf("vcsp: bucket %s: %w", p.Bucket, err)
	}
	owned := err == nil && bk.Tenant == p.Tenant
	start := ""
	for first := true; owned; first = false {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if !first && x.pause > 0 {
			select {
			case <-ctx.Done():
				return false, ctx.Err()
			case <-time.After(x.pause):
			}
		}
		objs, err := x.cat.ListObjects(ctx, p.Bucket, catalog.ListQuery{Prefix: p.Prefix, Start: start, Limit: listPage})
		if errors.Is(err, catalog.ErrNoSuchBucket) {
			objs, err = nil, nil
		}
		if err != nil {
			return false, fmt.Errorf("vcsp: list %s: %w", p.Bucket, err)
		}
		for _, o := range objs {
			b.add(o)
		}
		// Past the bounds the rest of the bucket can add nothing.
		if len(objs) < listPage || b.files >= MaxLibraryFiles || len(b.items) >= MaxItems {
			break
		}
		start = objs[len(objs)-1].Key
	}
	b.flush()
	digest := hex.EncodeToString(h.Sum(nil))
	if digest == p.Digest {
		return false, nil
	}
	if b.skipped > 0 {
		slog.Warn("content library too large: items or files left out", "tenant", p.Tenant, "library", p.Name,
			"left_out_at_least", b.skipped, "max_items", MaxItems, "max_files", MaxFiles)
	}
	docs, err := x.documents(ctx, p, b.items)
	if err != nil {
		return false, err
	}
	err = x.cat.SetPublicationIndex(ctx, p.Tenant, p.Name, p.Digest, p.Version+1, digest, x.now(), docs)
	if errors.Is(err, catalog.ErrPreconditionFailed) || errors.Is(err, catalog.ErrNoSuchPublication) {
		return false, nil // republished or unpublished meanwhile: the next run sees to it
	}
	if err != nil {
		return false, fmt.Errorf("vcsp: store index: %w", err)
	}
	return true, nil
}

// add takes the next key of the walk.
func (b *builder) add(o catalog.Object) {
	rel := strings.TrimPrefix(o.Key, b.p.Prefix)
	folder, name, ok := strings.Cut(rel, "/")
	if !ok || !validSegment(folder) || !validSegment(name) || name == itemDoc {
		return
	}
	// An SSE-C object cannot be served (only its writer has the key), so
	// it is listed in no item.
	if e := o.Meta.Encryption; e != nil && e.Kind == objects.KindSSEC {
		return
	}
	if b.cur == nil || b.cur.Name != folder {
		b.flush()
		if len(b.items) >= MaxItems {
			b.skipped++
			return
		}
		b.cur = &Item{Name: folder}
	}
	if len(b.cur.Files) >= MaxFiles || b.files >= MaxLibraryFiles {
		b.skipped++
		return
	}
	etag := strings.Trim(o.ETag, `"`)
	fmt.Fprintf(b.digest, "%q\x00%d\x00%s\x00", o.Key, o.Size, etag)
	b.files++
	b.cur.Files = append(b.cur.Files, File{Name: name, Size: o.Size, Etag: etag, Hrefs: []string{href(folder, name)}})
}

// flush ends the current item.
func (b *builder) flush() {
	if b.cur != nil && len(b.cur.Files) > 0 {
		b.items = append(b.items, *b.cur)
	}
	b.cur = nil
}

// documents renders the library: an item whose files are as the
// previous index had them keeps its version and creation time, a changed
// one counts a version more, a new one starts at 1.
func (x *Indexer) documents(ctx context.Context, p catalog.Publication, items []Item) ([]catalog.PublicationDoc, error) {
	now := stamp(x.now())
	// The previous index, read once: its items by folder.
	prev := map[string]Item{}
	if body, err := x.cat.PublicationDoc(ctx, p.Tenant, p.Name, itemsDoc); err == nil {
		var old Items
		if json.Unmarshal(body, &old) == nil {
			for _, it := range old.Items {
				prev[it.Name] = it
			}
		}
	} else if !errors.Is(err, catalog.ErrNoSuchObject) {
		return nil, fmt.Errorf("vcsp: read %s: %w", itemsDoc, err)
	}
	docs := make([]catalog.PublicationDoc, 0, len(items)+2)
	for i := range items {
		it := &items[i]
		folder := it.Name
		it.ID = itemID(p.LibraryID, folder)
		it.Type = itemType(it.Files)
		it.SelfHref = href(folder, itemDoc)
		it.Metadata, it.Properties, it.ContentVersion = []Metadata{}, map[string]string{}, "1"
		it.Version, it.Created = "1", now
		if old, ok := prev[folder]; ok && old.ID == it.ID {
			it.Created = old.Created
			it.Version = old.Version
			if !sameFiles(old.Files, it.Files) {
				v, _ := strconv.ParseInt(old.Version, 10, 64)
				it.Version = strconv.FormatInt(v+1, 10)
			}
		}
		if it.Type == TypeOVF {
			it.Metadata = []Metadata{typeMetadata(it.ID, it.Version, p.LibraryID)}
		}
		body, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		docs = append(docs, catalog.PublicationDoc{Path: folder + "/" + itemDoc, Body: body})
	}
	body, err := json.Marshal(Items{Items: items})
	if err != nil {
		return nil, err
	}
	docs = append(docs, catalog.PublicationDoc{Path: itemsDoc, Body: body})
	lib := Library{VcspVersion: vcspVersion, Version: strconv.FormatInt(p.Version+1, 10), ContentVersion: "1",
		Name: p.Name, ID: p.LibraryID, Created: stamp(p.Created),
		Capabilities: Capabilities{TransferIn: []string{"httpGet"}, TransferOut: []string{"httpGet"}}, ItemsHref: itemsDoc}
	if body, err = json.Marshal(lib); err != nil {
		return nil, err
	}
	return append(docs, catalog.PublicationDoc{Path: libDoc, Body: body}), nil
}

func sameFiles(a, b []File) bool {
	return slices.EqualFunc(a, b, func(x, y File) bool { return x.Name == y.Name && x.Size == y.Size && x.Etag == y.Etag })
}
