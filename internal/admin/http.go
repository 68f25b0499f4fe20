package admin

import (
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// Prefix is where the admin API lives on the node's listener.
const Prefix = "/admin/v1"

//go:embed openapi.yaml
var openAPI []byte

// route is one admin API call: the handler returns the response body and
// status, or an error for the one error writer.
type route struct {
	method, pattern string
	name            string // the action the audit log records
	serve           func(s *Service, r *http.Request, id *iam.Identity) (any, int, error)
}

// routes is the whole API; TestOpenAPIMatchesRoutes holds the document to it.
var routes = []route{
	{"GET", "/tenants", "ListTenants", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListTenants(r.Context(), id))
	}},
	{"POST", "/tenants", "CreateTenant", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Name        string `json:"name"`
			DisplayName string `json:"display_name"`
			Platform    string `json:"platform"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateTenant(r.Context(), id, in.Name, in.DisplayName, in.Platform))
	}},
	{"PUT", "/tenants/{tenant}/platform", "SetTenantPlatform", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct{ Platform string }
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetTenantPlatform(r.Context(), id, r.PathValue("tenant"), in.Platform))
	}},
	{"PUT", "/buckets/{bucket}/platform", "PlaceBucket", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct{ Platform string }
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return nil, http.StatusNoContent, s.PlaceBucket(r.Context(), id, r.PathValue("bucket"), in.Platform)
	}},
	{"GET", "/tenants/{tenant}", "GetTenant", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetTenant(r.Context(), id, r.PathValue("tenant")))
	}},
	{"DELETE", "/tenants/{tenant}", "DeleteTenant", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		purge, _ := strconv.ParseBool(r.URL.Query().Get("purge"))
		return nil, http.StatusNoContent, s.DeleteTenant(r.Context(), id, r.PathValue("tenant"), purge)
	}},
	{"POST", "/tenants/{tenant}/suspend", "SuspendTenant", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetSuspended(r.Context(), id, r.PathValue("tenant"), true))
	}},
	{"POST", "/tenants/{tenant}/resume", "ResumeTenant", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetSuspended(r.Context(), id, r.PathValue("tenant"), false))
	}},
	{"GET", "/tenants/{tenant}/users", "ListUsers", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListUsers(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", "/tenants/{tenant}/users", "CreateUser", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct{ Name, Role, Email string }
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateUser(r.Context(), id, r.PathValue("tenant"), in.Name, in.Role, in.Email))
	}},
	{"GET", "/tenants/{tenant}/users/{user}", "GetUser", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetUser(r.Context(), id, r.PathValue("tenant"), r.PathValue("user")))
	}},
	{"PUT", "/tenants/{tenant}/users/{user}/email", "SetUserEmail", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Email string `json:"email"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetUserEmail(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), in.Email))
	}},
	{"PUT", "/tenants/{tenant}/users/{user}/password", "SetPassword", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Password string `json:"password"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return nil, http.StatusNoContent, s.SetPassword(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), in.Password)
	}},
	{"DELETE", "/tenants/{tenant}/users/{user}", "DeleteUser", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteUser(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"))
	}},
	{"GET", "/tenants/{tenant}/users/{user}/keys", "ListKeys", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListKeys(r.Context(), id, r.PathValue("tenant"), r.PathValue("user")))
	}},
	{"POST", "/tenants/{tenant}/users/{user}/keys", "CreateKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return created(s.CreateKey(r.Context(), id, r.PathValue("tenant"), r.PathValue("user")))
	}},
	{"POST", "/tenants/{tenant}/users/{user}/appcreds", "CreateAppCred", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Buckets        []string `json:"buckets"`
			ReadOnly       bool     `json:"read_only"`
			ExpiresSeconds int64    `json:"expires_seconds"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateAppCredUntil(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), in.Buckets, in.ReadOnly, expiresIn(in.ExpiresSeconds)))
	}},
	{"POST", "/tenants/{tenant}/users/{user}/keys/{key}/rotate", "RotateKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			GraceSeconds int64 `json:"grace_seconds"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.RotateKey(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), r.PathValue("key"), time.Duration(in.GraceSeconds)*time.Second))
	}},
	{"POST", "/tenants/{tenant}/users/{user}/keys/{key}/disable", "DisableKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetKeyStatus(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), r.PathValue("key"), false))
	}},
	{"POST", "/tenants/{tenant}/users/{user}/keys/{key}/enable", "EnableKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetKeyStatus(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), r.PathValue("key"), true))
	}},
	{"DELETE", "/tenants/{tenant}/users/{user}/keys/{key}", "DeleteKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteKey(r.Context(), id, r.PathValue("tenant"), r.PathValue("user"), r.PathValue("key"))
	}},
	{"GET", "/tenants/{tenant}/quotas", "ListQuotas", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListQuotas(r.Context(), id, r.PathValue("tenant")))
	}},
	{"GET", "/tenants/{tenant}/usage", "GetUsage", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		q := r.URL.Query()
		from, err := parseTime("from", q.Get("from"))
		if err != nil {
			return nil, 0, err
		}
		to, err := parseTime("to", q.Get("to"))
		if err != nil {
			return nil, 0, err
		}
		u, err := s.Usage(r.Context(), id, r.PathValue("tenant"), from, to)
		if q.Get("format") == "csv" {
			return usageCSV(u), http.StatusOK, err
		}
		return u, http.StatusOK, err
	}},
	{"PUT", "/tenants/{tenant}/quotas", "SetQuota", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in Quota
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		in.Tenant = r.PathValue("tenant")
		return ok(s.SetQuota(r.Context(), id, in))
	}},
	{"GET", "/audit", "ListAudit", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		q, err := auditQuery(r)
		if err != nil {
			return nil, 0, err
		}
		if r.URL.Query().Get("format") == "jsonl" {
			return ok(s.ExportAudit(r.Context(), id, q))
		}
		return ok(s.Audit(r.Context(), id, q))
	}},
	{"GET", "/root-keys", "ListRootKeys", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListRootKeys(r.Context(), id))
	}},
	{"POST", "/root-keys", "CreateRootKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return created(s.CreateRootKey(r.Context(), id))
	}},
	{"POST", "/root-keys/{key}/rotate", "RotateRootKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			GraceSeconds int64 `json:"grace_seconds"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.RotateRootKey(r.Context(), id, r.PathValue("key"), time.Duration(in.GraceSeconds)*time.Second))
	}},
	{"DELETE", "/root-keys/{key}", "RevokeRootKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.RevokeRootKey(r.Context(), id, r.PathValue("key")))
	}},
	{"GET", "/notify-targets", "ListNotifyTargets", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListNotifyTargets(r.Context(), id))
	}},
	{"PUT", "/notify-targets", "PutNotifyTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in NotifyTarget
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.PutNotifyTarget(r.Context(), id, in))
	}},
	{"DELETE", "/notify-targets/{arn}", "DeleteNotifyTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(struct{}{}, s.DeleteNotifyTarget(r.Context(), id, r.PathValue("arn")))
	}},
}

