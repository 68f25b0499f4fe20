package console

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/idp"
)

// Sign-in through an OpenID Connect provider (package idp), method
// "oidc": the browser goes to the provider and comes back to
// /oidc/callback with a code, which the node exchanges for an ID token.
// The state, nonce and PKCE verifier travel with the browser in a
// short-lived cookie, sealed under the node key, HttpOnly and
// SameSite=Lax (the provider sends the browser back with a top-level
// GET from its own site, which a Strict cookie would not follow), sent
// to these calls alone; the state is used once (catalog). The session
// it opens is an ordinary one.

// IdPs runs sign-ins through identity providers.
type IdPs interface {
	Buttons(ctx context.Context, tenant string) ([]idp.Button, error)
	Begin(ctx context.Context, tenant, name, redirect, ret string) (authURL, sealed string, err error)
	Open(sealed string) (idp.Pending, error)
	Finish(ctx context.Context, p idp.Pending, state, code, errCode, redirect string) (idp.Result, error)
	EndSession(ctx context.Context, tenant, name string) string
	Catalog() catalog.IdentityProviders
}

var _ IdPs = (*idp.Service)(nil)

// OIDCStateCookie is the name of the cookie of a sign-in on its way
// over plain HTTP; over HTTPS it is SecureOIDCStateCookie, for Path=/
// as "__Host-" requires, so that no sibling host name (a virtual-hosted
// bucket's) can plant a state of its own in the console's browser and
// sign it in as someone else.
const (
	OIDCStateCookie       = "ostium_oidc"
	SecureOIDCStateCookie = "__Host-" + OIDCStateCookie
)

const oidcPath = API + "oidc/"

func init() {
	routes = append(routes,
		route{method: "GET", pattern: "/oidc/providers", public: true, serve: (*Handler).oidcProviders},
		route{method: "GET", pattern: "/oidc/start", public: true, serve: (*Handler).oidcStart},
		route{method: "GET", pattern: "/oidc/callback", public: true, serve: (*Handler).oidcCallback},
	)
}

var errNoIdPs = apiError(http.StatusNotImplemented, "NotImplemented", "This node signs no one in through identity providers")

// oidcProviders lists the providers the sign-in page offers: the
// provider's, and the tenant's its ?tenant= names.
func (h *Handler) oidcProviders(c *call) (any, int, error) {
	if h.o.IdPs == nil {
		return map[string]any{"providers": []idp.Button{}}, http.StatusOK, nil
	}
	t := c.query("tenant")
	if len(t) > 63 {
		t = ""
	}
	bs, err := h.o.IdPs.Buttons(c.ctx(), t)
	if err != nil {
		return nil, 0, err
	}
	return map[string]any{"providers": bs}, http.StatusOK, nil
}

// redirectURI is the callback as the browser reaches it, what the
// console is registered with at the provider.
func redirectURI(r *http.Request) string {
	scheme := "http"
	if iam.OriginOf(r.Context()).Secure {
		scheme = "https"
	}
	return scheme + "://" + r.Host + oidcPath + "callback"
}

// oidcStart sends the browser to the provider.
func (h *Handler) oidcStart(c *call) (any, int, error) {
	if h.o.IdPs == nil {
		return nil, 0, errNoIdPs
	}
	tenant, name := c.query("tenant"), c.query("idp")
	if len(tenant) > 63 || !idp.Name.MatchString(name) {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "No such identity provider")
	}
	authURL, sealed, err := h.o.IdPs.Begin(c.ctx(), tenant, name, redirectURI(c.r), c.query("return"))
	var ref *idp.Refusal
	switch {
	case errors.As(err, &ref) && ref.Code == idp.CodeNoSuchProvider:
		return nil, 0, apiError(http.StatusNotFound, ref.Code, "No such identity provider")
	case errors.As(err, &ref):
		slog.Warn("console: identity provider unavailable", "tenant", tenant, "idp", name, "reason", ref.Reason)
		return nil, 0, apiError(http.StatusBadGateway, ref.Code, "The identity provider did not answer; try again later")
	case err != nil:
		return nil, 0, err
	}
	http.SetCookie(c.w, h.stateCookie(c.r, sealed, idp.StateTTL))
	c.w.Header().Set("Cache-Control", "no-store")
	http.Redirect(c.w, c.r, authURL, http.StatusSeeOther)
	return rawBody{}, http.StatusSeeOther, nil
}

