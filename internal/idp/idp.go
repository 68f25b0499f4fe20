package idp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/oidc"
)

// Store is what the service needs of the catalog.
type Store interface {
	catalog.Store
	catalog.IdentityProviders
}

// Service registers identity providers and runs their sign-ins.
type Service struct {
	cat    Store
	iam    catalog.IAM // nil: no IAM groups kept
	sealer *iam.Sealer
	v      *oidc.Verifier
	// Now is the clock (time.Now; tests set it).
	Now func() time.Time
}

// StateTTL is how long a browser has between leaving for the provider
// and coming back.
const StateTTL = 10 * time.Minute

// Bounds of what a browser carries and a token claims.
const (
	// MaxReturn bounds the console path a sign-in returns to.
	MaxReturn = 512
	// MaxCookie bounds the sealed state a browser sends back.
	MaxCookie = 2048
	maxGroups = 1000
	// MaxPerOwner bounds the identity providers of a tenant, and the
	// provider's own: the sign-in page lists them.
	MaxPerOwner = 20
	// MaxIDToken bounds the ID token a session keeps as its sign-out's
	// hint; a larger one is not kept (the sign-out goes without a hint).
	MaxIDToken = 8 << 10
)

// New returns the service, or an error when the catalog keeps no
// identity providers.
func New(store catalog.Store, sealer *iam.Sealer, v *oidc.Verifier) (*Service, error) {
	s, ok := store.(Store)
	if !ok {
		return nil, fmt.Errorf("idp: catalog %T keeps no identity providers", store)
	}
	ia, _ := store.(catalog.IAM)
	return &Service{cat: s, iam: ia, sealer: sealer, v: v, Now: time.Now}, nil
}

// Catalog is the catalog's identity providers.
func (s *Service) Catalog() catalog.IdentityProviders { return s.cat }

func secretContext(tenant, name string) string { return "idp:" + tenant + "/" + name }

// Configure registers or changes tenant's provider name ("" tenant: the
// provider's, for every tenant). An empty secret keeps the one stored
// (ErrNoSuchIdentityProvider when there is none).
func (s *Service) Configure(ctx context.Context, tenant, name string, cfg Config, secret string) (Config, error) {
	if !Name.MatchString(name) {
		return Config{}, &ConfigError{fmt.Errorf("name: %q is not 1 to 63 lower-case letters, digits and hyphens", name)}
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(tenant); err != nil {
		return Config{}, &ConfigError{err}
	}
	now := s.Now().UTC()
	p := catalog.IdentityProvider{Tenant: tenant, Name: name, Config: cfg.Encode(), Created: now, Updated: now}
	have, err := s.cat.GetIdentityProvider(ctx, tenant, name)
	switch {
	case errors.Is(err, catalog.ErrNoSuchIdentityProvider):
		all, err := s.cat.ListIdentityProviders(ctx, tenant)
		if err != nil {
			return Config{}, err
		}
		if len(all) >= MaxPerOwner {
			return Config{}, &ConfigError{fmt.Errorf("at most %d identity providers each", MaxPerOwner)}
		}
	case err != nil:
		return Config{}, err
	}
	if secret == "" {
		if have.Name == "" {
			return Config{}, catalog.ErrNoSuchIdentityProvider
		}
		p.SecretSealed = have.SecretSealed
	} else {
		p.SecretSealed = s.sealer.Seal(secret, secretContext(tenant, name))
	}
	return cfg, s.cat.PutIdentityProvider(ctx, p)
}

// Button is a provider the sign-in page offers.
type Button struct {
	Tenant string `json:"tenant,omitempty"` // "" = the provider's
	Name   string `json:"name"`
	Label  string `json:"label"`
}

// Buttons are the providers that apply to a sign-in page: the
// provider's own, and tenant's when the page names one.
func (s *Service) Buttons(ctx context.Context, tenant string) ([]Button, error) {
	out := []Button{}
	owners := []string{""}
	if tenant != "" {
		owners = append(owners, tenant)
	}
	for _, owner := range owners {
		ps, err := s.cat.ListIdentityProviders(ctx, owner)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			cfg, err := Of(p)
			if err != nil {
				continue
			}
			out = append(out, Button{Tenant: owner, Name: p.Name, Label: cfg.Label(p.Name)})
		}
	}
	return out, nil
}

