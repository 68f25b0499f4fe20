package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// The lookups here serve APIs that name a record by something other than
// its place (an access key alone, a canonical user id), as OSIS does;
// they are the provider's alone, since they cross tenants.

// Bucket is a tenant's bucket as the provider lists it.
type Bucket struct {
	Name    string    `json:"name"`
	Owner   string    `json:"owner"` // the owner's canonical id
	Created time.Time `json:"created"`
}

// FindKey returns an access key (its secret left out) wherever it is.
func (s *Service) FindKey(ctx context.Context, id *iam.Identity, accessKey string) (Key, error) {
	if err := allow(id, ""); err != nil {
		return Key{}, err
	}
	k, err := s.cat.GetAccessKey(ctx, accessKey)
	if err == nil && k.Tenant == "" { // the provider's own keys are not a tenant's credentials
		err = catalog.ErrNoSuchAccessKey
	}
	return keyOut(k), apiErr(err)
}

// FindUser returns the user whose canonical id (the one S3 ACLs show)
// is canonicalID. It walks the tenants: canonical ids are looked up
// rarely, by an integration, never on the request path.
func (s *Service) FindUser(ctx context.Context, id *iam.Identity, canonicalID string) (User, error) {
	if err := allow(id, ""); err != nil {
		return User{}, err
	}
	ts, err := s.cat.ListTenants(ctx)
	if err != nil {
		return User{}, apiErr(err)
	}
	for _, t := range ts {
		us, err := s.cat.ListUsers(ctx, t.Name)
		if err != nil {
			return User{}, apiErr(err)
		}
		for _, u := range us {
			if u.CanonicalID == canonicalID {
				return userOut(u), nil
			}
		}
	}
	return User{}, apiErr(catalog.ErrNoSuchUser)
}

// TenantBuckets lists a tenant's buckets by name.
func (s *Service) TenantBuckets(ctx context.Context, id *iam.Identity, tenant string) ([]Bucket, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
		return nil, apiErr(err)
	}
	bs, err := s.cat.ListBuckets(ctx, catalog.BucketFilter{Tenant: tenant})
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]Bucket, len(bs))
	for i, b := range bs {
		out[i] = Bucket{Name: b.Name, Owner: b.Owner, Created: b.CreatedAt}
	}
	return out, nil
}

// Record puts a call made through another API than the admin API's own
// (OSIS) in the audit log, as the Handler does for its calls.
func (s *Service) Record(ctx context.Context, id *iam.Identity, e catalog.AuditEntry) {
	s.audit.Record(ctx, id, e)
}

// CloudDirectorIDs lists the VMware Cloud Director ids of a tenant (user
// "") or of a user.
func (s *Service) CloudDirectorIDs(ctx context.Context, id *iam.Identity, tenant, user string) ([]string, error) {
	if err := allow(id, ""); err != nil {
		return nil, err
	}
	ids, err := s.cat.CloudDirectorIDs(ctx, tenant, user)
	return ids, cdErr(err)
}

// SetCloudDirectorIDs replaces the Cloud Director ids of a tenant (user
// "") or of a user; each maps to one tenant or user.
func (s *Service) SetCloudDirectorIDs(ctx context.Context, id *iam.Identity, tenant, user string, ids []string) error {
	if err := allow(id, ""); err != nil {
		return err
	}
	for _, c := range ids {
		if c == "" || len(c) > 128 {
			return newErr(http.StatusBadRequest, "InvalidArgument", "A Cloud Director id is 1 to 128 bytes")
		}
	}
	if len(ids) > 64 {
		return newErr(http.StatusBadRequest, "InvalidArgument", "At most 64 Cloud Director ids")
	}
	return cdErr(s.cat.SetCloudDirectorIDs(ctx, tenant, user, ids))
}

// FindCloudDirectorID returns the tenant, and the user when user is set,
// that a Cloud Director id maps to.
func (s *Service) FindCloudDirectorID(ctx context.Context, id *iam.Identity, user bool, cdID string) (string, string, error) {
	if err := allow(id, ""); err != nil {
		return "", "", err
	}
	tenant, name, err := s.cat.FindCloudDirectorID(ctx, user, cdID)
	return tenant, name, cdErr(err)
}

func cdErr(err error) error {
	switch {
	case errors.Is(err, catalog.ErrNoSuchCloudDirectorID):
		return newErr(http.StatusNotFound, "NoSuchCloudDirectorID", "No tenant or user has that Cloud Director id")
	case errors.Is(err, catalog.ErrCloudDirectorIDTaken):
		return newErr(http.StatusConflict, "CloudDirectorIDTaken", "Another tenant or user has that Cloud Director id")
	}
	return apiErr(err)
}