func (h *Handler) stateCookie(r *http.Request, value string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{Name: OIDCStateCookie, Value: value, Path: oidcPath, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: iam.OriginOf(r.Context()).Secure, MaxAge: int(maxAge / time.Second)}
	if c.Secure {
		c.Name, c.Path = SecureOIDCStateCookie, "/"
	}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	return c
}

// oidcCallback is where the provider sends the browser back: a session
// and the console page the sign-in started from, or the sign-in page
// with the refusal's code (?signin_error=).
func (h *Handler) oidcCallback(c *call) (any, int, error) {
	if h.o.IdPs == nil {
		return nil, 0, errNoIdPs
	}
	r, w := c.r, c.w
	// The state is single use: whatever happens next, the browser
	// forgets it.
	http.SetCookie(w, h.stateCookie(r, "", -1))
	w.Header().Set("Cache-Control", "no-store")
	sealed := ""
	if ck, err := r.Cookie(h.stateCookie(r, "", 0).Name); err == nil {
		sealed = ck.Value
	}
	q := r.URL.Query()
	p, err := h.o.IdPs.Open(sealed)
	var res idp.Result
	if err == nil {
		res, err = h.o.IdPs.Finish(c.ctx(), p, q.Get("state"), q.Get("code"), q.Get("error"), redirectURI(r))
	}
	target := "oidc:" + p.Tenant + "/" + p.Name
	var ref *idp.Refusal
	if errors.As(err, &ref) {
		slog.Info("console: identity provider sign-in refused", "idp", target, "code", ref.Code, "reason", ref.Reason)
		h.o.Audit.Record(c.ctx(), nil, catalog.AuditEntry{Action: "console:SignIn", Target: clip(target), Status: http.StatusUnauthorized,
			Outcome: ref.Code, Tenant: clip(res.User.Tenant), User: clip(res.User.Name)})
		http.Redirect(w, r, Prefix+"?signin_error="+url.QueryEscape(ref.Code), http.StatusSeeOther)
		return rawBody{}, http.StatusSeeOther, nil
	}
	if err != nil {
		return nil, 0, err
	}
	u := res.User
	sub := Subject{Method: "oidc", Tenant: u.Tenant, User: u.Name, UserID: u.CanonicalID}
	s, token, err := h.openSession(r, sub)
	var ae *Error
	if errors.As(err, &ae) {
		h.o.Audit.Record(c.ctx(), nil, catalog.AuditEntry{Action: "console:SignIn", Target: clip(target), Status: ae.Status,
			Outcome: ae.Code, Tenant: u.Tenant, User: u.Name})
		http.Redirect(w, r, Prefix+"?signin_error="+url.QueryEscape(ae.Code), http.StatusSeeOther)
		return rawBody{}, http.StatusSeeOther, nil
	}
	if err != nil {
		return nil, 0, err
	}
	hint := res.IDToken
	if len(hint) > idp.MaxIDToken {
		hint = ""
	}
	if err := h.o.IdPs.Catalog().PutIdPSession(c.ctx(), catalog.IdPSession{SessionHash: s.IDHash, IdPTenant: p.Tenant, IdP: p.Name, IDToken: hint}); err != nil {
		// The session stands; its sign-out ends the console's alone.
		slog.Warn("console: record an identity provider's session", "err", err)
	}
	http.SetCookie(w, h.cookie(r, token, h.o.MaxAge))
	h.record(r, s.id, "console:SignIn", target, http.StatusOK, nil)
	http.Redirect(w, r, p.Return, http.StatusSeeOther)
	return rawBody{}, http.StatusSeeOther, nil
}

// logoutURL is where a session's sign-out sends the browser: its
// identity provider's end_session_endpoint, when the session came from
// one that has it ("" = none).
func (h *Handler) logoutURL(r *http.Request, s *session) string {
	if h.o.IdPs == nil || s.Method != "oidc" {
		return ""
	}
	is, err := h.o.IdPs.Catalog().TakeIdPSession(r.Context(), s.IDHash)
	if err != nil {
		return ""
	}
	scheme := "http"
	if iam.OriginOf(r.Context()).Secure {
		scheme = "https"
	}
	return idp.LogoutURL(h.o.IdPs.EndSession(r.Context(), is.IdPTenant, is.IdP), is.IDToken, scheme+"://"+r.Host+Prefix)
}
