package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchReplicationTarget and ErrReplicationTargetExists are the
// answers about remote replication endpoints.
var (
	ErrNoSuchReplicationTarget = errors.New("catalog: no such replication target")
	ErrReplicationTargetExists = errors.New("catalog: replication target exists")
)

// ReplicationTarget is a remote S3 endpoint that replicas may go to:
// another Ostium site, AWS, MinIO, Ceph. The provider's (Tenant "") may
// be Shared with every tenant; a tenant's serve only its own buckets.
type ReplicationTarget struct {
	Tenant, Name string
	Endpoint     string // https://host[:port] (http only where the provider allows it)
	Region       string
	AccessKey    string
	SecretSealed []byte // sealed by the node key, bound to Tenant/Name
	Shared       bool
	PathStyle    bool
	Created      time.Time
}

// ReplicationTargets keeps the registered remote endpoints.
type ReplicationTargets interface {
	// AddReplicationTarget registers t: ErrReplicationTargetExists if its
	// tenant has one of that name, ErrNoSuchTenant if the tenant is gone.
	AddReplicationTarget(ctx context.Context, t ReplicationTarget) error
	GetReplicationTarget(ctx context.Context, tenant, name string) (ReplicationTarget, error)
	// ListReplicationTargets lists tenant's targets by name (tenant ""
	// the provider's).
	ListReplicationTargets(ctx context.Context, tenant string) ([]ReplicationTarget, error)
	DeleteReplicationTarget(ctx context.Context, tenant, name string) error // ErrNoSuchReplicationTarget
	// SetReplicationStatus sets a version's x-amz-replication-status
	// (Meta.Replication) with its key held; ErrNoSuchObject if the
	// version is gone. A version's other fields are left as they are.
	SetReplicationStatus(ctx context.Context, bucket, key, versionID, status string) error
	// SettleReplicationStatus is SetReplicationStatus for the outcome
	// of delivering event e (of e's version), checked with the key held:
	// while a later event of e's sink for the same version waits (a
	// change made since, on its way), the status is left as that change
	// set it, and that event's outcome settles it in turn. Events are
	// queued only with a status set, in its transaction (a failure's
	// notifications).
	SettleReplicationStatus(ctx context.Context, e Event, status string, events ...Event) error
}
