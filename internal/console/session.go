package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// CookieName is the session cookie's name over plain HTTP; over HTTPS
// it is SecureCookieName.
const CookieName = "ostium_session"

// SecureCookieName is the session cookie's name over HTTPS. A browser
// takes a "__Host-" cookie only when it is Secure, for Path=/ and with
// no Domain, so no sibling host name (a virtual-hosted bucket's) can
// set one for the console's host and fix a victim's session.
const SecureCookieName = "__Host-" + CookieName

// cookieName is the session cookie's name for r.
func cookieName(r *http.Request) string {
	if iam.OriginOf(r.Context()).Secure {
		return SecureCookieName
	}
	return CookieName
}

// Subject is whom a sign-in method found: a tenant's user (Tenant, User
// and its canonical id UserID), or an access key. It is all a session
// keeps of the sign-in: the identity is built again from it on every
// call, as the S3 endpoint builds it from a request's key.
type Subject struct {
	Method               string
	Tenant, User, UserID string
	AccessKey            string
	// MustChange: the user's password was set by someone else.
	MustChange bool
}

// Method is a way to sign in. OIDC or LDAP add one (mapping their
// claims to a tenant's user) and change nothing else: pages only see
// the session.
type Method interface {
	Name() string
	// Claimant names whom the credentials claim to be, before they are
	// checked, for the count of failed sign-ins ("" = none claimed).
	Claimant(in SignIn) string
	// SignIn checks the credentials: errInvalidCredentials when they are
	// wrong, whatever is wrong with them.
	SignIn(ctx context.Context, in SignIn) (Subject, error)
}

// SignIn is the body of POST /session.
type SignIn struct {
	Method    string `json:"method"`
	Tenant    string `json:"tenant"`
	User      string `json:"user"`
	Password  string `json:"password"`
	AccessKey string `json:"access_key"`
	SecretKey string `json:"secret_key"`
	// action is what the audit log names a refused attempt
	// ("" = console:SignIn).
	action string
}

func (in SignIn) auditAction() string {
	if in.action == "" {
		return "console:SignIn"
	}
	return in.action
}

var errInvalidCredentials = apiError(http.StatusUnauthorized, "InvalidCredentials", "The credentials are not valid")

type passwordMethod struct{ h *Handler }

func (passwordMethod) Name() string { return "password" }

func (passwordMethod) Claimant(in SignIn) string { return admin.SessionSubject(in.Tenant, in.User) }

func (m passwordMethod) SignIn(ctx context.Context, in SignIn) (Subject, error) {
	// An unknown user costs a hash as a known one does (CheckPassword
	// of an empty hash), so the time of the answer tells nothing.
	u, uerr := m.h.o.Catalog.GetUser(ctx, in.Tenant, in.User)
	var p catalog.Password
	if uerr == nil {
		var err error
		if p, err = m.h.con.GetPassword(ctx, in.Tenant, in.User); err != nil && !errors.Is(err, catalog.ErrNoSuchUser) {
			return Subject{}, err
		}
	} else if !errors.Is(uerr, catalog.ErrNoSuchUser) {
		return Subject{}, uerr
	}
	if !iam.CheckPassword(p.Hash, in.Password) || uerr != nil || u.Disabled {
		return Subject{}, errInvalidCredentials
	}
	return Subject{Method: "password", Tenant: u.Tenant, User: u.Name, UserID: u.CanonicalID, MustChange: p.MustChange}, nil
}

type accessKeyMethod struct{ h *Handler }

func (accessKeyMethod) Name() string { return "access_key" }

func (accessKeyMethod) Claimant(in SignIn) string { return "key:" + in.AccessKey }

func (m accessKeyMethod) SignIn(ctx context.Context, in SignIn) (Subject, error) {
	secret, id, err := m.h.o.Keys.Lookup(ctx, in.AccessKey)
	if errors.Is(err, iam.ErrUnknownKey) || err == nil && subtle.ConstantTimeCompare([]byte(secret), []byte(in.SecretKey)) != 1 {
		return Subject{}, errInvalidCredentials
	}
	if err != nil {
		return Subject{}, err
	}
	return Subject{Method: "access_key", Tenant: id.Tenant, User: id.User, AccessKey: in.AccessKey}, nil
}

// session is a signed-in request's session and identity.
type session struct {
	catalog.Session
	id *iam.Identity
}

func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("console: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func subjectOf(s Subject) string {
	if s.AccessKey != "" {
		return "key:" + s.AccessKey
	}
	return admin.SessionSubject(s.Tenant, s.User)
}

