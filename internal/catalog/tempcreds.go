package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchTempCred is returned for temporary credentials the catalog
// does not hold (never issued, or pruned after they expired).
var ErrNoSuchTempCred = errors.New("catalog: no such temporary credentials")

// TempCred is a set of temporary credentials (STS): an access key whose
// secret is sealed as a permanent key's, and a session token of which
// only the SHA-256 is kept. It acts for a tenant's user (GetSessionToken)
// or, once roles exist, for a role (RoleName and SessionName set).
type TempCred struct {
	AccessKey    string
	SecretSealed []byte
	TokenHash    []byte // SHA-256 of the session token
	Tenant       string
	User         string // the user who asked, or whose role session it is
	// Owner is the canonical id of the user (or role) when the session
	// was issued: a user deleted and created again under its name is a
	// new principal, whom the old sessions do not act for.
	Owner       string
	RoleName    string // "" unless an assumed role's session
	SessionName string
	Policy      string            // session policy (JSON), "" = none
	Tags        map[string]string // session tags
	Created     time.Time
	Expires     time.Time
}

// TempCreds is the catalog's part for temporary credentials. Issuing one
// does not move the identity generation (nothing cached can hold a key
// not yet issued); ending a user's sessions is the user's deletion's,
// which does.
type TempCreds interface {
	// PutTempCred stores s; ErrAccessKeyExists if its access key is taken.
	PutTempCred(ctx context.Context, c TempCred) error
	// GetTempCred returns the session of an access key, expired or not
	// (ErrNoSuchTempCred once pruned).
	GetTempCred(ctx context.Context, accessKey string) (TempCred, error)
	// DeleteExpiredTempCreds removes the sessions that expired before
	// before and reports how many.
	DeleteExpiredTempCreds(ctx context.Context, before time.Time) (int, error)
}
