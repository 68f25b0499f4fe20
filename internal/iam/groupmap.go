package iam

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// GroupChange is one IAM group membership that MapGroups made, took
// away, or could not make (Err: catalog.ErrNoSuchEntity for a mapped
// group that does not exist, catalog.ErrLimitExceeded for a user in as
// many groups as IAM allows).
type GroupChange struct {
	Group string
	Added bool
	Err   error
}

// MapGroups keeps a user's IAM groups in line with the groups an
// outside source (a directory, an identity provider) says it is in:
// mapping takes an outside group to an IAM group, and member tells
// whether the user is in an outside group. The user ends a member of
// each IAM group one of its groups maps to, and of no other group the
// mapping names; groups the mapping does not name are left as they are,
// so an admin's own memberships survive. IAM group names compare
// without case, as IAM's do.
func MapGroups(ctx context.Context, store catalog.IAM, tenant, user string, mapping map[string]string, member func(outside string) bool) ([]GroupChange, error) {
	if len(mapping) == 0 {
		return nil, nil
	}
	mapped, want := map[string]string{}, map[string]bool{}
	for outside, group := range mapping {
		k := strings.ToLower(group)
		mapped[k] = group
		if member(outside) {
			want[k] = true
		}
	}
	have, err := store.UserGroups(ctx, tenant, user)
	if err != nil {
		return nil, fmt.Errorf("IAM groups of %s: %w", user, err)
	}
	var changes []GroupChange
	in := map[string]bool{}
	for _, g := range have {
		k := strings.ToLower(g.Name)
		in[k] = true
		if _, ok := mapped[k]; !ok || want[k] {
			continue
		}
		switch err := store.RemoveUserFromGroup(ctx, tenant, g.Name, user); {
		case errors.Is(err, catalog.ErrNoSuchEntity):
		case err != nil:
			return changes, fmt.Errorf("remove %s from IAM group %s: %w", user, g.Name, err)
		default:
			changes = append(changes, GroupChange{Group: g.Name})
		}
	}
	for k := range want {
		if in[k] {
			continue
		}
		switch err := store.AddUserToGroup(ctx, tenant, mapped[k], user); {
		case errors.Is(err, catalog.ErrNoSuchEntity), errors.Is(err, catalog.ErrLimitExceeded):
			changes = append(changes, GroupChange{Group: mapped[k], Added: true, Err: err})
		case err != nil:
			return changes, fmt.Errorf("add %s to IAM group %s: %w", user, mapped[k], err)
		default:
			changes = append(changes, GroupChange{Group: mapped[k], Added: true})
		}
	}
	return changes, nil
}
