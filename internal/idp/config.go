// Package idp signs people in to the console through OpenID Connect
// providers (Keycloak, Entra ID, Okta, Dex, Hydra): the authorization
// code flow with PKCE (S256), state and nonce, the provider's endpoints
// from its discovery document and its ID token verified by package oidc
// (signature from its keys, iss, aud, exp, nbf, nonce, azp), every fetch
// through oidc's guarded client so that oidc_allow_networks applies.
// The token's claims map to a tenant, a user, its groups and its role.
//
// A provider is registered by the provider of the service for every
// tenant (a claim then names the tenant) or by a tenant for itself; its
// client secret is sealed under the node key like other secrets.
package idp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Config is a registered provider: where it is, the client the console
// is to it, and how its claims map. The catalog keeps it encoded; the
// client secret is kept apart, sealed.
type Config struct {
	// DisplayName is what the sign-in button says ("Sign in with
	// DisplayName"; "" = the provider's name).
	DisplayName string `json:"display_name,omitempty"`
	// Issuer is the provider's issuer URL (https), as its tokens' iss.
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
	// Scopes asked for besides openid (default profile and email; add
	// groups where the provider sends groups only when asked).
	Scopes []string `json:"scopes,omitempty"`
	// Thumbprints pin the certificate the provider is served with, as
	// IAM's OpenID Connect providers do (SHA-1 of the top certificate
	// served, hex); none: the node's roots verify it.
	Thumbprints []string `json:"thumbprints,omitempty"`

	// UserClaim names the user (default preferred_username); its value
	// must be a valid user name, or the sign-in is refused.
	UserClaim string `json:"user_claim,omitempty"`
	// GroupsClaim holds the user's groups, a list of strings (default
	// groups; a missing claim is no groups).
	GroupsClaim string `json:"groups_claim,omitempty"`
	// TenantClaim names the tenant. The provider's own identity
	// providers need one; a tenant's may name one, and then a token
	// whose claim is not that tenant is refused.
	TenantClaim string `json:"tenant_claim,omitempty"`

	// AdminGroups and UserGroups name groups whose members get the role
	// admin or user; a member of both is an admin. With UserGroups empty
	// everyone the provider signs in is a user (an admin if an admin
	// group says so); otherwise only members of a mapped group may sign
	// in.
	AdminGroups []string `json:"admin_groups,omitempty"`
	UserGroups  []string `json:"user_groups,omitempty"`
	// IAMGroups maps the provider's groups to IAM groups of the tenant:
	// each sign-in makes the user a member of those its groups map to,
	// and no longer of the others the mapping names, as directories do.
	IAMGroups map[string]string `json:"iam_groups,omitempty"`
	// CreateUsers: a user signing in for the first time is created.
	// Otherwise only users the tenant made beforehand (with the name the
	// user claim gives) or linked before may sign in.
	CreateUsers bool `json:"create_users,omitempty"`
}

// Defaults.
const (
	DefaultUserClaim   = "preferred_username"
	DefaultGroupsClaim = "groups"
	maxListed          = 100
)

var (
	defaultScopes = []string{"profile", "email"}
	claimName     = regexp.MustCompile(`^[A-Za-z0-9_:/.-]{1,128}$`)
	scopeName     = regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]{1,128}$`)
	// Name is the rule for a provider's name (in URLs and the audit log).
	Name = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	// iamGroupName is IAM's rule for a group's name.
	iamGroupName = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,128}$`)
)

// WithDefaults fills what is left out.
func (c Config) WithDefaults() Config {
	if c.UserClaim == "" {
		c.UserClaim = DefaultUserClaim
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = DefaultGroupsClaim
	}
	if len(c.Scopes) == 0 {
		c.Scopes = slices.Clone(defaultScopes)
	}
	return c
}

// ConfigError is a configuration refused, with why.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "idp: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// Validate checks c for a provider of tenant ("" = the provider's own,
// for every tenant).
func (c Config) Validate(tenant string) error {
	u, err := url.Parse(c.Issuer)
	switch {
	case c.Issuer == "" || err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("issuer: %q is not an https URL without query or fragment", c.Issuer)
	case c.ClientID == "" || len(c.ClientID) > 256:
		return errors.New("client_id: 1 to 256 characters")
	case len(c.DisplayName) > 64 || strings.ContainsAny(c.DisplayName, "\x00\r\n<>"):
		return errors.New("display_name: at most 64 characters, no markup")
	case tenant == "" && c.TenantClaim == "":
		return errors.New("tenant_claim: the provider's identity providers name the tenant in a claim")
	case len(c.Scopes) > 20:
		return errors.New("scopes: at most 20")
	case len(c.AdminGroups)+len(c.UserGroups)+len(c.IAMGroups) > maxListed:
		return fmt.Errorf("admin_groups, user_groups, iam_groups: at most %d groups", maxListed)
	case len(c.Thumbprints) > 5:
		return errors.New("thumbprints: at most 5")
	}
	for name, v := range map[string]string{"user_claim": c.UserClaim, "groups_claim": c.GroupsClaim, "tenant_claim": c.TenantClaim} {
		if v != "" && !claimName.MatchString(v) {
			return fmt.Errorf("%s: %q is not a claim name", name, v)
		}
	}
	for _, s := range c.Scopes {
		if !scopeName.MatchString(s) {
			return fmt.Errorf("scopes: %q is not a scope", s)
		}
	}
	for _, tp := range c.Thumbprints {
		if len(tp) != 40 || strings.Trim(strings.ToLower(tp), "0123456789abcdef") != "" {
			return fmt.Errorf("thumbprints: %q is not 40 hex digits", tp)
		}
	}
	for _, g := range slices.Concat(c.AdminGroups, c.UserGroups) {
		if g == "" || len(g) > 256 || strings.ContainsAny(g, "\n\x00") {
			return fmt.Errorf("groups: %q is not a group name", g)
		}
	}
	for g, ig := range c.IAMGroups {
		if g == "" || len(g) > 256 || strings.ContainsAny(g, "\n\x00") {
			return fmt.Errorf("iam_groups: %q is not a group name", g)
		}
		if !iamGroupName.MatchString(ig) {
			return fmt.Errorf("iam_groups: %q is not an IAM group name", ig)
		}
	}
	return nil
}

// Encode is c as the catalog keeps it.
func (c Config) Encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Of decodes a stored provider's config.
func Of(p catalog.IdentityProvider) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(p.Config), &c); err != nil {
		return c, fmt.Errorf("idp: config of %s: %w", p.Name, err)
	}
	return c.WithDefaults(), nil
}

// Label is the name the sign-in button shows.
func (c Config) Label(name string) string {
	if c.DisplayName != "" {
		return c.DisplayName
	}
	return name
}
