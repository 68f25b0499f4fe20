package admin

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

// newKey stores a fresh key pair for tenant/user, shaped by tmpl (kind,
// buckets, read-only), and returns it with its secret.
func (s *Service) newKey(ctx context.Context, tenant, user string, tmpl catalog.AccessKey) (Key, error) {
	u, err := s.cat.GetUser(ctx, tenant, user)
	if err != nil {
		return Key{}, apiErr(err)
	}
	ak, secret := iam.NewAccessKey()
	k := tmpl
	k.AccessKey, k.SecretSealed = ak, s.sealer.Seal(secret, ak)
	k.Owner, k.DisplayName, k.Tenant, k.User = u.CanonicalID, u.Name, tenant, user
	k.Status, k.CreatedAt = catalog.KeyActive, time.Now().UTC()
	if k.Kind == "" {
		k.Kind = catalog.KeyUser
	}
	if err := s.done(s.cat.PutAccessKey(ctx, k)); err != nil {
		return Key{}, err
	}
	out := keyOut(k)
	out.SecretKey = secret
	return out, nil
}

func (s *Service) CreateKey(ctx context.Context, id *iam.Identity, tenant, user string) (Key, error) {
	if err := allow(id, tenant); err != nil {
		return Key{}, err
	}
	return s.newKey(ctx, tenant, user, catalog.AccessKey{})
}

// CreateAppCred issues an application credential: it acts as its user,
// but only on the named buckets, read-only if asked, and never creates or
// deletes a bucket.
func (s *Service) CreateAppCred(ctx context.Context, id *iam.Identity, tenant, user string, buckets []string, readOnly bool) (Key, error) {
	return s.CreateAppCredUntil(ctx, id, tenant, user, buckets, readOnly, time.Time{})
}

// CreateAppCredUntil is CreateAppCred for a credential that stops
// working at expires (zero: never).
func (s *Service) CreateAppCredUntil(ctx context.Context, id *iam.Identity, tenant, user string, buckets []string, readOnly bool, expires time.Time) (Key, error) {
	if err := allow(id, tenant); err != nil {
		return Key{}, err
	}
	if !expires.IsZero() && !expires.After(time.Now()) {
		return Key{}, newErr(http.StatusBadRequest, "InvalidArgument", "An application credential expires in the future")
	}
	if len(buckets) == 0 {
		return Key{}, newErr(http.StatusBadRequest, "InvalidArgument", "An application credential names at least one bucket")
	}
	for _, b := range buckets {
		if objects.ValidBucketName(b) != nil {
			return Key{}, newErr(http.StatusBadRequest, "InvalidBucketName", "%q is not a valid bucket name", b)
		}
	}
	if err := s.tenantBuckets(ctx, tenant, buckets); err != nil {
		return Key{}, err
	}
	slices.Sort(buckets)
	return s.newKey(ctx, tenant, user, catalog.AccessKey{Kind: catalog.KeyAppCred, Buckets: slices.Compact(buckets), ReadOnly: readOnly, Expires: expires.UTC()})
}

func (s *Service) ListKeys(ctx context.Context, id *iam.Identity, tenant, user string) ([]Key, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	if _, err := s.cat.GetUser(ctx, tenant, user); err != nil {
		return nil, apiErr(err)
	}
	ks, err := s.cat.ListAccessKeys(ctx, tenant, user)
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]Key, len(ks))
	for i, k := range ks {
		out[i] = keyOut(k)
	}
	return out, nil
}

// key loads an access key and checks it is tenant/user's.
func (s *Service) key(ctx context.Context, id *iam.Identity, tenant, user, accessKey string) (catalog.AccessKey, error) {
	if err := allow(id, tenant); err != nil {
		return catalog.AccessKey{}, err
	}
	k, err := s.cat.GetAccessKey(ctx, accessKey)
	if err == nil && (k.Tenant != tenant || k.User != user) {
		err = catalog.ErrNoSuchAccessKey
	}
	return k, apiErr(err)
}

// RotateKey issues a new key pair of the same kind and limits, and lets
// the old one work for the grace period (DefaultGrace when zero).
func (s *Service) RotateKey(ctx context.Context, id *iam.Identity, tenant, user, accessKey string, grace time.Duration) (Key, error) {
	old, err := s.key(ctx, id, tenant, user, accessKey)
	if err != nil {
		return Key{}, err
	}
	if grace <= 0 {
		grace = s.grace
	}
	fresh, err := s.newKey(ctx, tenant, user, catalog.AccessKey{Kind: old.Kind, Buckets: old.Buckets, ReadOnly: old.ReadOnly})
	if err != nil {
		return Key{}, err
	}
	expires := time.Now().Add(grace).UTC()
	if !old.Expires.IsZero() && old.Expires.Before(expires) {
		expires = old.Expires
	}
	return fresh, s.done(s.cat.UpdateAccessKey(ctx, accessKey, old.Status, expires))
}

// SetKeyStatus disables or enables a key.
func (s *Service) SetKeyStatus(ctx context.Context, id *iam.Identity, tenant, user, accessKey string, active bool) (Key, error) {
	k, err := s.key(ctx, id, tenant, user, accessKey)
	if err != nil {
		return Key{}, err
	}
	k.Status = catalog.KeyDisable
	if active {
		k.Status = catalog.KeyActive
	}
	return keyOut(k), s.done(s.cat.UpdateAccessKey(ctx, accessKey, k.Status, k.Expires))
}

func (s *Service) DeleteKey(ctx context.Context, id *iam.Identity, tenant, user, accessKey string) error {
	if _, err := s.key(ctx, id, tenant, user, accessKey); err != nil {
		return err
	}
	return s.done(s.cat.DeleteAccessKey(ctx, accessKey))
}

// tenantBuckets checks that each bucket exists (404 NoSuchBucket, as S3
// answers for a bucket that is not there) and is the tenant's own (403
// AccessDenied, as S3 answers for another's): a credential for a bucket
// its user can never reach, or one that does not exist yet and may later
// be made by another tenant, is a mistake caught here rather than a
// puzzle at its first request. Ownership is the rule, not the bucket's
// policy: a policy that lets the user in today may change tomorrow,
// while the credential would stay.
func (s *Service) tenantBuckets(ctx context.Context, tenant string, buckets []string) error {
	for _, name := range buckets {
		b, err := s.cat.GetBucket(ctx, name)
		switch {
		case errors.Is(err, catalog.ErrNoSuchBucket):
			return newErr(http.StatusNotFound, "NoSuchBucket", "The bucket %s does not exist", name)
		case err != nil:
			return apiErr(err)
		case b.Tenant != tenant:
			return newErr(http.StatusForbidden, "AccessDenied", "The bucket %s is not the tenant's: an application credential names only its tenant's buckets", name)
		}
	}
	return nil
}
