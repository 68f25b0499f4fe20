// Package osis serves the Object Storage Interoperability Service (OSIS)
// REST API that VMware Cloud Director's Object Storage Extension (OSE)
// drives a storage platform with, under Prefix on the node's S3 listener.
//
// OSIS adds no model of its own: its tenants are Ostium's tenants, its
// users Ostium's users and its S3 credentials their access keys, and
// every call goes through admin.Service as the provider's root, so that
// it is authorized and audited as an admin API call is.
//
// Ids: an OSIS tenant_id is the Ostium tenant's name, and a tenant made
// through OSIS is named after its Cloud Director id (a UUID fits a
// tenant name), so cd_tenant_id lookups are name lookups. Likewise an
// OSIS user_id is the Ostium user's name, named after its cd_user_id.
package osis

import (
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Prefix is where the API lives on the node's listener: OSE's base URL
// is https://NODE/osis.
const Prefix = "/osis"

// APIVersion is the OSIS version served.
const APIVersion = "1.0"

// maxBody bounds a request body: OSIS calls carry a few fields.
const maxBody = 64 << 10

// Options are what the API tells of the node.
type Options struct {
	Version    string // the node's version ("" = "dev")
	Region     string // "" = us-east-1
	ConsoleURL string // the console's address; "" = getConsole not served
}

// Handler serves the API.
type Handler struct {
	svc  *admin.Service
	keys *iam.Keyring
	opt  Options
	mux  *http.ServeMux
	// fails counts failed basic authentications by client address.
	fails *limiter
	// cold bounds the authentications that read the catalog for a key
	// not cached, as the admin API does.
	cold chan struct{}
}

const maxColdLookups = 4

var _ http.Handler = (*Handler)(nil)

// NewHandler returns the handler for paths under Prefix.
func NewHandler(svc *admin.Service, keys *iam.Keyring, opt Options) *Handler {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Region == "" {
		opt.Region = "us-east-1"
	}
	h := &Handler{svc: svc, keys: keys, opt: opt, mux: http.NewServeMux(),
		fails: newLimiter(maxFailures, failWindow, maxTracked), cold: make(chan struct{}, maxColdLookups)}
	for _, op := range h.operations() {
		h.mux.HandleFunc(op.method+" "+Prefix+op.path, func(w http.ResponseWriter, r *http.Request) {
			h.serve(w, r, op)
		})
	}
	h.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		closeUnread(w, r)
		writeErr(w, r, errNotFound("No OSIS operation at %s %s", r.Method, r.URL.Path))
	})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			slog.Error("panic serving OSIS request", "path", r.URL.Path, "panic", v)
			writeErr(w, r, errors.New("panic"))
		}
	}()
	h.mux.ServeHTTP(w, r)
}

// operation is one OSIS call, by the spec's operationId.
type operation struct {
	method, path, id string
	anonymous        bool
	serve            func(r *http.Request, id *iam.Identity) (any, int, error)
}

// heads are the HEAD operations, served by their GET's handler (a GET
// pattern of net/http takes HEAD too) and recorded by their own name.
var heads = map[string]string{"getTenant": "headTenant", "getUserWithId": "headUser"}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, op operation) {
	if r.Method == http.MethodHead {
		op.id = heads[op.id]
		if op.id == "" {
			closeUnread(w, r)
			writeErr(w, r, errNotFound("No OSIS operation at %s %s", r.Method, r.URL.Path))
			return
		}
	}
	var id *iam.Identity
	var err error
	if !op.anonymous {
		id, err = h.authenticate(r)
	}
	var body any
	status := 0
	if err == nil {
		body, status, err = op.serve(r, id)
	} else {
		closeUnread(w, r)
	}
	if err != nil {
		status = writeErr(w, r, err)
	} else {
		writeJSON(w, r, status, body)
	}
	if !op.anonymous {
		h.record(r, op, id, status, err)
	}
}

func (h *Handler) record(r *http.Request, op operation, id *iam.Identity, status int, err error) {
	e := catalog.AuditEntry{Action: "osis:" + op.id, Target: strings.TrimPrefix(r.URL.Path, Prefix+"/"), Status: status}
	var oe *Error
	switch {
	case errors.As(err, &oe):
		e.Outcome = oe.Code
	case err != nil:
		e.Outcome = "InternalError"
	}
	if id == nil {
		if u, _, ok := r.BasicAuth(); ok && len(u) <= 128 {
			e.AccessKey = u
		}
	}
	h.svc.Record(r.Context(), id, e)
}

// authenticate checks HTTP basic auth: the user is one of the provider's
// root access keys, the password its secret. Nothing else is let in: a
// tenant's keys, even its admins', administer only their own tenant,
// and OSIS administers them all. Failures count against the client's
// address, so that the endpoint cannot be used to guess secrets.
func (h *Handler) authenticate(r *http.Request) (*iam.Identity, error) {
	addr := clientAddr(r)
	if !h.fails.allowed(addr, time.Now()) {
		return nil, errThrottled
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		return nil, errUnauthorized
	}
	fail := func() (*iam.Identity, error) {
		h.fails.failed(addr, time.Now())
		return nil, errUnauthorized
	}
	if user == "" || len(user) > 128 || len(pass) > 256 {
		return fail()
	}
	if !h.keys.Cached(user) {
		select {
		case h.cold <- struct{}{}:
			defer func() { <-h.cold }()
		default:
			return nil, errSlowDown
		}
	}
	secret, id, err := h.keys.Lookup(r.Context(), user)
	switch {
	case errors.Is(err, iam.ErrUnknownKey):
		return fail()
	case err != nil:
		return nil, fmt.Errorf("osis: look up key: %w", err)
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(pass)) != 1 {
		return fail()
	}
	if !id.Root {
		return nil, errForbidden
	}
	return id, nil
}

// clientAddr is the address failures are counted on: the client as the
// S3 endpoint sees it (trusted balancers' X-Forwarded-For included).
func clientAddr(r *http.Request) string {
	if o := iam.OriginOf(r.Context()); o.SourceIP != "" {
		return o.SourceIP
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// decode reads a JSON body of at most maxBody bytes into v.
func decode(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	switch {
	case err != nil:
		return errBadRequest("The request body could not be read")
	case len(b) > maxBody:
		return &Error{Status: http.StatusRequestEntityTooLarge, Code: "E_BAD_REQUEST", Message: "The request body is over 64 KiB"}
	case len(b) == 0:
		return errBadRequest("The request needs a JSON body")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errBadRequest("The request body is not valid JSON: %v", err)
	}
	return nil
}

// closeUnread closes the connection after answering a request whose
// body is left unread, so that a client cannot hold it with a body
// declared and never sent.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	if status == http.StatusNoContent || v == nil {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	json.NewEncoder(w).Encode(v)
}

// writeErr writes err as the spec's Error object and returns the status.
func writeErr(w http.ResponseWriter, r *http.Request, err error) int {
	e := toError(err)
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="osis", charset="UTF-8"`)
	}
	if e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "60")
	}
	writeJSON(w, r, e.Status, e)
	return e.Status
}

//go:embed openapi.yaml
var openAPI []byte

// OpenAPI is the API's OpenAPI document.
func OpenAPI() []byte { return openAPI }
