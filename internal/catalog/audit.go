package catalog

import (
	"context"
	"time"
)

// AuditEntry is one record of the audit log: who did what to what, when,
// from where, and how it ended.
type AuditEntry struct {
	// ID is given by the catalog as the entry is stored; it increases with
	// every entry, so listings page by it.
	ID   int64     `json:"id"`
	Time time.Time `json:"time"`
	// Who: the access key the call was signed with ("" = anonymous), and
	// the identity it resolved to (Tenant "" with Root for the provider).
	AccessKey string `json:"access_key,omitempty"`
	Tenant    string `json:"tenant,omitempty"`
	User      string `json:"user,omitempty"`
	Root      bool   `json:"root,omitempty"`
	// What: the action ("admin:CreateTenant", "s3:PutBucketPolicy") and
	// its target ("tenants/acme", "bucket/photos").
	Action string `json:"action"`
	Target string `json:"target,omitempty"`
	// Source is the client's address as the S3 layer computes it (behind
	// trusted proxies, the address they forwarded).
	Source string `json:"source,omitempty"`
	// Outcome is "ok" or the error code returned; Status the HTTP status.
	Outcome   string `json:"outcome"`
	Status    int    `json:"status"`
	RequestID string `json:"request_id,omitempty"`
}

// AuditQuery selects audit entries, oldest first.
type AuditQuery struct {
	From, To time.Time // From <= Time < To; zero = unbounded
	// Tenant selects the entries of callers of one tenant; Provider
	// selects those of callers of none (the root, anonymous callers).
	Tenant   string
	Provider bool
	After    int64 // entries with a larger ID
	Limit    int   // at most this many; the driver may cap it
}

// AuditLog is the catalog's part for the audit log. A store that keeps
// one satisfies it besides Store (type-assert).
type AuditLog interface {
	// AppendAudit stores e durably and returns the ID it was given.
	AppendAudit(ctx context.Context, e AuditEntry) (int64, error)
	ListAudit(ctx context.Context, q AuditQuery) ([]AuditEntry, error)
	// PruneAudit deletes up to limit of the entries older than before
	// and reports how many went.
	PruneAudit(ctx context.Context, before time.Time, limit int) (int, error)
}

// Where a root key came from (AccessKey.Source).
const (
	SourceEnv       = "env"       // OSTIUM_ROOT_* or the configuration, at start
	SourceGenerated = "generated" // made at the first start, when none was given
	SourceAPI       = "api"       // created or rotated through the admin API
)

// RootKeys is the catalog's part for the provider's start-up key. A store
// that has it satisfies it besides Store (type-assert).
type RootKeys interface {
	// ReplaceStartKey stores k (a root key from the environment) unless it
	// exists, and deletes every other root key of k.Source, in one
	// transaction: a key given at start replaces the one given before.
	ReplaceStartKey(ctx context.Context, k AccessKey) error
}