func ok[T any](v T, err error) (any, int, error)      { return v, http.StatusOK, err }
func created[T any](v T, err error) (any, int, error) { return v, http.StatusCreated, err }

// maxBody bounds a request body: admin calls carry a few fields.
const maxBody = 64 << 10

// decode reads a JSON body to its end, which is also what lets the
// signature's payload hash be checked.
func decode(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	var se *sigv4.Error
	switch {
	case errors.As(err, &se):
		return &Error{Status: se.Status, Code: se.Code, Message: se.Message}
	case err != nil:
		return newErr(http.StatusBadRequest, "IncompleteBody", "The request body could not be read")
	case len(b) > maxBody:
		return newErr(http.StatusRequestEntityTooLarge, "EntityTooLarge", "The request body is over 64 KiB")
	case len(b) == 0:
		return nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return newErr(http.StatusBadRequest, "MalformedJSON", "The request body is not valid JSON: %v", err)
	}
	return nil
}

// Handler serves the admin API: SigV4 authentication by the keyring, then
// the routes. The OpenAPI document is served to anyone.
type Handler struct {
	svc  *Service
	keys *iam.Keyring
	mux  *http.ServeMux
	// cold bounds the key lookups that read the catalog (see lookup).
	cold chan struct{}
}

// maxColdLookups is how many admin requests at once may have their
// access key read from the catalog: a handful, as admin calls are few.
const maxColdLookups = 4

var errSlowDown = newErr(http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")

// NewHandler returns the admin API's handler for paths under Prefix.
func NewHandler(svc *Service, keys *iam.Keyring) *Handler {
	h := &Handler{svc: svc, keys: keys, mux: http.NewServeMux(), cold: make(chan struct{}, maxColdLookups)}
	for _, rt := range routes {
		h.mux.HandleFunc(rt.method+" "+Prefix+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			id, err := h.authenticate(r)
			var body any
			status := 0
			if err == nil {
				body, status, err = rt.serve(svc, r, id)
			} else {
				closeUnread(w, r)
			}
			if err != nil {
				status = writeErr(w, err)
			} else {
				writeJSON(w, status, body)
			}
			h.record(r, rt, id, status, err)
		})
	}
	h.mux.HandleFunc("GET "+Prefix+"/openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		closeUnread(w, r)
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(openAPI)
	})
	h.mux.HandleFunc("GET "+debugPrefix+"{profile}", h.debugProfile)
	h.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		closeUnread(w, r)
		writeErr(w, newErr(http.StatusNotFound, "NoSuchRoute", "No admin API call at %s %s", r.Method, r.URL.Path))
	})
	return h
}