// identity builds a session's identity as the S3 endpoint would build
// a request's: from its key through the keyring, or from its user.
func (h *Handler) identity(ctx context.Context, s catalog.Session) (*iam.Identity, error) {
	var id *iam.Identity
	var err error
	if s.AccessKey != "" {
		_, id, err = h.o.Keys.Lookup(ctx, s.AccessKey)
	} else {
		id, err = h.o.Keys.UserIdentity(ctx, s.Tenant, s.User, s.UserID)
	}
	if errors.Is(err, iam.ErrUnknownKey) || errors.Is(err, iam.ErrUnknownUser) {
		return nil, errNotSignedIn
	}
	return id, err
}

// load finds the request's session; errNotSignedIn when it has none,
// or one that has expired (which goes).
func (h *Handler) load(r *http.Request) (*session, error) {
	c, err := r.Cookie(cookieName(r))
	if err != nil || c.Value == "" {
		return nil, errNotSignedIn
	}
	key := hashID(c.Value)
	s, err := h.con.GetSession(r.Context(), key)
	if errors.Is(err, catalog.ErrNoSuchSession) {
		return nil, errNotSignedIn
	}
	if err != nil {
		return nil, err
	}
	now := h.o.Now()
	if !now.Before(s.Expires) || !now.Before(s.LastSeen.Add(h.o.IdleExpiry)) {
		h.con.DeleteSession(r.Context(), key)
		return nil, errNotSignedIn
	}
	id, err := h.identity(r.Context(), s)
	if err != nil {
		if err == errNotSignedIn {
			h.con.DeleteSession(r.Context(), key)
		}
		return nil, err
	}
	// The last use is written at most once a minute (or a tenth of the
	// idle expiry): a page of the object browser makes several calls a
	// second.
	if now.Sub(s.LastSeen) >= min(time.Minute, h.o.IdleExpiry/10) {
		if err := h.con.TouchSession(r.Context(), key, now); err != nil {
			return nil, err
		}
		s.LastSeen = now
	}
	return &session{Session: s, id: id}, nil
}

// sameOrigin checks a browser's Origin header, when it sent one,
// against the console's own, host and port: a cross-site request never
// carries the SameSite cookie, but a page of the S3 listener on the
// same host is same-site (cookies ignore ports) and its Origin differs
// by the port alone; a sandboxed document's ("null") matches nothing.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := "http"
	if iam.OriginOf(r.Context()).Secure {
		scheme = "https"
	}
	// Behind a balancer ending TLS the browser's scheme is the
	// forwarded one; the host must be the one it asked for.
	return strings.EqualFold(u.Host, r.Host) && (u.Scheme == scheme || u.Scheme == "https")
}

// checkCSRF refuses a changing call without the session's token.
func checkCSRF(r *http.Request, s *session) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	t := r.Header.Get("X-CSRF-Token")
	if t == "" || subtle.ConstantTimeCompare([]byte(t), []byte(s.CSRF)) != 1 || !sameOrigin(r) {
		return errCSRF
	}
	return nil
}

// SessionInfo is what GET /session answers.
type SessionInfo struct {
	Method      string       `json:"method"`
	Identity    IdentityInfo `json:"identity"`
	Provider    bool         `json:"provider"`
	MustChange  bool         `json:"must_change_password"`
	CSRF        string       `json:"csrf_token"`
	Expires     time.Time    `json:"expires"`
	IdleExpires time.Time    `json:"idle_expires"`
}

// IdentityInfo is the signed-in identity as pages see it.
type IdentityInfo struct {
	Tenant      string         `json:"tenant"`
	User        string         `json:"user"`
	Role        string         `json:"role"`
	CanonicalID string         `json:"canonical_id"`
	DisplayName string         `json:"display_name"`
	AccessKey   string         `json:"access_key"`
	Root        bool           `json:"root"`
	App         *iam.AppLimits `json:"app"`
}

func (h *Handler) info(s *session) SessionInfo {
	id := s.id
	return SessionInfo{Method: s.Method, Provider: id.Root, MustChange: s.MustChange, CSRF: s.CSRF,
		Expires: s.Expires, IdleExpires: s.LastSeen.Add(h.o.IdleExpiry),
		Identity: IdentityInfo{Tenant: id.Tenant, User: id.User, Role: id.Role, CanonicalID: id.CanonicalID,
			DisplayName: id.DisplayName, AccessKey: id.AccessKey, Root: id.Root, App: id.App}}
}

// clientAddr is the client's address as the S3 endpoint computes it
// (behind trusted proxies, the one they forward).
func clientAddr(r *http.Request) string { return iam.OriginOf(r.Context()).SourceIP }

