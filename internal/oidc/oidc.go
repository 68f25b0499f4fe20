// Package oidc verifies identity tokens of OpenID Connect providers
// (AssumeRoleWithWebIdentity, console sign-in): the provider's discovery
// document and keys (JWKS) fetched over https, pinned by the thumbprints
// registered for it as IAM pins them, cached and fetched again when a
// token names a key not seen (rotation); the signature (RS256, ES256;
// never "none"), iss, aud, exp, nbf and iat checked. The node fetches
// what a tenant names, so the fetcher reaches only public addresses and
// the private networks the node's configuration allows, and never
// link-local or metadata addresses, checked on each connection.
package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"crypto/x509"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Errors of Verify, by what STS answers: a token that is not valid
// (InvalidIdentityToken), one that expired (ExpiredTokenException), a
// provider that could not be fetched (IDPCommunicationError).
var (
	ErrInvalidToken = errors.New("oidc: invalid identity token")
	ErrExpired      = errors.New("oidc: identity token expired")
	ErrFetch        = errors.New("oidc: the identity provider could not be fetched")
)

// Provider is an identity provider as registered: its issuer URL (the
// tokens' iss), the audiences (client ids) tokens must name one of, and
// the thumbprints of the certificate the keys are served with.
type Provider struct {
	Issuer      string
	ClientIDs   []string
	Thumbprints []string
}

// Options bound and direct the fetches.
type Options struct {
	// AllowNetworks are the private or loopback networks an issuer may
	// be reached in (oidc_allow_networks).
	AllowNetworks []netip.Prefix
	// Timeout bounds each fetch (0 = 10 s).
	Timeout time.Duration
	// MaxBody bounds a fetched document (0 = 256 KiB).
	MaxBody int64
	// RootCAs verify a provider registered without thumbprints (nil: the
	// system's).
	RootCAs *x509.CertPool
	// MaxAge is how long fetched keys are used before they are fetched
	// again (0 = 1 h); MinRefetch how soon after a fetch a token naming
	// an unknown key may cause another (0 = 10 s), so that made-up key
	// ids cannot have the node hammer a provider.
	MaxAge, MinRefetch time.Duration
	// Leeway is the clock skew allowed on exp, nbf and iat (0 = 1 min).
	Leeway time.Duration
	// Now is the clock tokens are checked by (nil: time.Now).
	Now func() time.Time
}

// Verifier verifies tokens, caching each provider's keys.
type Verifier struct {
	opt Options

	mu   sync.Mutex
	sets map[string]*keySet // by issuer and thumbprints
}

type keySet struct {
	mu      sync.Mutex // held while fetching
	keys    jose.JSONWebKeySet
	fetched time.Time
}

// maxProviders bounds the providers whose keys are cached.
const maxProviders = 10_000

// NewVerifier returns a Verifier.
func NewVerifier(opt Options) *Verifier {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = 256 << 10
	}
	if opt.MaxAge <= 0 {
		opt.MaxAge = time.Hour
	}
	if opt.MinRefetch <= 0 {
		opt.MinRefetch = 10 * time.Second
	}
	if opt.Leeway <= 0 {
		opt.Leeway = time.Minute
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Verifier{opt: opt, sets: map[string]*keySet{}}
}

// Claims are a verified token's claims.
type Claims struct {
	Issuer   string
	Subject  string
	Audience []string
	Expiry   time.Time
	IssuedAt time.Time
	// All holds every claim, for mapping (email, groups, ...).
	All map[string]any
}

// algorithms are the signatures accepted: what providers sign with.
var algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

// UnverifiedIssuer reads a token's iss without verifying anything, to
// find which registered provider it claims to come from.
func UnverifiedIssuer(raw string) (string, error) {
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	var c jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&c); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	return c.Issuer, nil
}

// Verify checks raw as a token of p and returns its claims.
func (v *Verifier) Verify(ctx context.Context, p Provider, raw string) (*Claims, error) {
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: one signature expected", ErrInvalidToken)
	}
	h := tok.Headers[0]
	key, err := v.key(ctx, p, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	all := map[string]any{}
	if err := tok.Claims(key.Key, &std, &all); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp claim", ErrInvalidToken)
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: p.Issuer, AnyAudience: p.ClientIDs, Time: v.opt.Now()}, v.opt.Leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, fmt.Errorf("%w: %v", ErrExpired, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	c := &Claims{Issuer: std.Issuer, Subject: std.Subject, Audience: std.Audience, Expiry: std.Expiry.Time(), All: all}
	if std.IssuedAt != nil {
		c.IssuedAt = std.IssuedAt.Time()
	}
	return c, nil
}

