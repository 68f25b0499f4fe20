package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
)

// SetDirectories gives the API the node's directory service (tenants'
// LDAP and Active Directory directories).
func (s *Service) SetDirectories(d *directory.Service) { s.dir = d }

func init() { routes = append(routes, directoryRoutes...) }

// directoryRoutes connect a tenant to its directory; the provider or the
// tenant's admins call them.
var directoryRoutes = []route{
	{"GET", "/tenants/{tenant}/directory", "GetDirectory", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetDirectory(r.Context(), id, r.PathValue("tenant")))
	}},
	{"PUT", "/tenants/{tenant}/directory", "PutDirectory", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in DirectoryIn
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.PutDirectory(r.Context(), id, r.PathValue("tenant"), in))
	}},
	{"DELETE", "/tenants/{tenant}/directory", "DeleteDirectory", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteDirectory(r.Context(), id, r.PathValue("tenant"))
	}},
	{"POST", "/tenants/{tenant}/directory/sync", "SyncDirectory", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SyncDirectory(r.Context(), id, r.PathValue("tenant")))
	}},
	{"GET", "/tenants/{tenant}/directory/users", "ListDirectoryUsers", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListDirectoryUsers(r.Context(), id, r.PathValue("tenant")))
	}},
	{"GET", "/tenants/{tenant}/directory/groups", "ListDirectoryGroups", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListDirectoryGroups(r.Context(), id, r.PathValue("tenant")))
	}},
}

// DirectoryIn is a directory's settings as put: the config, and the
// bind password ("" keeps the one stored).
type DirectoryIn struct {
	directory.Config
	BindPassword string `json:"bind_password,omitempty"`
}

// Directory is a tenant's directory as the API shows it: never its
// password.
type Directory struct {
	Tenant string           `json:"tenant"`
	Config directory.Config `json:"config"`
	// LastSync is when the last sync ended (absent: none yet), and
	// LastResult what it did.
	LastSync   *time.Time        `json:"last_sync,omitempty"`
	LastResult *directory.Result `json:"last_result,omitempty"`
	Updated    time.Time         `json:"updated"`
}

// DirectoryUser is a tenant's user linked to its directory entry.
type DirectoryUser struct {
	User        string    `json:"user"`
	Login       string    `json:"login"`
	ExternalID  string    `json:"external_id"`
	DN          string    `json:"dn"`
	DisplayName string    `json:"display_name,omitempty"`
	Groups      []string  `json:"groups"`
	Role        string    `json:"role"`
	Disabled    bool      `json:"disabled"`
	Synced      time.Time `json:"synced"`
}

// DirectoryGroup is a group the last sync found.
type DirectoryGroup struct {
	Name       string `json:"name"`
	DN         string `json:"dn"`
	ExternalID string `json:"external_id"`
	Role       string `json:"role,omitempty"`
	Members    int    `json:"members"`
}

func (s *Service) directories(id *iam.Identity, tenant string) (catalog.Directories, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	d, ok := s.cat.(catalog.Directories)
	if !ok || s.dir == nil {
		return nil, newErr(http.StatusNotImplemented, "NotImplemented", "This node has no directory service")
	}
	return d, nil
}

func directoryErr(err error) error {
	var ce *directory.ConfigError
	switch {
	case errors.As(err, &ce):
		return newErr(http.StatusBadRequest, "InvalidDirectory", "%v", ce.Err)
	case errors.Is(err, catalog.ErrNoSuchDirectory):
		return newErr(http.StatusNotFound, "NoSuchDirectory", "The tenant has no directory")
	case errors.Is(err, directory.ErrSyncRunning):
		return newErr(http.StatusConflict, "SyncRunning", "A sync of this directory is running; try again when it ends")
	}
	return apiErr(err)
}

// GetDirectory returns a tenant's directory.
func (s *Service) GetDirectory(ctx context.Context, id *iam.Identity, tenant string) (Directory, error) {
	ds, err := s.directories(id, tenant)
	if err != nil {
		return Directory{}, err
	}
	d, err := ds.GetDirectory(ctx, tenant)
	if err != nil {
		return Directory{}, directoryErr(err)
	}
	return directoryOut(d)
}