// Refusal is a sign-in refused: Code is what the browser is shown,
// Reason what the audit log keeps.
type Refusal struct {
	Code   string
	Reason string
	Err    error
}

func (r *Refusal) Error() string { return "idp: " + r.Code + ": " + r.Reason }
func (r *Refusal) Unwrap() error { return r.Err }

func refuse(code, format string, args ...any) *Refusal {
	return &Refusal{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Codes of Refusal.
const (
	CodeNoSuchProvider = "NoSuchIdentityProvider"
	CodeUnavailable    = "IdentityProviderUnavailable"
	CodeInvalidState   = "InvalidState"
	CodeInvalidToken   = "InvalidIdentityToken"
	CodeExpiredToken   = "ExpiredToken"
	CodeDenied         = "AccessDeniedByProvider"
	CodeNoSuchTenant   = "NoSuchTenant"
	CodeSuspended      = "TenantSuspended"
	CodeWrongTenant    = "WrongTenant"
	CodeNotAllowed     = "NotAllowed"
	CodeNoSuchUser     = "NoSuchUser"
	CodeUserExists     = "UserExists"
	CodeDisabled       = "UserDisabled"
)

// Pending is what the browser carries, sealed, from Begin to Finish:
// which provider, the state, nonce and PKCE verifier, where to return.
type Pending struct {
	Tenant   string `json:"t"`
	Name     string `json:"n"`
	State    string `json:"s"`
	Nonce    string `json:"o"`
	Verifier string `json:"v"`
	Return   string `json:"r"`
	Expires  int64  `json:"e"`
}

const stateContext = "idp-state"

// provider loads a registered provider with its config and secret.
func (s *Service) provider(ctx context.Context, tenant, name string) (Config, string, error) {
	p, err := s.cat.GetIdentityProvider(ctx, tenant, name)
	if errors.Is(err, catalog.ErrNoSuchIdentityProvider) {
		return Config{}, "", refuse(CodeNoSuchProvider, "no identity provider %q of %q", name, tenant)
	}
	if err != nil {
		return Config{}, "", err
	}
	cfg, err := Of(p)
	if err != nil {
		return Config{}, "", err
	}
	secret := ""
	if len(p.SecretSealed) > 0 {
		if secret, err = s.sealer.Open(p.SecretSealed, secretContext(tenant, name)); err != nil {
			return Config{}, "", err
		}
	}
	return cfg, secret, nil
}

func (c Config) oidcProvider() oidc.Provider {
	return oidc.Provider{Issuer: c.Issuer, ClientIDs: []string{c.ClientID}, Thumbprints: c.Thumbprints}
}

func (c Config) oauth2(d oidc.Discovery, secret, redirect string) *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: secret, RedirectURL: redirect,
		Scopes:   append([]string{"openid"}, slices.DeleteFunc(slices.Clone(c.Scopes), func(s string) bool { return s == "openid" })...),
		Endpoint: oauth2.Endpoint{AuthURL: d.AuthorizationEndpoint, TokenURL: d.TokenEndpoint, AuthStyle: oauth2.AuthStyleInHeader}}
}

// discover fetches the provider's discovery document, a failure as a
// refusal the browser is shown.
func (s *Service) discover(ctx context.Context, c Config) (oidc.Discovery, error) {
	d, err := s.v.Discover(ctx, c.oidcProvider())
	if err != nil {
		return d, &Refusal{Code: CodeUnavailable, Reason: err.Error(), Err: err}
	}
	return d, nil
}

// ValidReturn tells whether ret is a place in the console a sign-in may
// return to: a path under /console/, never another host.
func ValidReturn(ret string) bool {
	if ret == "" || len(ret) > MaxReturn || !strings.HasPrefix(ret, "/console/") || strings.ContainsAny(ret, "\\\x00\r\n\t") {
		return false
	}
	u, err := url.Parse(ret)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && !strings.HasPrefix(u.Path, "//") &&
		!strings.Contains(u.Path, "/../") && !strings.HasSuffix(u.Path, "/..")
}

