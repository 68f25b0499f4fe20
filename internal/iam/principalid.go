package iam

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/ostiumio/ostium/internal/catalog"
)

// PrincipalIdentity returns the identity that a tenant's user (kind
// catalog.PrincipalUser) acts as with its own access key, or that a
// session of a role (catalog.PrincipalRole) acts as without session
// policies: the same policies and tags the keyring gives their
// requests, for explaining decisions. ErrNoSuchUser, ErrNoSuchEntity.
func (k *Keyring) PrincipalIdentity(ctx context.Context, tenant, kind, name string) (*Identity, error) {
	st, err := k.tenant(ctx, tenant)
	if err != nil {
		return nil, err
	}
	var id *Identity
	switch kind {
	case catalog.PrincipalUser:
		u, err := k.store.GetUser(ctx, tenant, name)
		if err != nil {
			return nil, fmt.Errorf("iam: user %s/%s: %w", tenant, name, err)
		}
		id = &Identity{CanonicalID: u.CanonicalID, DisplayName: u.Name, Tenant: tenant, User: u.Name, Role: u.Role,
			Suspended: st.suspended || u.Disabled}
	case catalog.PrincipalRole:
		roles, ok := k.store.(roleGetter)
		if !ok {
			return nil, fmt.Errorf("iam: role %s/%s: %w", tenant, name, catalog.ErrNoSuchEntity)
		}
		r, err := roles.GetRole(ctx, tenant, name)
		if err != nil {
			return nil, fmt.Errorf("iam: role %s/%s: %w", tenant, name, err)
		}
		id = &Identity{CanonicalID: RoleCanonicalID(tenant, r.ID), DisplayName: r.Name, Tenant: tenant,
			Role: catalog.RoleUser, AssumedRole: r.Name, RoleID: r.ID, SessionName: "explain", Suspended: st.suspended}
		name = r.Name
	default:
		return nil, errors.New("iam: a principal is a user or a role")
	}
	id.TenantID = st.id
	p, err := k.principal(ctx, kind, tenant, name)
	if err != nil {
		return nil, err
	}
	id.Policies, id.Tags = p.policies, maps.Clone(p.tags)
	return id, nil
}
