// Package console is the web console: its pages (embedded, see
// assets.go) under /console/ and its JSON API under /console/api/. The
// API is a thin client of the same services as the S3 and admin APIs
// (objects.Service, admin.Service), called with the identity of the
// signed-in session, so it can never allow what they refuse. See
// docs/console.md for the API and the design of sessions.
package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3"
)

// Prefix is where the console lives on the node's listener; API its
// JSON API.
const (
	Prefix = "/console/"
	API    = "/console/api/"
)

// webRoot is the console's static files, rooted at web/: assets.go sets
// it in an init (webRoot = Static()). Until then /console/ answers a
// placeholder page.
var webRoot fs.FS

// Defaults of the sessions and of the sign-in limits.
const (
	DefaultIdleExpiry      = 30 * time.Minute
	DefaultMaxAge          = 12 * time.Hour
	DefaultFailureWindow   = 15 * time.Minute
	DefaultMaxUserFailures = 5
	DefaultMaxAddrFailures = 20
)

// Options are what the console needs of its node.
type Options struct {
	Catalog catalog.Store // must also be a catalog.Console
	Objects *objects.Service
	Admin   *admin.Service
	Keys    *iam.Keyring
	// S3 gives the console the S3 endpoint's timeouts, client origin and
	// errors.
	S3    *s3.Server
	Audit *audit.Log // nil: none kept
	// Meter bills what calls on a bucket move, as S3 bills them; nil:
	// not billed.
	Meter Meter
	// Health is the provider's view of the node (GET /health); nil: none.
	Health func(ctx context.Context) any
	// S3Endpoint is the S3 endpoint's scheme and host as the browser
	// that sent r reaches it, for share links: the console has an
	// origin of its own (nil: r's own, for tests of the handler alone).
	S3Endpoint func(r *http.Request) (scheme, host string)
	// IdleExpiry and MaxAge end sessions (0 = the defaults); Now is the
	// clock (nil = time.Now), for tests.
	IdleExpiry, MaxAge time.Duration
	Now                func() time.Time
	// MaxUserFailures, MaxAddrFailures and MaxDeviceFailures are the
	// sign-in attempts a user, a client address and a device cookie make
	// freely; past them each waits a delay that doubles up to
	// FailureWindow, and a key is forgotten a FailureWindow after its
	// delay ended. DeviceMaxAge is how long a device cookie lasts (0 =
	// the defaults; see signin.go).
	FailureWindow                                       time.Duration
	MaxUserFailures, MaxAddrFailures, MaxDeviceFailures int
	DeviceMaxAge                                        time.Duration
	// Directory signs tenants' directory users in (method "directory");
	// nil: no such sign-in.
	Directory DirectorySignIn
	// IdPs signs people in through OpenID Connect providers (method
	// "oidc", see oidc.go); nil: no such sign-in.
	IdPs IdPs
}

// Handler serves /console/.
type Handler struct {
	o       Options
	con     catalog.Console
	mux     *http.ServeMux
	methods map[string]Method
	// strangers and devices are the lanes of sign-in attempts without
	// and with a device cookie of their subject (signin.go).
	strangers, devices *lane
}

// New returns the console's handler.
func New(o Options) (*Handler, error) {
	con, ok := o.Catalog.(catalog.Console)
	if !ok {
		return nil, fmt.Errorf("console: catalog %T keeps no sessions", o.Catalog)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.IdleExpiry = or(o.IdleExpiry, DefaultIdleExpiry)
	o.MaxAge = or(o.MaxAge, DefaultMaxAge)
	o.FailureWindow = or(o.FailureWindow, DefaultFailureWindow)
	o.MaxUserFailures = or(o.MaxUserFailures, DefaultMaxUserFailures)
	o.MaxAddrFailures = or(o.MaxAddrFailures, DefaultMaxAddrFailures)
	o.MaxDeviceFailures = or(o.MaxDeviceFailures, DefaultMaxDeviceFailures)
	o.DeviceMaxAge = or(o.DeviceMaxAge, DefaultDeviceMaxAge)
	h := &Handler{o: o, con: con, mux: http.NewServeMux(),
		strangers: newLane(laneInFlight, laneHashes, laneWait), devices: newLane(laneInFlight, laneHashes, laneWait)}
	h.methods = map[string]Method{}
	for _, m := range []Method{passwordMethod{h}, accessKeyMethod{h}} {
		h.methods[m.Name()] = m
	}
	if o.Directory != nil {
		h.methods["directory"] = directoryMethod{h, o.Directory}
	}
	for _, rt := range routes {
		h.mux.HandleFunc(rt.method+" "+strings.TrimSuffix(API, "/")+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			h.serve(w, r, rt)
		})
	}
	h.mux.HandleFunc(API, func(w http.ResponseWriter, r *http.Request) {
		closeUnread(w, r)
		writeErr(w, apiError(http.StatusNotFound, "NoSuchRoute", "No console API call at %s %s", r.Method, r.URL.Path))
	})
	h.mux.HandleFunc(Prefix, h.static)
	return h, nil
}

