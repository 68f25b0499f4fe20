package oidc_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ostiumio/ostium/internal/oidc"
)

// issuer is a real HTTPS identity provider on loopback: its discovery
// document and its keys, which the test may rotate.
type issuer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jose.JSONWebKey // public
	// jwksURI overrides the discovery document's jwks_uri.
	jwksURI string
	fetches int
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		u := is.jwksURI
		is.mu.Unlock()
		if u == "" {
			u = is.srv.URL + "/keys"
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": u})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		is.fetches++
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.keys})
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"keys":[` + strings.Repeat(" ", 1<<20) + `]}`))
	})
	is.srv = httptest.NewTLSServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) setKeys(keys ...signingKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = nil
	for _, k := range keys {
		is.keys = append(is.keys, jose.JSONWebKey{Key: k.public, KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
	}
}

// thumbprint is the registered thumbprint of the issuer's served chain.
func (is *issuer) thumbprint() string {
	return oidc.Thumbprint([]*x509.Certificate{is.srv.Certificate()})
}

type signingKey struct {
	kid     string
	alg     jose.SignatureAlgorithm
	private any
	public  any
}

func rsaKey(t *testing.T, kid string) signingKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid, jose.RS256, k, &k.PublicKey}
}

func ecKey(t *testing.T, kid string) signingKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid, jose.ES256, k, &k.PublicKey}
}

// token signs claims with k.
func token(t *testing.T, k signingKey, c jwt.Claims, extra ...map[string]any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.private, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	b := jwt.Signed(s).Claims(c)
	for _, e := range extra {
		b = b.Claims(e)
	}
	raw, err := b.Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

func claims(is *issuer, aud string, exp time.Duration) jwt.Claims {
	now := time.Now()
	return jwt.Claims{Issuer: is.srv.URL, Subject: "system:serviceaccount:ns:app", Audience: jwt.Audience{aud},
		Expiry: jwt.NewNumericDate(now.Add(exp)), IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), NotBefore: jwt.NewNumericDate(now.Add(-time.Minute))}
}

func TestVerify(t *testing.T) {
	is := newIssuer(t)
	k1, k2 := rsaKey(t, "k1"), ecKey(t, "k2")
	is.setKeys(k1, k2)
	v := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback, MinRefetch: time.Nanosecond})
	p := oidc.Provider{Issuer: is.srv.URL, ClientIDs: []string{"sts.amazonaws.com"}, Thumbprints: []string{is.thumbprint()}}
	ctx := context.Background()

	for _, k := range []signingKey{k1, k2} {
		c, err := v.Verify(ctx, p, token(t, k, claims(is, "sts.amazonaws.com", time.Hour), map[string]any{"email": "a@example.com"}))
		if err != nil {
			t.Fatalf("%s token: %v", k.alg, err)
		}
		if c.Subject != "system:serviceaccount:ns:app" || c.Issuer != is.srv.URL || c.All["email"] != "a@example.com" {
			t.Fatalf("claims %+v", c)
		}
	}
	if iss, err := oidc.UnverifiedIssuer(token(t, k1, claims(is, "x", time.Hour))); err != nil || iss != is.srv.URL {
		t.Fatalf("UnverifiedIssuer: %q %v", iss, err)
	}
	if is.fetches != 1 {
		t.Errorf("keys fetched %d times for two tokens, want once (cached)", is.fetches)
	}

	bad := map[string]string{
		"wrong audience": token(t, k1, claims(is, "someone-else", time.Hour)),
		"another issuer": token(t, k1, func() jwt.Claims {
			c := claims(is, "sts.amazonaws.com", time.Hour)
			c.Issuer = "https://evil.example"
			return c
		}()),
		"not yet valid": token(t, k1, func() jwt.Claims {
			c := claims(is, "sts.amazonaws.com", 2*time.Hour)
			c.NotBefore = jwt.NewNumericDate(time.Now().Add(time.Hour))
			return c
		}()),
		"issued in the future": token(t, k1, func() jwt.Claims {
			c := claims(is, "sts.amazonaws.com", 2*time.Hour)
			c.IssuedAt = jwt.NewNumericDate(time.Now().Add(time.Hour))
			return c
		}()),
		"no expiry": token(t, k1, func() jwt.Claims { c := claims(is, "sts.amazonaws.com", time.Hour); c.Expiry = nil; return c }()),
		// Signed by a key the provider does not publish, under its kid.
		"forged under a known kid": token(t, rsaKey(t, "k1"), claims(is, "sts.amazonaws.com", time.Hour)),
		"unknown kid":              token(t, rsaKey(t, "k9"), claims(is, "sts.amazonaws.com", time.Hour)),
		"alg none":                 unsigned(claims(is, "sts.amazonaws.com", time.Hour)),
		"HS256 with the public key": func() string {
			s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("secret-shared-with-nobody")}, nil)
			raw, _ := jwt.Signed(s).Claims(claims(is, "sts.amazonaws.com", time.Hour)).Serialize()
			return raw
		}(),
		"garbage": "not.a.token",
	}
	for name, raw := range bad {
		if _, err := v.Verify(ctx, p, raw); !errors.Is(err, oidc.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if _, err := v.Verify(ctx, p, token(t, k1, claims(is, "sts.amazonaws.com", -2*time.Minute))); !errors.Is(err, oidc.ErrExpired) {
		t.Errorf("expired: %v", err)
	}

	// Rotation: a token under a new key makes the keys be fetched again;
	// the retired key's tokens no longer pass.
	k3 := rsaKey(t, "k3")
	is.setKeys(k3)
	if _, err := v.Verify(ctx, p, token(t, k3, claims(is, "sts.amazonaws.com", time.Hour))); err != nil {
		t.Fatalf("token of the rotated key: %v", err)
	}
	if _, err := v.Verify(ctx, p, token(t, k1, claims(is, "sts.amazonaws.com", time.Hour))); !errors.Is(err, oidc.ErrInvalidToken) {
		t.Errorf("token of the retired key: %v", err)
	}
}

// unsigned is a token with alg "none".
func unsigned(c jwt.Claims) string {
	b, _ := json.Marshal(c)
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(b) + "."
}

// Refetches on unknown key ids are spaced: made-up kids cannot have the
// node hammer a provider.
func TestRefetchSpaced(t *testing.T) {
	is := newIssuer(t)
	k1 := rsaKey(t, "k1")
	is.setKeys(k1)
	v := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback, MinRefetch: time.Hour})
	p := oidc.Provider{Issuer: is.srv.URL, ClientIDs: []string{"a"}, Thumbprints: []string{is.thumbprint()}}
	ctx := context.Background()
	if _, err := v.Verify(ctx, p, token(t, k1, claims(is, "a", time.Hour))); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		v.Verify(ctx, p, token(t, rsaKey(t, "made-up"), claims(is, "a", time.Hour)))
	}
	if is.fetches != 1 {
		t.Errorf("keys fetched %d times, want 1", is.fetches)
	}
}

// The fetches are pinned and guarded: a chain of another thumbprint, an
// issuer at a loopback address the node does not allow (by address or
// by a name resolving to it), keys served over plain http, and a
// document past the bound are all refused as the provider unreachable.
func TestFetchRefused(t *testing.T) {
	is := newIssuer(t)
	k1 := rsaKey(t, "k1")
	is.setKeys(k1)
	ctx := context.Background()
	tok := token(t, k1, claims(is, "a", time.Hour))
	good := oidc.Provider{Issuer: is.srv.URL, ClientIDs: []string{"a"}, Thumbprints: []string{is.thumbprint()}}

	wrong := good
	wrong.Thumbprints = []string{strings.Repeat("ab", 20)}
	if _, err := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback}).Verify(ctx, wrong, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "not one of the provider's thumbprints") {
		t.Errorf("wrong thumbprint: %v", err)
	}
	// No thumbprint: the chain must verify against the roots, which do
	// not hold the test's certificate.
	none := good
	none.Thumbprints = nil
	if _, err := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback}).Verify(ctx, none, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("untrusted chain, no thumbprint: %v", err)
	}
	if _, err := oidc.NewVerifier(oidc.Options{}).Verify(ctx, good, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "not a public address") {
		t.Errorf("loopback issuer, not allowed: %v", err)
	}
	// The name is not what is checked: localhost resolves to loopback,
	// and that is what the dialer sees.
	byName := good
	byName.Issuer = strings.Replace(is.srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := oidc.NewVerifier(oidc.Options{}).Verify(ctx, byName, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "not a public address") {
		t.Errorf("issuer by a name resolving to loopback: %v", err)
	}
	is.mu.Lock()
	is.jwksURI = strings.Replace(is.srv.URL, "https:", "http:", 1) + "/keys"
	is.mu.Unlock()
	if _, err := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback}).Verify(ctx, good, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "not an https URL") {
		t.Errorf("keys over plain http: %v", err)
	}
	// A redirect is checked as the first address was.
	is.mu.Lock()
	is.jwksURI = is.srv.URL + "/to-metadata"
	is.mu.Unlock()
	if _, err := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback}).Verify(ctx, good, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "169.254.169.254:443 is not a public address") {
		t.Errorf("keys redirected to the metadata address: %v", err)
	}
	is.mu.Lock()
	is.jwksURI = is.srv.URL + "/big"
	is.mu.Unlock()
	if _, err := oidc.NewVerifier(oidc.Options{AllowNetworks: loopback}).Verify(ctx, good, tok); !errors.Is(err, oidc.ErrFetch) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized keys document: %v", err)
	}
}

func TestReachable(t *testing.T) {
	all := []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	for _, c := range []struct {
		addr  string
		allow []netip.Prefix
		want  bool
	}{
		{"8.8.8.8", nil, true},
		{"2001:4860:4860::8888", nil, true},
		{"127.0.0.1", nil, false},
		{"127.0.0.1", loopback, true},
		{"10.1.2.3", nil, false},
		{"10.1.2.3", all, true},
		{"192.168.1.1", nil, false},
		{"100.64.0.1", nil, false},
		{"::1", nil, false},
		{"fc00::1", nil, false},
		{"0.0.0.0", all, false},
		// Never, whatever is allowed: link-local and metadata.
		{"169.254.169.254", all, false},
		{"::ffff:169.254.169.254", all, false},
		{"64:ff9b::a9fe:a9fe", all, false}, // 169.254.169.254 through NAT64
		{"fe80::1", all, false},
		{"fd00:ec2::254", all, false},
	} {
		if got := oidc.Reachable(netip.MustParseAddr(c.addr), c.allow); got != c.want {
			t.Errorf("Reachable(%s, %v) = %v, want %v", c.addr, c.allow, got, c.want)
		}
	}
}
