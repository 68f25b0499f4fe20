package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchNotifyTarget is returned for a notification target the
// catalog does not hold.
var ErrNoSuchNotifyTarget = errors.New("catalog: no such notification target")

// NotifyTarget is a destination of event notifications the provider
// enables (package notify): a webhook or a NATS subject, named by the ARN
// tenants put in their buckets' configurations.
type NotifyTarget struct {
	ARN      string
	Kind     string // "webhook" or "nats"
	Endpoint string // the webhook's https URL, or the nats:// server URL
	Subject  string // NATS subject; "" for a webhook
	// SecretSealed is the webhook's signing secret, sealed under the
	// node key with the ARN as context (iam.Sealer); empty for none.
	SecretSealed []byte
	// Tenants may name the target; "*" in it opens it to every tenant.
	// The provider's own buckets may name any target.
	Tenants   []string
	CreatedAt time.Time
}

// NotifyTargets keeps the provider's notification targets. They are read
// by the node that validates a configuration and by the delivery job, so
// their writes leave the identity generation alone.
type NotifyTargets interface {
	// PutNotifyTarget creates a target or replaces the one of its ARN.
	PutNotifyTarget(ctx context.Context, t NotifyTarget) error
	// NotifyTarget returns one (ErrNoSuchNotifyTarget).
	NotifyTarget(ctx context.Context, arn string) (NotifyTarget, error)
	// ListNotifyTargets returns every target by ARN.
	ListNotifyTargets(ctx context.Context) ([]NotifyTarget, error)
	// DeleteNotifyTarget removes one (ErrNoSuchNotifyTarget).
	DeleteNotifyTarget(ctx context.Context, arn string) error
}
