package iam

import (
	"context"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
)

// ErrUnknownUser is returned for a user that no longer exists, whose
// name now belongs to another user, or that is disabled.
var ErrUnknownUser = errors.New("iam: unknown user")

// UserIdentity returns the identity of a tenant's user signed in
// without an access key (the console's password sign-in): what a
// request signed with one of its own keys acts as (Lookup), with no
// access key and no application limits. canonicalID is the user's as
// it was at sign-in: a user deleted and created again under its name is
// another principal, and its sessions end with it.
func (k *Keyring) UserIdentity(ctx context.Context, tenant, user, canonicalID string) (*Identity, error) {
	u, err := k.store.GetUser(ctx, tenant, user)
	if errors.Is(err, catalog.ErrNoSuchUser) || err == nil && (u.CanonicalID != canonicalID || u.Disabled) {
		return nil, ErrUnknownUser
	}
	if err != nil {
		return nil, fmt.Errorf("iam: look up user %s/%s: %w", tenant, user, err)
	}
	st, err := k.tenant(ctx, tenant)
	if err != nil {
		return nil, err
	}
	p, err := k.principal(ctx, principalUser, tenant, u.Name)
	if err != nil {
		return nil, err
	}
	return &Identity{CanonicalID: u.CanonicalID, DisplayName: u.Name, Tenant: tenant, TenantID: st.id,
		User: u.Name, Role: u.Role, Suspended: st.suspended, Policies: p.policies, Tags: p.tags}, nil
}
