// Package policytest keeps identity-based policies and principal tags
// in a real catalog for tests, through the catalog's provider settings,
// until the catalog has IAM tables of its own: it implements
// catalog.IdentityPolicies and catalog.PrincipalTags, and every change
// advances the identity generation as the real tables must, so that
// nodes drop what they cached. Tests hand it to iam.Keyring's
// SetPolicySource.
package policytest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Store is the stand-in over a catalog's provider settings.
type Store struct{ S catalog.ProviderSettings }

var (
	_ catalog.IdentityPolicies = Store{}
	_ catalog.PrincipalTags    = Store{}
)

func setting(what, kind, tenant, name string) string {
	return "test-" + what + ":" + kind + "/" + tenant + "/" + name
}

func (s Store) put(ctx context.Context, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.S.SetProviderSetting(ctx, name, string(b))
}

func (s Store) get(ctx context.Context, name string, v any) error {
	raw, err := s.S.ProviderSetting(ctx, name)
	if err != nil || raw == "" {
		return err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("policytest: %s: %w", name, err)
	}
	return nil
}

// SetUserPolicies replaces the policy documents that apply to a user.
func (s Store) SetUserPolicies(ctx context.Context, tenant, user string, docs ...string) error {
	return s.put(ctx, setting("policies", "user", tenant, user), docs)
}

// SetRolePolicies replaces the policy documents of a role.
func (s Store) SetRolePolicies(ctx context.Context, tenant, role string, docs ...string) error {
	return s.put(ctx, setting("policies", "role", tenant, role), docs)
}

// SetUserTags replaces a user's tags.
func (s Store) SetUserTags(ctx context.Context, tenant, user string, tags map[string]string) error {
	return s.put(ctx, setting("tags", "user", tenant, user), tags)
}

func (s Store) UserPolicies(ctx context.Context, tenant, user string) ([]string, error) {
	var docs []string
	return docs, s.get(ctx, setting("policies", "user", tenant, user), &docs)
}

func (s Store) RolePolicies(ctx context.Context, tenant, role string) ([]string, error) {
	var docs []string
	return docs, s.get(ctx, setting("policies", "role", tenant, role), &docs)
}

func (s Store) UserTags(ctx context.Context, tenant, user string) (map[string]string, error) {
	var tags map[string]string
	return tags, s.get(ctx, setting("tags", "user", tenant, user), &tags)
}

func (s Store) RoleTags(ctx context.Context, tenant, role string) (map[string]string, error) {
	var tags map[string]string
	return tags, s.get(ctx, setting("tags", "role", tenant, role), &tags)
}