// closeUnread closes the connection after the answer to a request whose
// body is left unread (refused, or served without one): net/http would
// otherwise wait for a body declared and never sent before it answered,
// so a client could hold the connection for nothing.
func closeUnread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			slog.Error("panic serving admin request", "path", r.URL.Path, "panic", v)
			writeErr(w, errors.New("panic"))
		}
	}()
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) authenticate(r *http.Request) (*iam.Identity, error) {
	a, err := sigv4.Verify(r.Context(), r, h.lookup, sigv4.Options{})
	var se *sigv4.Error
	switch {
	case errors.Is(err, sigv4.ErrNoAuth):
		return nil, errDenied
	case errors.As(err, &se):
		return nil, &Error{Status: se.Status, Code: se.Code, Message: se.Message}
	case err != nil:
		return nil, err
	}
	_, id, err := h.keys.Lookup(r.Context(), a.AccessKey)
	if err != nil {
		return nil, err
	}
	r.Body = a.Body
	return id, nil
}

// lookup gives sigv4 the secret of an access key. One not in the cache
// costs catalog reads before the caller is known; those are bounded, so
// that a flood of made-up keys gets SlowDown rather than the catalog's
// connections (the S3 endpoint bounds its own the same way).
func (h *Handler) lookup(ctx context.Context, accessKey string) (string, error) {
	if !h.keys.Cached(accessKey) {
		select {
		case h.cold <- struct{}{}:
			defer func() { <-h.cold }()
		default:
			return "", errSlowDown
		}
	}
	secret, _, err := h.keys.Lookup(ctx, accessKey)
	if errors.Is(err, iam.ErrUnknownKey) {
		return "", sigv4.ErrUnknownKey
	}
	return secret, err
}

// record puts a call in the audit log, refused ones too: who (the key
// it claimed, when it was not let in), what, from where, and the outcome.
func (h *Handler) record(r *http.Request, rt route, id *iam.Identity, status int, err error) {
	e := catalog.AuditEntry{Action: "admin:" + rt.name, Target: strings.TrimPrefix(r.URL.Path, Prefix+"/"), Status: status}
	var ae *Error
	switch {
	case errors.As(err, &ae):
		e.Outcome = ae.Code
	case err != nil:
		e.Outcome = "InternalError"
	}
	if id == nil {
		e.AccessKey = audit.ClaimedKey(r)
	}
	h.svc.audit.Record(r.Context(), id, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	if stream, ok := v.(streamBody); ok {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		rc := http.NewResponseController(w)
		// Headers are gone: an error now can only cut the stream short.
		if err := stream(w, func() { rc.Flush() }); err != nil {
			slog.Error("admin API: audit export cut short", "err", err)
		}
		return
	}
	if rows, ok := v.(csvBody); ok {
		w.Header().Set("Content-Type", "text/csv")
		w.WriteHeader(status)
		csv.NewWriter(w).WriteAll(rows)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// writeErr writes err as the API's error and returns the status sent.
func writeErr(w http.ResponseWriter, err error) int {
	var e *Error
	switch {
	case errors.As(err, &e):
	case catalog.Unavailable(err): // restarting, failing over: retry
		e = newErr(http.StatusServiceUnavailable, "ServiceUnavailable", "The catalog is unavailable. Please try again.")
		w.Header().Set("Retry-After", "2")
	default:
		slog.Error("admin API internal error", "err", err)
		e = newErr(http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
	}
	writeJSON(w, e.Status, map[string]*Error{"error": e})
	return e.Status
}

// Routes lists the API's calls as "METHOD /path", for tests and docs.
func Routes() []string {
	out := make([]string, len(routes))
	for i, rt := range routes {
		out[i] = rt.method + " " + rt.pattern
	}
	return out
}

// expiresIn is the time n seconds from now; zero (never) for n <= 0.
func expiresIn(n int64) time.Time {
	if n <= 0 {
		return time.Time{}
	}
	return time.Now().Add(time.Duration(n) * time.Second)
}
