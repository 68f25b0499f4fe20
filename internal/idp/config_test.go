package idp

import (
	"strings"
	"testing"
)

// Validate refuses what would make a provider unsafe or unusable: a
// plain-http or query-carrying issuer, a provider-wide one without the
// claim naming the tenant, claims and groups that are not names, too
// many groups; ValidReturn admits console paths alone.
func TestValidate(t *testing.T) {
	good := Config{Issuer: "https://sso.example/realms/x", ClientID: "ostium"}.WithDefaults()
	if err := good.Validate("acme"); err != nil {
		t.Fatalf("a tenant's: %v", err)
	}
	for name, c := range map[string]Config{
		"http issuer":          {Issuer: "http://sso.example", ClientID: "c"},
		"issuer with a query":  {Issuer: "https://sso.example/?x=1", ClientID: "c"},
		"issuer with userinfo": {Issuer: "https://u:p@sso.example", ClientID: "c"},
		"no client id":         {Issuer: "https://sso.example"},
		"markup in the label":  {Issuer: "https://sso.example", ClientID: "c", DisplayName: "<img src=x>"},
		"a claim that is none": {Issuer: "https://sso.example", ClientID: "c", UserClaim: "a b"},
		"a scope with a space": {Issuer: "https://sso.example", ClientID: "c", Scopes: []string{"a b"}},
		"a bad thumbprint":     {Issuer: "https://sso.example", ClientID: "c", Thumbprints: []string{"xyz"}},
		"a bad IAM group":      {Issuer: "https://sso.example", ClientID: "c", IAMGroups: map[string]string{"g": "a/b"}},
		"too many groups":      {Issuer: "https://sso.example", ClientID: "c", AdminGroups: strings.Split(strings.Repeat("g,", 101), ",")},
	} {
		if err := c.WithDefaults().Validate("acme"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := good.Validate(""); err == nil || !strings.Contains(err.Error(), "tenant_claim") {
		t.Fatalf("the provider's without a tenant claim: %v", err)
	}
	good.TenantClaim = "ostium_tenant"
	if err := good.Validate(""); err != nil {
		t.Fatalf("the provider's: %v", err)
	}
	for ret, want := range map[string]bool{
		"/console/": true, "/console/#/buckets?x=1": true, "/console/#/objects/b/a%2Fb": true,
		"": false, "/": false, "/admin/": false, "https://evil.example/console/": false, "//evil.example/console/": false,
		"/console/\\evil": false, "/console/../x": false, "/console/..": false, "/console/\r\nSet-Cookie: x": false,
		"/console/" + strings.Repeat("a", MaxReturn): false,
	} {
		if ValidReturn(ret) != want {
			t.Errorf("ValidReturn(%q) = %v", ret, !want)
		}
	}
}
