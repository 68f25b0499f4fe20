package vcsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3"
)

// Prefix is where libraries are served on the node's listener:
// Prefix<tenant>/<name>/lib.json, and under it every document and file
// lib.json links.
const Prefix = "/catalogs/"

// URLPath is a library's lib.json path on the node.
func URLPath(tenant, name string) string { return Prefix + tenant + "/" + name + "/" + libDoc }

// Reader opens a published object (*objects.Service).
type Reader interface {
	ReadPublished(ctx context.Context, tenant, bucket, key string, rng *objects.ByteRange, cond objects.Conditions, head bool) (*objects.Reader, error)
}

// Frontend is the S3 endpoint whose request slots and timeouts the
// libraries share (*s3.Server): subscribers take the anonymous budget.
type Frontend interface {
	Acquire(id *iam.Identity) (release func(), err error)
	Timed(w http.ResponseWriter, r *http.Request, h http.Handler)
}

// Store is what the handler reads of the catalog.
type Store interface {
	catalog.Publications
	GetTenant(ctx context.Context, name string) (catalog.Tenant, error)
}

// Handler serves published libraries to subscribers: the documents the
// indexer generated, and the files of the library's items streamed from
// the bucket with ranges. Nothing else of the bucket is reachable: a
// path is a document, or an item's folder and a file directly in it,
// under the library's prefix.
type Handler struct {
	cat   Store
	objs  Reader
	front Frontend
	g     *guard
}

// NewHandler returns the handler.
func NewHandler(cat Store, objs Reader, front Frontend) *Handler {
	return &Handler{cat: cat, objs: objs, front: front, g: newGuard()}
}

var errBusy = errors.New("vcsp: busy")

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close") // no body is read
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		fail(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "A content library is read with GET or HEAD.")
		return
	}
	release, err := h.front.Acquire(nil)
	if err != nil {
		status, code, msg := s3.ErrorOf(err)
		w.Header().Set("Retry-After", "1")
		fail(w, status, code, msg)
		return
	}
	defer release()
	h.front.Timed(w, r, http.HandlerFunc(h.serve))
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, Prefix), "/", 3)
	if len(parts) < 3 {
		notFound(w)
		return
	}
	tenant, name, rest := parts[0], parts[1], parts[2]
	p, err := h.cat.GetPublication(ctx, tenant, name)
	if errors.Is(err, catalog.ErrNoSuchPublication) {
		notFound(w)
		return
	}
	if err != nil {
		internal(w, err)
		return
	}
	if t, err := h.cat.GetTenant(ctx, tenant); err != nil || t.Status != catalog.TenantActive {
		if err != nil && !errors.Is(err, catalog.ErrNoSuchTenant) {
			internal(w, err)
			return
		}
		notFound(w) // a suspended or deleted tenant publishes nothing
		return
	}
	if p.PasswordHash != "" && !h.authorized(w, r, p) {
		return
	}
	if rest == libDoc || rest == itemsDoc {
		h.document(w, r, p, rest)
		return
	}
	folder, file, ok := strings.Cut(rest, "/")
	if !ok || !validSegment(folder) || !validSegment(file) {
		notFound(w)
		return
	}
	if file == itemDoc {
		h.document(w, r, p, rest)
		return
	}
	h.file(w, r, p, p.Prefix+rest)
}

// authorized checks basic auth, answering 401 (or 429, 503) when it fails.
func (h *Handler) authorized(w http.ResponseWriter, r *http.Request, p catalog.Publication) bool {
	addr := iam.OriginOf(r.Context()).SourceIP
	if h.g.blocked(addr) {
		w.Header().Set("Retry-After", strconv.Itoa(int(FailureWindow/time.Second)))
		fail(w, http.StatusTooManyRequests, "TooManyRequests", "Too many failed sign-ins from this address; try again later.")
		return false
	}
	user, password, ok := r.BasicAuth()
	if ok {
		good, err := h.g.check(r.Context(), p, user, password)
		if err != nil {
			w.Header().Set("Retry-After", "1")
			fail(w, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
			return false
		}
		if good {
			return true
		}
		h.g.fail(addr)
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="`+strings.ReplaceAll(p.Name, `"`, "")+`", charset="UTF-8"`)
	fail(w, http.StatusUnauthorized, "Unauthorized", "This content library needs its user name and password.")
	return false
}

// document serves one generated document.
func (h *Handler) document(w http.ResponseWriter, r *http.Request, p catalog.Publication, path string) {
	body, err := h.cat.PublicationDoc(r.Context(), p.Tenant, p.Name, path)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		notFound(w) // not indexed yet, or no such item
		return
	}
	if err != nil {
		internal(w, err)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if m := r.Header.Get("If-None-Match"); m != "" && strings.Contains(m, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// file streams one of an item's files from the bucket.
func (h *Handler) file(w http.ResponseWriter, r *http.Request, p catalog.Publication, key string) {
	var cond objects.Conditions
	cond.IfMatch, cond.IfNoneMatch = r.Header.Get("If-Match"), r.Header.Get("If-None-Match")
	cond.IfModifiedSince, _ = http.ParseTime(r.Header.Get("If-Modified-Since"))
	cond.IfUnmodifiedSince, _ = http.ParseTime(r.Header.Get("If-Unmodified-Since"))
	var rng *objects.ByteRange
	if v := r.Header.Get("Range"); v != "" {
		rng = s3.ParseRange(v)
	}
	rd, err := h.objs.ReadPublished(r.Context(), p.Tenant, p.Bucket, key, rng, cond, r.Method == http.MethodHead)
	if rd != nil && rd.Body != nil {
		defer rd.Body.Close()
	}
	if err != nil {
		status, code, msg := s3.ErrorOf(err)
		if errors.Is(err, objects.ErrNoSuchBucket) {
			status, code, msg = http.StatusNotFound, "NoSuchKey", "The specified key does not exist."
		}
		if status == http.StatusNotModified {
			w.WriteHeader(status)
			return
		}
		if status >= 500 {
			slog.Warn("content library file", "tenant", p.Tenant, "library", p.Name, "err", err)
		}
		fail(w, status, code, msg)
		return
	}
	o := rd.Object
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Accept-Ranges", "bytes")
	hd.Set("ETag", o.ETag)
	hd.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	hd.Set("Content-Length", strconv.FormatInt(rd.Length, 10))
	status := http.StatusOK
	if rd.Ranged {
		status = http.StatusPartialContent
		hd.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rd.Start, rd.Start+rd.Length-1, o.Size))
	}
	w.WriteHeader(status)
	if rd.Body != nil {
		if _, err := io.Copy(w, rd.Body); err != nil && r.Context().Err() == nil {
			slog.Debug("content library file cut short", "tenant", p.Tenant, "library", p.Name, "err", err)
		}
	}
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "%s: %s\n", code, msg)
}

func notFound(w http.ResponseWriter) {
	fail(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
}

func internal(w http.ResponseWriter, err error) {
	slog.Error("content library", "err", err)
	w.Header().Set("Retry-After", "1")
	fail(w, http.StatusServiceUnavailable, "ServiceUnavailable", "Please try again.")
}