// key finds the provider's key kid, fetching the keys when they are not
// cached, stale, or (at most every MinRefetch) do not hold kid.
func (v *Verifier) key(ctx context.Context, p Provider, kid, alg string) (jose.JSONWebKey, error) {
	ks := v.set(p)
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := time.Now()
	k, found := pick(ks.keys, kid, alg)
	stale := ks.fetched.IsZero() || now.Sub(ks.fetched) > v.opt.MaxAge
	if stale || (!found && now.Sub(ks.fetched) >= v.opt.MinRefetch) {
		keys, err := v.fetch(ctx, p)
		if err != nil {
			return k, err
		}
		ks.keys, ks.fetched = keys, now
		k, found = pick(keys, kid, alg)
	}
	if !found {
		return k, fmt.Errorf("%w: the provider has no key %q for %s", ErrInvalidToken, kid, alg)
	}
	return k, nil
}

func (v *Verifier) set(p Provider) *keySet {
	id := p.Issuer + "\x00" + strings.Join(slices.Sorted(slices.Values(lower(p.Thumbprints))), ",")
	v.mu.Lock()
	defer v.mu.Unlock()
	ks := v.sets[id]
	if ks == nil {
		if len(v.sets) >= maxProviders {
			v.sets = map[string]*keySet{}
		}
		ks = &keySet{}
		v.sets[id] = ks
	}
	return ks
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// pick finds a signing key: by kid, or the one key of its algorithm's
// type when the token names none.
func pick(set jose.JSONWebKeySet, kid, alg string) (jose.JSONWebKey, bool) {
	var match []jose.JSONWebKey
	for _, k := range set.Keys {
		if (k.Use != "" && k.Use != "sig") || !k.Valid() || !k.IsPublic() {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		if kid != "" && k.KeyID != kid {
			continue
		}
		match = append(match, k)
	}
	if len(match) != 1 {
		return jose.JSONWebKey{}, false
	}
	return match[0], true
}

// discovery is what is read of the discovery document.
type discovery struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// fetch reads the provider's discovery document and then its keys.
func (v *Verifier) fetch(ctx context.Context, p Provider) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	c := v.client(p.Thumbprints)
	b, err := v.get(ctx, c, strings.TrimSuffix(p.Issuer, "/")+"/.well-known/openid-configuration")
	if err != nil {
		return set, err
	}
	var d discovery
	if err := json.Unmarshal(b, &d); err != nil {
		return set, fmt.Errorf("%w: discovery document: %v", ErrFetch, err)
	}
	if d.Issuer != p.Issuer {
		return set, fmt.Errorf("%w: the discovery document names issuer %q, not %q", ErrFetch, d.Issuer, p.Issuer)
	}
	if b, err = v.get(ctx, c, d.JWKSURI); err != nil {
		return set, err
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return set, fmt.Errorf("%w: keys: %v", ErrFetch, err)
	}
	return set, nil
}

// Discovery is what console sign-in reads of a provider's discovery
// document: where to send the browser, where to exchange the code, and
// where to end the provider's session (RP-initiated logout; "" = none).
type Discovery struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	EndSessionEndpoint    string   `json:"end_session_endpoint"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
}

// Discover fetches p's discovery document through the guarded client
// (https only, reachable addresses, p's thumbprints, bounded in time and
// size) and checks that it names p's issuer and https endpoints.
func (v *Verifier) Discover(ctx context.Context, p Provider) (Discovery, error) {
	var d Discovery
	b, err := v.get(ctx, v.client(p.Thumbprints), strings.TrimSuffix(p.Issuer, "/")+"/.well-known/openid-configuration")
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%w: discovery document: %v", ErrFetch, err)
	}
	if d.Issuer != p.Issuer {
		return d, fmt.Errorf("%w: the discovery document names issuer %q, not %q", ErrFetch, d.Issuer, p.Issuer)
	}
	for name, u := range map[string]string{"authorization_endpoint": d.AuthorizationEndpoint, "token_endpoint": d.TokenEndpoint, "end_session_endpoint": d.EndSessionEndpoint} {
		if u == "" && name == "end_session_endpoint" {
			continue
		}
		if !strings.HasPrefix(u, "https://") {
			return d, fmt.Errorf("%w: the discovery document's %s %q is not an https URL", ErrFetch, name, u)
		}
	}
	return d, nil
}

// Client is the guarded HTTP client of p's fetches, for calls the
// package does not make itself (the token exchange): https only in
// redirects, reachable addresses only, p's thumbprints, bounded in time.
func (v *Verifier) Client(p Provider) *http.Client { return v.client(p.Thumbprints) }

// Timeout is how long one fetch may take.
func (v *Verifier) Timeout() time.Duration { return v.opt.Timeout }