func directoryOut(d catalog.Directory) (Directory, error) {
	cfg, err := directory.Of(d)
	if err != nil {
		return Directory{}, err
	}
	out := Directory{Tenant: d.Tenant, Config: cfg, Updated: d.Updated}
	if !d.LastSync.IsZero() {
		at := d.LastSync
		out.LastSync = &at
		if r, err := directory.DecodeResult(d.LastResult); err == nil {
			out.LastResult = &r
		}
	}
	return out, nil
}

// PutDirectory connects a tenant to its directory, or changes the
// connection. Plain ldap:// (allow_plain) is the provider's to allow: a
// tenant's admin cannot send the bind password in the clear.
func (s *Service) PutDirectory(ctx context.Context, id *iam.Identity, tenant string, in DirectoryIn) (Directory, error) {
	ds, err := s.directories(id, tenant)
	if err != nil {
		return Directory{}, err
	}
	if in.AllowPlain && allow(id, "") != nil {
		return Directory{}, newErr(http.StatusForbidden, "AccessDenied", "Only the provider may allow plain LDAP (allow_plain)")
	}
	if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
		return Directory{}, apiErr(err)
	}
	if _, err := s.dir.Configure(ctx, tenant, in.Config, in.BindPassword); err != nil {
		return Directory{}, directoryErr(err)
	}
	d, err := ds.GetDirectory(ctx, tenant)
	if err != nil {
		return Directory{}, directoryErr(err)
	}
	return directoryOut(d)
}

// DeleteDirectory disconnects a tenant's directory. Its users stay, and
// keep their keys; none can sign in with a directory password until a
// directory is connected again (which finds them by their entries' ids).
func (s *Service) DeleteDirectory(ctx context.Context, id *iam.Identity, tenant string) error {
	ds, err := s.directories(id, tenant)
	if err != nil {
		return err
	}
	return directoryErr(ds.DeleteDirectory(ctx, tenant))
}

// SyncDirectory syncs a tenant's directory now and returns what it did.
// A sync that fails answers 502 DirectorySyncFailed with the reason;
// it is recorded as the last result too.
func (s *Service) SyncDirectory(ctx context.Context, id *iam.Identity, tenant string) (directory.Result, error) {
	if _, err := s.directories(id, tenant); err != nil {
		return directory.Result{}, err
	}
	res, err := s.dir.Sync(ctx, tenant)
	switch {
	case err == nil:
		s.keys.Flush()
		return res, nil
	case errors.Is(err, catalog.ErrNoSuchDirectory), errors.Is(err, directory.ErrSyncRunning):
		return res, directoryErr(err)
	case !res.Started.IsZero():
		s.keys.Flush() // it may have changed users before it failed
		return res, newErr(http.StatusBadGateway, "DirectorySyncFailed", "%v", err)
	}
	return res, err
}

// ListDirectoryUsers lists the tenant's users linked to its directory.
func (s *Service) ListDirectoryUsers(ctx context.Context, id *iam.Identity, tenant string) ([]DirectoryUser, error) {
	ds, err := s.directories(id, tenant)
	if err != nil {
		return nil, err
	}
	links, err := ds.DirectoryUsers(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	byName, err := s.usersByName(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := []DirectoryUser{}
	for _, l := range links {
		u := byName[l.User]
		out = append(out, DirectoryUser{User: l.User, Login: l.Login, ExternalID: l.ExternalID, DN: l.DN, DisplayName: l.DisplayName,
			Groups: append([]string{}, l.Groups...), Role: u.Role, Disabled: u.Disabled, Synced: l.Synced})
	}
	return out, nil
}

// ListDirectoryGroups lists the groups the last sync found.
func (s *Service) ListDirectoryGroups(ctx context.Context, id *iam.Identity, tenant string) ([]DirectoryGroup, error) {
	ds, err := s.directories(id, tenant)
	if err != nil {
		return nil, err
	}
	gs, err := ds.DirectoryGroups(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	out := []DirectoryGroup{}
	for _, g := range gs {
		out = append(out, DirectoryGroup{Name: g.Name, DN: g.DN, ExternalID: g.ExternalID, Role: g.Role, Members: g.Members})
	}
	return out, nil
}

// usersByName maps a tenant's users by name: the users that lists of
// links (directory, identity provider) name.
func (s *Service) usersByName(ctx context.Context, tenant string) (map[string]catalog.User, error) {
	users, err := s.cat.ListUsers(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	byName := make(map[string]catalog.User, len(users))
	for _, u := range users {
		byName[u.Name] = u
	}
	return byName, nil
}