func or[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// No answer of the console, API or asset, is ever sniffed into
	// something that runs.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	h.o.S3.Timed(w, r, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				slog.Error("panic serving console request", "path", r.URL.Path, "panic", v)
				writeErr(w, errors.New("panic"))
			}
		}()
		h.mux.ServeHTTP(w, r)
	}))
}

// Error is a console API error: an HTTP status, a code and a message.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// BucketCreated marks the failure of a step of POST /buckets after
	// which the bucket could not be deleted again (undoCreate).
	BucketCreated bool `json:"bucket_created,omitempty"`
	retryAfter    int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func apiError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

var (
	errNotSignedIn = apiError(http.StatusUnauthorized, "NotSignedIn", "Sign in first; the session is missing or has expired")
	errCSRF        = apiError(http.StatusForbidden, "InvalidCSRFToken", "The request lacks the session's X-CSRF-Token or comes from another origin")
	errMustChange  = apiError(http.StatusForbidden, "PasswordChangeRequired", "Change your password first")
	errDenied      = apiError(http.StatusForbidden, "AccessDenied", "Access Denied")
)

// writeErr writes err as the API's error, the object service's with the
// S3 endpoint's status and code, and returns the status sent.
func writeErr(w http.ResponseWriter, err error) int {
	e := errorOf(err)
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(e.retryAfter))
	}
	if e.Status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "2")
	}
	writeJSON(w, e.Status, map[string]*Error{"error": e})
	return e.Status
}

// errorOf is err as the API answers it: the console's own, the admin
// service's, else the object service's with S3's status and code.
func errorOf(err error) *Error {
	var e *Error
	var ae *admin.Error
	switch {
	case errors.As(err, &e):
	case errors.As(err, &ae):
		e = &Error{Status: ae.Status, Code: ae.Code, Message: ae.Message}
	default:
		status, code, msg := s3.ErrorOf(err)
		if status == http.StatusInternalServerError {
			slog.Error("console API internal error", "err", err)
		}
		e = &Error{Status: status, Code: code, Message: msg}
	}
	return e
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if status == http.StatusNoContent || status == http.StatusNotModified {
		w.WriteHeader(status)
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// maxJSON bounds a JSON request body: a policy is at most 20 KB, a
// lifecycle configuration or a batch delete of 1000 keys a few hundred.
const maxJSON = 1 << 20

// decode reads a JSON body; an empty one leaves v as it is.
func decode(r *http.Request, v any) error { return decodeAtMost(r, v, maxJSON) }

// decodeAtMost is decode of a body of at most limit bytes.
func decodeAtMost(r *http.Request, v any, limit int64) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	switch {
	case err != nil:
		return err // a timeout maps to RequestTimeout
	case int64(len(b)) > limit:
		return apiError(http.StatusRequestEntityTooLarge, "EntityTooLarge", "The request body is over %d bytes", limit)
	case len(b) == 0:
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return apiError(http.StatusBadRequest, "MalformedJSON", "The request body is not valid JSON: %v", err)
	}
	return nil
}

// closeUnread closes the connection after answering a request whose body
// is left unread, as the admin API does.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

// PageCSP is the policy of every page and asset: no script or style but
// the console's own files, from its own origin (a listener of its own,
// never S3's), never inline, never eval'd; no framing.
const PageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; object-src 'none'; " +
	"frame-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// pageHeaders are sent with every page and asset: the policy above, no
// framing, no sniffing.
func pageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

const placeholder = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ostium console</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Ostium console</h1>
<p>The console's pages are not in this build. Its API is at <code>/console/api/</code>; see docs/console.md.</p>
</main></body></html>
`

// static serves the console's files; a path with no file of its own
// (a page of the single-page application) gets index.html.
func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	closeUnread(w, r)
	pageHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if webRoot == nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		io.WriteString(w, placeholder)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, Prefix)), "/")
	data, err := fs.ReadFile(webRoot, name)
	if name == "" || err != nil {
		name = "index.html"
		if data, err = fs.ReadFile(webRoot, name); err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
	}
	sum := sha256.Sum256(data)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	if r.Method == http.MethodHead {
		return
	}
	w.Write(data)
}
