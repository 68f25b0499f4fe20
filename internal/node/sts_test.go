package node_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/oidc"
)

// oidc_allow_networks is read as CIDRs, and is what lets the node's
// verifier reach an identity provider on loopback: without it the same
// provider is refused.
func TestOIDCAllowNetworks(t *testing.T) {
	c, err := node.ParseConfig([]byte("data: d\noidc_allow_networks: [127.0.0.0/8, 10.30.0.0/16]\n"))
	if err != nil || len(c.STS.OIDCAllowNetworks) != 2 {
		t.Fatalf("parsed %+v %v", c.STS, err)
	}
	for _, doc := range []string{"data: d\noidc_allow_networks: [10.0.0.1]", "data: d\noidc_allow_networks: [lan]"} {
		if _, err := node.ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), "oidc_allow_networks") {
			t.Errorf("%q: error %v does not name oidc_allow_networks", doc, err)
		}
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var idp *httptest.Server
	idp = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"issuer": idp.URL, "jwks_uri": idp.URL + "/keys"})
		case "/keys":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k", Algorithm: "ES256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer idp.Close()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: key, KeyID: "k"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: idp.URL, Audience: jwt.Audience{"app"}, Subject: "u",
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	p := oidc.Provider{Issuer: idp.URL, ClientIDs: []string{"app"}, Thumbprints: []string{oidc.Thumbprint([]*x509.Certificate{idp.Certificate()})}}

	allowed := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.STS.OIDCAllowNetworks = []string{"127.0.0.0/8"} }})
	if _, err := allowed.Node.OIDC.Verify(context.Background(), p, tok); err != nil {
		t.Errorf("loopback provider, allowed: %v", err)
	}
	refused := nodetest.Start(t, nodetest.Options{})
	if _, err := refused.Node.OIDC.Verify(context.Background(), p, tok); !errors.Is(err, oidc.ErrFetch) {
		t.Errorf("loopback provider, not allowed: %v", err)
	}
}
