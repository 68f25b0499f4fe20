package replication

import (
	"context"
	"errors"

	"github.com/ostiumio/ostium/internal/catalog"
)

// ResolveTarget finds the remote endpoint a bucket of tenant names: the
// tenant's own target of that name, else one the provider shares; the
// provider's buckets (tenant "") use the provider's targets.
// catalog.ErrNoSuchReplicationTarget when there is none it may use.
func ResolveTarget(ctx context.Context, targets catalog.ReplicationTargets, tenant, name string) (catalog.ReplicationTarget, error) {
	if tenant != "" {
		t, err := targets.GetReplicationTarget(ctx, tenant, name)
		if !errors.Is(err, catalog.ErrNoSuchReplicationTarget) {
			return t, err
		}
	}
	t, err := targets.GetReplicationTarget(ctx, "", name)
	if err != nil {
		return t, err
	}
	if tenant != "" && !t.Shared {
		return catalog.ReplicationTarget{}, catalog.ErrNoSuchReplicationTarget
	}
	return t, nil
}

// TargetSealContext binds a target's sealed secret to its row, so that
// it cannot be moved to another target.
func TargetSealContext(tenant, name string) string {
	return "replication-target\x00" + tenant + "\x00" + name
}