func tooMany(wait time.Duration) *Error {
	e := apiError(http.StatusTooManyRequests, "TooManyAttempts", "Too many failed sign-ins; try again later")
	e.retryAfter = max(1, int((wait+time.Second-1)/time.Second))
	return e
}

// signIn is POST /session.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) (any, int, error) {
	if !sameOrigin(r) {
		return nil, 0, apiError(http.StatusForbidden, "InvalidOrigin", "Sign-in from another origin is refused")
	}
	var in SignIn
	if err := decodeAtMost(r, &in, maxSignInBody); err != nil {
		return nil, 0, err
	}
	if in.Method == "" {
		in.Method = "password"
		if in.AccessKey != "" {
			in.Method = "access_key"
		}
	}
	m, ok := h.methods[in.Method]
	if !ok {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "No sign-in method %q", in.Method)
	}
	sub, device, err := h.check(r, m, in)
	if err != nil {
		return nil, 0, err
	}
	s, token, err := h.openSession(r, sub)
	if err != nil {
		return nil, 0, err
	}
	http.SetCookie(w, h.cookie(r, token, h.o.MaxAge))
	h.rememberDevice(w, r, sub, device)
	h.record(r, s.id, "console:SignIn", sub.Method, http.StatusOK, nil)
	return h.info(s), http.StatusOK, nil
}

// openSession opens a session for the subject a sign-in found, and
// returns it with its token (the cookie's value).
func (h *Handler) openSession(r *http.Request, sub Subject) (*session, string, error) {
	ctx := r.Context()
	now := h.o.Now().UTC()
	// Sign-ins prune the sessions that have ended: the table holds the
	// live ones and those of the last idle period.
	if err := h.con.PruneSessions(ctx, now, now.Add(-h.o.IdleExpiry)); err != nil {
		return nil, "", err
	}
	token := randomToken()
	cs := catalog.Session{IDHash: hashID(token), Subject: subjectOf(sub), Method: sub.Method, Tenant: sub.Tenant, User: sub.User,
		UserID: sub.UserID, AccessKey: sub.AccessKey, CSRF: randomToken(), MustChange: sub.MustChange,
		Created: now, LastSeen: now, Expires: now.Add(h.o.MaxAge)}
	id, err := h.identity(ctx, cs)
	if err != nil {
		return nil, "", err
	}
	if id.Suspended {
		// Every call would be refused: say why once, rather than open a
		// session that can do nothing.
		return nil, "", apiError(http.StatusForbidden, "TenantSuspended", "Your tenant is suspended; ask your provider")
	}
	if err := h.con.CreateSession(ctx, cs); err != nil {
		return nil, "", err
	}
	return &session{Session: cs, id: id}, token, nil
}

// cookie is the session cookie: script cannot read it, other sites'
// requests do not carry it, and over TLS it never goes in clear.
func (h *Handler) cookie(r *http.Request, value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: cookieName(r), Value: value, Path: Prefix, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: iam.OriginOf(r.Context()).Secure, MaxAge: int(maxAge / time.Second)}
	if c.Secure {
		c.Path = "/" // as "__Host-" requires; the listener is the console's alone
	}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	return c
}

// signOut ends the session. A session an identity provider signed in
// answers where its provider ends its own session (logout_url, with
// the ID token as hint), for the page to send the browser there.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, s *session) (any, int, error) {
	logout := h.logoutURL(r, s)
	if err := h.con.DeleteSession(r.Context(), s.IDHash); err != nil {
		return nil, 0, err
	}
	http.SetCookie(w, h.cookie(r, "", -1))
	if logout != "" {
		return map[string]string{"logout_url": logout}, http.StatusOK, nil
	}
	return nil, http.StatusNoContent, nil
}

