package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchDirectory is returned for a tenant that has no directory.
var ErrNoSuchDirectory = errors.New("catalog: no such directory")

// Directory is a tenant's LDAP or Active Directory connection (package
// directory): where its users come from.
type Directory struct {
	Tenant string
	// Config is the connection, bases, filters and mappings, as package
	// directory encodes them.
	Config string
	// SecretSealed is the bind password, sealed under the node key
	// (iam.Sealer) with "directory:" and the tenant as context.
	SecretSealed     []byte
	Created, Updated time.Time
	// LastSync is when the last sync ended (zero: none yet); LastResult
	// what it did, as package directory encodes it.
	LastSync   time.Time
	LastResult string
}

// DirectoryUser links a tenant's user to its directory entry.
type DirectoryUser struct {
	Tenant, User string
	// ExternalID is the entry's stable id (entryUUID, objectGUID): an
	// entry renamed or moved in the directory stays the same user.
	ExternalID  string
	Login       string // the login name the directory gave last
	DN          string
	DisplayName string
	Groups      []string // names of the directory groups it is in
	Synced      time.Time
}

// DirectoryGroup is a group the last sync found in a tenant's directory.
type DirectoryGroup struct {
	Tenant     string
	ExternalID string
	Name, DN   string
	Role       string // the role it gives ("" = none)
	Members    int    // members the sync imported
}

// Directories keeps tenants' directories, the links of users to their
// entries, and the groups found. Writes that change a user (ImportDirectoryUser,
// SetUserDisabled) advance the identity generation, so that every node
// drops what it cached of the user; the directory's own records do not.
type Directories interface {
	// PutDirectory creates or replaces a tenant's directory settings and
	// secret, keeping its creation time and last sync: ErrNoSuchTenant.
	PutDirectory(ctx context.Context, d Directory) error
	// GetDirectory returns one: ErrNoSuchDirectory.
	GetDirectory(ctx context.Context, tenant string) (Directory, error)
	// ListDirectories returns every tenant's, by tenant.
	ListDirectories(ctx context.Context) ([]Directory, error)
	// DeleteDirectory removes a tenant's directory and its groups
	// (ErrNoSuchDirectory). Its users and their links stay: a directory
	// connected again finds them by their external ids.
	DeleteDirectory(ctx context.Context, tenant string) error
	// RecordDirectorySync records a sync's end and result.
	RecordDirectorySync(ctx context.Context, tenant string, at time.Time, result string) error

	// ImportDirectoryUser makes the tenant's user linked to
	// link.ExternalID what the directory says, in one transaction: a
	// linked user gets u's Role, Email and Disabled (its name stays, and
	// link's login, DN, display name and groups are recorded); with none
	// linked, the user link.User is created from u and linked, unless a
	// user of that name exists (ErrUserExists: a user is never taken
	// over). An e-mail address another user has is left out rather than
	// refused. It returns the user as it is now and whether anything
	// of the user changed (then the identity generation advanced).
	ImportDirectoryUser(ctx context.Context, link DirectoryUser, u User) (User, bool, error)
	// DirectoryUsers lists the tenant's linked users, by name.
	DirectoryUsers(ctx context.Context, tenant string) ([]DirectoryUser, error)
	// DirectoryUser returns the link of an external id; DirectoryUserByLogin
	// the link whose last login name is login: ErrNoSuchUser.
	DirectoryUser(ctx context.Context, tenant, externalID string) (DirectoryUser, error)
	DirectoryUserByLogin(ctx context.Context, tenant, login string) (DirectoryUser, error)
	// SetUserDisabled disables or enables a user (ErrNoSuchUser).
	// Disabling ends the user's console sessions in the same
	// transaction; its keys stop signing as every node drops them.
	SetUserDisabled(ctx context.Context, tenant, name string, disabled bool) error

	// ReplaceDirectoryGroups replaces the tenant's groups with gs.
	ReplaceDirectoryGroups(ctx context.Context, tenant string, gs []DirectoryGroup) error
	// DirectoryGroups lists them by name.
	DirectoryGroups(ctx context.Context, tenant string) ([]DirectoryGroup, error)
}
