package admin

import (
	"context"
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/kms"
)

// SetKMS gives the service the node's key service, whose tenant keys it
// administers and which a purge destroys first.
func (s *Service) SetKMS(k kms.Manager) { s.kms = k }

func init() { routes = append(routes, kmsRoutes...) }

// kmsRoutes administer tenants' KMS keys (the keys of encryption at
// rest) and the master key.
var kmsRoutes = []route{
	{"GET", "/tenants/{tenant}/kms-keys", "ListKMSKeys", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListKMSKeys(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", "/tenants/{tenant}/kms-keys", "CreateKMSKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Alias string `json:"alias"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateKMSKey(r.Context(), id, r.PathValue("tenant"), in.Alias))
	}},
	{"POST", "/tenants/{tenant}/kms-keys/{keyid}/rotate", "RotateKMSKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.RotateKMSKey(r.Context(), id, r.PathValue("tenant"), r.PathValue("keyid")))
	}},
	{"POST", "/tenants/{tenant}/kms-keys/{keyid}/disable", "DisableKMSKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetKMSKeyState(r.Context(), id, r.PathValue("tenant"), r.PathValue("keyid"), kms.StateDisabled))
	}},
	{"POST", "/tenants/{tenant}/kms-keys/{keyid}/enable", "EnableKMSKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetKMSKeyState(r.Context(), id, r.PathValue("tenant"), r.PathValue("keyid"), kms.StateEnabled))
	}},
	{"DELETE", "/tenants/{tenant}/kms-keys/{keyid}", "DestroyKMSKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.SetKMSKeyState(r.Context(), id, r.PathValue("tenant"), r.PathValue("keyid"), kms.StateDestroyed))
	}},
	{"POST", "/master-key/rotate", "RotateMasterKey", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.RotateMasterKey(r.Context(), id))
	}},
}

// kmsErr maps the key service's errors to the API's.
func kmsErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, kms.ErrNoSuchKey):
		return newErr(http.StatusNotFound, "NoSuchKMSKey", "The tenant has no such key")
	case errors.Is(err, kms.ErrAliasExists):
		return newErr(http.StatusConflict, "AliasAlreadyExists", "Another of the tenant's keys has that alias")
	case errors.Is(err, kms.ErrBadAlias):
		return newErr(http.StatusBadRequest, "InvalidAlias", "%v", err)
	case errors.Is(err, kms.ErrDestroyed):
		return newErr(http.StatusConflict, "KMSKeyDestroyed", "The key was destroyed; it cannot be used or changed again")
	case errors.Is(err, kms.ErrNoMasterKey):
		return newErr(http.StatusBadRequest, "NoMasterKey", "%v", err)
	case errors.Is(err, kms.ErrUnavailable):
		return newErr(http.StatusServiceUnavailable, "KMSUnavailable", "The key management service cannot be reached; try again")
	}
	return apiErr(err)
}

// kmsFor checks that id may administer tenant's keys, that the tenant
// exists, and that there is a key service.
func (s *Service) kmsFor(ctx context.Context, id *iam.Identity, tenant string) error {
	if err := allow(id, tenant); err != nil {
		return err
	}
	if s.kms == nil {
		return newErr(http.StatusNotImplemented, "NotImplemented", "This node has no key service")
	}
	_, err := s.cat.GetTenant(ctx, tenant)
	return apiErr(err)
}

// ListKMSKeys lists a tenant's keys, destroyed ones included.
func (s *Service) ListKMSKeys(ctx context.Context, id *iam.Identity, tenant string) ([]kms.KeyInfo, error) {
	if err := s.kmsFor(ctx, id, tenant); err != nil {
		return nil, err
	}
	keys, err := s.kms.ListKeys(ctx, tenant)
	if keys == nil {
		keys = []kms.KeyInfo{}
	}
	return keys, kmsErr(err)
}

// CreateKMSKey makes a key for the tenant's SSE-KMS requests (alias ""
// = none: the key is named by its id or ARN).
func (s *Service) CreateKMSKey(ctx context.Context, id *iam.Identity, tenant, alias string) (kms.KeyInfo, error) {
	if err := s.kmsFor(ctx, id, tenant); err != nil {
		return kms.KeyInfo{}, err
	}
	k, err := s.kms.CreateKey(ctx, tenant, alias)
	return k, kmsErr(err)
}

// RotateKMSKey makes a new version of a key; the re-wrap job moves the
// stored data keys to it.
func (s *Service) RotateKMSKey(ctx context.Context, id *iam.Identity, tenant, key string) (kms.KeyInfo, error) {
	if err := s.kmsFor(ctx, id, tenant); err != nil {
		return kms.KeyInfo{}, err
	}
	k, err := s.kms.RotateKey(ctx, tenant, key)
	return k, kmsErr(err)
}

// SetKMSKeyState enables, disables or destroys a key. Destroying makes
// every object the key encrypted unreadable for good, so only the
// provider may (a tenant admin may disable its keys).
func (s *Service) SetKMSKeyState(ctx context.Context, id *iam.Identity, tenant, key, state string) (kms.KeyInfo, error) {
	if state == kms.StateDestroyed {
		if err := allow(id, ""); err != nil {
			return kms.KeyInfo{}, err
		}
	}
	if err := s.kmsFor(ctx, id, tenant); err != nil {
		return kms.KeyInfo{}, err
	}
	k, err := s.kms.SetKeyState(ctx, tenant, key, state)
	return k, kmsErr(err)
}

// RotateMasterKey rotates the built-in keyring's master key: every
// tenant key sealed again under a new version, the old one deleted.
func (s *Service) RotateMasterKey(ctx context.Context, id *iam.Identity) (kms.MasterRotation, error) {
	if err := allow(id, ""); err != nil {
		return kms.MasterRotation{}, err
	}
	mr, ok := s.kms.(kms.MasterRotator)
	if !ok {
		return kms.MasterRotation{}, kmsErr(kms.ErrNoMasterKey)
	}
	r, err := mr.RotateMaster(ctx)
	return r, kmsErr(err)
}

// destroyTenantKeys crypto-shreds a tenant: whatever of its data is left
// anywhere (a purge cut short, a platform's copies, backups) can no
// longer be read.
func (s *Service) destroyTenantKeys(ctx context.Context, tenant string) error {
	if s.kms == nil {
		return nil
	}
	return kmsErr(s.kms.DestroyTenantKeys(ctx, tenant))
}