// changePassword is POST /password: the user's own, the current one
// given again, so that a session left open cannot be kept for good.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, s *session) (any, int, error) {
	var in struct {
		Current string `json:"current"`
		New     string `json:"new"`
	}
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	if s.Method != "password" {
		return nil, 0, apiError(http.StatusBadRequest, "NotPasswordSession", "Only a session signed in with a password changes it")
	}
	// A session is no stranger: its attempts are counted per session,
	// in the lane of known devices, so others' failures do not keep its
	// user from changing the password.
	ctx := r.Context()
	l, rs := h.devices, []reservation{{"session:" + s.IDHash, h.limit(h.o.MaxDeviceFailures)}}
	leave, err := l.enter()
	if err != nil {
		return nil, 0, err
	}
	defer leave()
	if err := h.reserve(ctx, rs); err != nil {
		return nil, 0, err
	}
	if _, err := h.evaluate(ctx, l, passwordMethod{h}, SignIn{Tenant: s.Tenant, User: s.User, Password: in.Current}); err != nil {
		if err == errInvalidCredentials {
			return nil, 0, apiError(http.StatusForbidden, "InvalidCredentials", "The current password is not right")
		}
		h.release(ctx, rs)
		return nil, 0, err
	}
	h.release(ctx, rs)
	if in.New == in.Current {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidPassword", "The new password is the current one")
	}
	if err := h.o.Admin.SetPasswordKeeping(ctx, s.id, s.Tenant, s.User, in.New, s.IDHash); err != nil {
		return nil, 0, err
	}
	if err := h.con.UpdateSession(ctx, s.IDHash, false); err != nil {
		return nil, 0, err
	}
	// The new password forgot the user's devices; this browser, which
	// just gave the current one, stays known.
	h.rememberDevice(w, r, Subject{Method: s.Method, Tenant: s.Tenant, User: s.User}, "")
	return nil, http.StatusNoContent, nil
}

// route is one API call. serve returns the response body and status, or
// an error for the one error writer; a body of type rawBody writes
// itself.
type route struct {
	method, pattern string
	// public calls need no session; early ones are open to a session
	// that must change its password first.
	public, early bool
	// audit names the action recorded in the audit log ("" = none):
	// calls of the admin service, recorded as the admin API records them.
	audit string
	// ownSlots: the call is bounded by lanes of its own (sign-in, see
	// signin.go), not by the S3 endpoint's request slots, which a flood
	// of sign-ins waiting for a password hash would otherwise hold.
	ownSlots bool
	serve    func(h *Handler, c *call) (any, int, error)
}

// call is one API request on its way.
type call struct {
	w http.ResponseWriter
	r *http.Request
	s *session
}

func (c *call) ctx() context.Context    { return c.r.Context() }
func (c *call) id() *iam.Identity       { return c.s.id }
func (c *call) path(name string) string { return c.r.PathValue(name) }
func (c *call) query(name string) string {
	return c.r.URL.Query().Get(name)
}

// rawBody is a response the route wrote itself.
type rawBody struct{}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, rt route) {
	w, bill := h.metered(rt, w, r)
	c := &call{w: w, r: r}
	var err error
	if !rt.public {
		if c.s, err = h.load(r); err == nil {
			err = checkCSRF(r, c.s)
		}
		if err == nil && c.s.MustChange && !rt.early {
			err = errMustChange
		}
	}
	var body any
	status := 0
	if err == nil && !rt.ownSlots {
		// Console calls share the node's request slots with S3's, from
		// the same budgets (the anonymous one before sign-in).
		var id *iam.Identity
		if c.s != nil {
			id = c.s.id
		}
		var release func()
		if release, err = h.o.S3.Acquire(id); err == nil {
			defer release()
		}
	}
	if err == nil {
		body, status, err = rt.serve(h, c)
	} else {
		closeUnread(w, r)
	}
	if err != nil {
		status = writeErr(w, err)
	} else if _, raw := body.(rawBody); !raw {
		writeJSON(w, status, body)
	}
	if rt.audit != "" && c.s != nil {
		h.record(r, c.s.id, rt.audit, strings.TrimPrefix(r.URL.Path, API), status, err)
	}
	if c.s != nil {
		bill(status)
	}
}

// record puts a control call in the audit log, as the admin API does.
func (h *Handler) record(r *http.Request, id *iam.Identity, action, target string, status int, err error) {
	e := catalog.AuditEntry{Action: action, Target: target, Status: status}
	var ce *Error
	var ae *admin.Error
	switch {
	case errors.As(err, &ce):
		e.Outcome = ce.Code
	case errors.As(err, &ae):
		e.Outcome = ae.Code
	case err != nil:
		e.Outcome = "InternalError"
	}
	h.o.Audit.Record(r.Context(), id, e)
}

// jsonRaw is a document passed through as it is (a bucket policy).
type jsonRaw = json.RawMessage

// validPassword checks a new password before anything is created with
// it, with the admin service's error.
func validPassword(p string) error {
	if err := iam.ValidPassword(p); err != nil {
		return apiError(http.StatusBadRequest, "InvalidPassword", "%s", err.Error())
	}
	return nil
}

// clip bounds a client's text kept in the audit log.
func clip(s string) string {
	const max = 128
	if len(s) > max {
		return s[:max]
	}
	return s
}
