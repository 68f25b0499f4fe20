package iam

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// roleGetter is what the keyring needs of the catalog's IAM entities.
type roleGetter interface {
	GetRole(ctx context.Context, tenant, name string) (catalog.Role, error)
}

// RoleCanonicalID is the canonical id (64 hex digits, as S3's) a role's
// sessions own what they create by: one per role, never a user's.
func RoleCanonicalID(tenant, roleID string) string {
	h := sha256.Sum256([]byte("role\x00" + tenant + "\x00" + roleID))
	return hex.EncodeToString(h[:])
}

// loadRoleSession resolves an assumed role's session while its role
// exists as the role it was issued for (rec.Owner is the role's unique
// id): unlike AWS, which lets a deleted role's sessions run until they
// expire, deleting the role here ends them, on every node (the deletion
// moves the identity generation). The user who assumed the role is not
// consulted, as on AWS: the session is the role's, and acts as no user
// (User is empty, so nothing that serves a user's own name, such as
// IAM's GetUser without UserName, takes it for the user who assumed).
func (k *Keyring) loadRoleSession(ctx context.Context, rec catalog.TempCred, now time.Time, miss func() (cachedKey, error)) (cachedKey, error) {
	roles, ok := k.store.(roleGetter)
	if !ok {
		return miss()
	}
	role, err := roles.GetRole(ctx, rec.Tenant, rec.RoleName)
	if errors.Is(err, catalog.ErrNoSuchEntity) || (err == nil && role.ID != rec.Owner) {
		return miss()
	}
	if err != nil {
		return cachedKey{}, fmt.Errorf("iam: look up role of %s: %w", rec.AccessKey, err)
	}
	id := &Identity{CanonicalID: RoleCanonicalID(rec.Tenant, role.ID), DisplayName: role.Name, Tenant: rec.Tenant,
		Role: catalog.RoleUser, AssumedRole: role.Name, RoleID: role.ID}
	return k.session(ctx, rec, id, principalRole, role.Name, now)
}

// TrustKeys gives a trust policy's evaluation the condition keys of the
// caller assuming a role (aws:PrincipalTag/..., aws:PrincipalArn,
// aws:userid, ...), the role's tenant being the resource's account.
func TrustKeys(id *Identity, account string) bucketpolicy.Keys {
	return &requestKeys{id: id, account: account, now: time.Now()}
}