// Begin starts a sign-in with tenant's provider name: the URL to send
// the browser to and the sealed state it carries until it comes back to
// redirect. ret is where the console returns after (a console path;
// anything else is /console/).
func (s *Service) Begin(ctx context.Context, tenant, name, redirect, ret string) (authURL, sealed string, err error) {
	cfg, secret, err := s.provider(ctx, tenant, name)
	if err != nil {
		return "", "", err
	}
	d, err := s.discover(ctx, cfg)
	if err != nil {
		return "", "", err
	}
	if len(d.CodeChallengeMethods) > 0 && !slices.Contains(d.CodeChallengeMethods, "S256") {
		return "", "", refuse(CodeUnavailable, "the provider does not support PKCE with S256")
	}
	if !ValidReturn(ret) {
		ret = "/console/"
	}
	p := Pending{Tenant: tenant, Name: name, State: token(), Nonce: token(), Verifier: oauth2.GenerateVerifier(), Return: ret,
		Expires: s.Now().Add(StateTTL).Unix()}
	b, _ := json.Marshal(p)
	sealed = base64.RawURLEncoding.EncodeToString(s.sealer.Seal(string(b), stateContext))
	authURL = cfg.oauth2(d, secret, redirect).AuthCodeURL(p.State, oauth2.S256ChallengeOption(p.Verifier), oauth2.SetAuthURLParam("nonce", p.Nonce))
	return authURL, sealed, nil
}

func token() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("idp: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Open reads the state a browser brought back: a refusal when it is
// missing, too large, not sealed by this service's key or expired.
func (s *Service) Open(sealed string) (Pending, error) {
	var p Pending
	if sealed == "" {
		return p, refuse(CodeInvalidState, "the browser brought no sign-in state (another browser, or cookies off)")
	}
	if len(sealed) > MaxCookie {
		return p, refuse(CodeInvalidState, "the sign-in state is over %d bytes", MaxCookie)
	}
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return p, refuse(CodeInvalidState, "the sign-in state is not base64")
	}
	plain, err := s.sealer.Open(raw, stateContext)
	if err != nil {
		return p, refuse(CodeInvalidState, "the sign-in state was not made by this service")
	}
	if err := json.Unmarshal([]byte(plain), &p); err != nil {
		return p, refuse(CodeInvalidState, "the sign-in state does not decode")
	}
	if s.Now().Unix() >= p.Expires {
		return p, refuse(CodeInvalidState, "the sign-in state expired")
	}
	return p, nil
}

// Result is a sign-in the provider vouched for.
type Result struct {
	// User is the tenant's user signed in, as it is now.
	User    catalog.User
	IDToken string
	// EndSession is the provider's end_session_endpoint ("" = none).
	EndSession string
}

var userName = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,64}$`)

// Finish completes the sign-in p the browser came back with, carrying
// state and code (or the provider's error, errCode): it exchanges the
// code, verifies the ID token and maps its claims to the tenant's user,
// creating or updating it. Every refusal is a *Refusal.
func (s *Service) Finish(ctx context.Context, p Pending, state, code, errCode, redirect string) (Result, error) {
	var res Result
	if subtle.ConstantTimeCompare([]byte(state), []byte(p.State)) != 1 {
		return res, refuse(CodeInvalidState, "the state the provider returned is not the browser's")
	}
	// Used once, on whichever node, before anything else is done with it.
	fresh, err := s.cat.UseSignInState(ctx, hash(p.State), time.Unix(p.Expires, 0), s.Now())
	if err != nil {
		return res, err
	}
	if !fresh {
		return res, refuse(CodeInvalidState, "the sign-in state was used already")
	}
	if errCode != "" {
		return res, refuse(CodeDenied, "the provider answered %.64q", errCode)
	}
	cfg, secret, err := s.provider(ctx, p.Tenant, p.Name)
	if err != nil {
		return res, err
	}
	d, err := s.discover(ctx, cfg)
	if err != nil {
		return res, err
	}
	res.EndSession = d.EndSessionEndpoint
	// The exchange goes through the guarded client, bounded in time.
	xctx, cancel := context.WithTimeout(ctx, s.v.Timeout())
	defer cancel()
	xctx = context.WithValue(xctx, oauth2.HTTPClient, s.v.Client(cfg.oidcProvider()))
	tok, err := cfg.oauth2(d, secret, redirect).Exchange(xctx, code, oauth2.VerifierOption(p.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return res, &Refusal{Code: CodeInvalidToken, Reason: "the token endpoint refused the code: " + clip(re.ErrorCode+" "+re.ErrorDescription), Err: err}
		}
		return res, &Refusal{Code: CodeUnavailable, Reason: "token exchange: " + clip(err.Error()), Err: err}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return res, refuse(CodeInvalidToken, "the token endpoint returned no id_token")
	}
	claims, err := s.v.Verify(ctx, cfg.oidcProvider(), raw)
	switch {
	case errors.Is(err, oidc.ErrExpired):
		return res, &Refusal{Code: CodeExpiredToken, Reason: clip(err.Error()), Err: err}
	case errors.Is(err, oidc.ErrFetch):
		return res, &Refusal{Code: CodeUnavailable, Reason: clip(err.Error()), Err: err}
	case err != nil:
		return res, &Refusal{Code: CodeInvalidToken, Reason: clip(err.Error()), Err: err}
	}
	if err := checkBinding(claims, p.Nonce, cfg.ClientID); err != nil {
		return res, err
	}
	res.IDToken = raw
	u, err := s.signIn(ctx, p, cfg, claims)
	res.User = u
	return res, err
}

// checkBinding checks the token was issued for this sign-in (nonce) and
// to this client (azp, which must be there when there are several
// audiences, OpenID Connect Core 3.1.3.7).
func checkBinding(c *oidc.Claims, nonce, clientID string) error {
	got, _ := c.All["nonce"].(string)
	if subtle.ConstantTimeCompare([]byte(got), []byte(nonce)) != 1 {
		return refuse(CodeInvalidToken, "the token's nonce is not this sign-in's")
	}
	azp, has := c.All["azp"]
	if len(c.Audience) > 1 && !has {
		return refuse(CodeInvalidToken, "a token for several audiences names no azp")
	}
	if has && azp != clientID {
		return refuse(CodeInvalidToken, "the token's azp is %.64q, not this client", fmt.Sprint(azp))
	}
	if c.Subject == "" || len(c.Subject) > 255 {
		return refuse(CodeInvalidToken, "the token's sub is empty or over 255 characters")
	}
	return nil
}

// signIn maps the claims to the tenant's user and signs it in the
// catalog: created or linked, its role and IAM groups updated.
func (s *Service) signIn(ctx context.Context, p Pending, cfg Config, c *oidc.Claims) (catalog.User, error) {
	tenant := p.Tenant
	if cfg.TenantClaim != "" {
		claimed, _ := c.All[cfg.TenantClaim].(string)
		switch {
		case claimed == "":
			return catalog.User{}, refuse(CodeWrongTenant, "the token has no tenant claim %q", cfg.TenantClaim)
		case tenant != "" && claimed != tenant:
			return catalog.User{}, refuse(CodeWrongTenant, "the token of tenant %q's provider claims tenant %.64q", tenant, claimed)
		}
		tenant = claimed
	}
	t, err := s.cat.GetTenant(ctx, tenant)
	switch {
	case errors.Is(err, catalog.ErrNoSuchTenant):
		return catalog.User{}, refuse(CodeNoSuchTenant, "the token claims tenant %.64q, which does not exist", tenant)
	case err != nil:
		return catalog.User{}, err
	case t.Status == catalog.TenantSuspended:
		return catalog.User{}, refuse(CodeSuspended, "tenant %q is suspended", tenant)
	}
	login, _ := c.All[cfg.UserClaim].(string)
	if !userName.MatchString(login) {
		return catalog.User{}, refuse(CodeInvalidToken, "the user claim %q is %.64q, not a user name", cfg.UserClaim, login)
	}
	groups := groupsOf(c.All[cfg.GroupsClaim])
	role := ""
	switch {
	case anyIn(groups, cfg.AdminGroups):
		role = catalog.RoleAdmin
	case len(cfg.UserGroups) == 0 || anyIn(groups, cfg.UserGroups):
		role = catalog.RoleUser
	default:
		return catalog.User{}, refuse(CodeNotAllowed, "%s is in none of the provider's user or admin groups", login)
	}
	now := s.Now().UTC()
	link := catalog.IdentityProviderUser{Tenant: tenant, User: login, IdPTenant: p.Tenant, IdP: p.Name, Subject: c.Subject,
		Login: login, Groups: groups, SignedIn: now}
	u, _, err := s.cat.SignInIdentityProviderUser(ctx, link, catalog.User{Tenant: tenant, Name: login, Role: role,
		CanonicalID: iam.NewCanonicalID(), CreatedAt: now}, cfg.CreateUsers)
	switch {
	case errors.Is(err, catalog.ErrNoSuchUser):
		return u, refuse(CodeNoSuchUser, "%s is not a user of %s, and the provider creates none", login, tenant)
	case errors.Is(err, catalog.ErrUserExists):
		return u, refuse(CodeUserExists, "a user %s of %s exists that this provider did not make", login, tenant)
	case err != nil:
		return u, err
	case u.Disabled:
		return u, refuse(CodeDisabled, "%s of %s is disabled", u.Name, tenant)
	}
	if err := s.applyIAMGroups(ctx, tenant, cfg, u.Name, groups); err != nil {
		return u, err
	}
	return u, nil
}

// applyIAMGroups makes user a member of the IAM groups its groups map
// to, and of no other group the mapping names. A mapped IAM group that
// does not exist is skipped: the mapping admits no one.
func (s *Service) applyIAMGroups(ctx context.Context, tenant string, cfg Config, user string, groups []string) error {
	if len(cfg.IAMGroups) == 0 || s.iam == nil {
		return nil
	}
	changes, err := iam.MapGroups(ctx, s.iam, tenant, user, cfg.IAMGroups, func(g string) bool { return slices.Contains(groups, g) })
	for _, c := range changes {
		if c.Err != nil {
			slog.WarnContext(ctx, "idp: IAM group not joined", "tenant", tenant, "user", user, "group", c.Group, "err", c.Err)
		}
	}
	if err != nil {
		return fmt.Errorf("idp: %w", err)
	}
	return nil
}

// groupsOf reads a groups claim: a list of strings or one string;
// names too long or with a newline are left out, and at most maxGroups
// kept.
func groupsOf(v any) []string {
	var out []string
	add := func(s string) {
		if s != "" && len(s) <= 256 && !strings.ContainsAny(s, "\n\x00") && len(out) < maxGroups {
			out = append(out, s)
		}
	}
	switch g := v.(type) {
	case string:
		add(g)
	case []any:
		for _, x := range g {
			if s, ok := x.(string); ok {
				add(s)
			}
		}
	}
	return out
}

func anyIn(have, want []string) bool {
	for _, w := range want {
		if slices.Contains(have, w) {
			return true
		}
	}
	return false
}

func hash(s string) string {
	return base64.RawURLEncoding.EncodeToString(sha256Sum([]byte(s)))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}

// LogoutURL is where the browser goes to end its session at the
// provider (RP-initiated logout): endSession with the ID token as hint
// and the console to come back to; "" when the provider has no
// end_session_endpoint.
func LogoutURL(endSession, idToken, postLogout string) string {
	if endSession == "" {
		return ""
	}
	u, err := url.Parse(endSession)
	if err != nil {
		return ""
	}
	q := u.Query()
	if idToken != "" {
		q.Set("id_token_hint", idToken)
	}
	q.Set("post_logout_redirect_uri", postLogout)
	u.RawQuery = q.Encode()
	return u.String()
}

// EndSession is the end_session_endpoint of tenant's provider name, ""
// when it has none or cannot be fetched now (the console session ends
// all the same).
func (s *Service) EndSession(ctx context.Context, tenant, name string) string {
	cfg, _, err := s.provider(ctx, tenant, name)
	if err != nil {
		return ""
	}
	d, err := s.v.Discover(ctx, cfg.oidcProvider())
	if err != nil {
		return ""
	}
	return d.EndSessionEndpoint
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
