package admin

import (
	"context"
	"net/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	routes = append(routes, route{"PUT", "/tenants/{tenant}/encryption", "SetTenantEncryption", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in TenantEncryption
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetTenantEncryption(r.Context(), id, r.PathValue("tenant"), in))
	}}, route{"GET", "/encryption", "GetProviderEncryption", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ProviderEncryption(r.Context(), id))
	}}, route{"PUT", "/encryption", "SetProviderEncryption", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in TenantEncryption
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetProviderEncryption(r.Context(), id, in))
	}})
}

// TenantEncryption is the default encryption of a tenant's new objects,
// which the provider sets: objects stored before keep theirs, a bucket's
// own default (PutBucketEncryption) and a request's headers override it.
type TenantEncryption struct {
	// Default is "sse-s3", "sse-kms" or "none" (the node's default
	// applies: sse_default).
	Default string `json:"default"`
	// KMSKey is sse-kms's key id ("" = the tenant's own key).
	KMSKey string `json:"kms_key,omitempty"`
}

// rule is the stored form of a default; nil for none.
func (in TenantEncryption) rule() (*objects.EncryptionRule, error) {
	var rule *objects.EncryptionRule
	switch in.Default {
	case "sse-s3":
		rule = &objects.EncryptionRule{Algorithm: objects.KindS3}
	case "sse-kms":
		rule = &objects.EncryptionRule{Algorithm: objects.KindKMS, KMSKeyID: in.KMSKey}
	case "none", "":
	default:
		return nil, newErr(http.StatusBadRequest, "InvalidArgument", "default: %q is not sse-s3, sse-kms or none", in.Default)
	}
	if in.KMSKey != "" && in.Default != "sse-kms" {
		return nil, newErr(http.StatusBadRequest, "InvalidArgument", "kms_key: only with default sse-kms")
	}
	return rule, nil
}

// encryptionOut is the API's form of a stored rule; nil for none.
func encryptionOut(enc string) *TenantEncryption {
	r, err := objects.DecodeEncryptionRule(enc)
	if err != nil || r == nil {
		return nil
	}
	if r.Algorithm == objects.KindKMS {
		return &TenantEncryption{Default: "sse-kms", KMSKey: r.KMSKeyID}
	}
	return &TenantEncryption{Default: "sse-s3"}
}

// SetTenantEncryption sets the default encryption of the tenant's new
// objects (provider only).
func (s *Service) SetTenantEncryption(ctx context.Context, id *iam.Identity, name string, in TenantEncryption) (Tenant, error) {
	if err := allow(id, ""); err != nil {
		return Tenant{}, err
	}
	rule, err := in.rule()
	if err != nil {
		return Tenant{}, err
	}
	if err := s.done(s.cat.SetTenantEncryption(ctx, name, rule.Encode())); err != nil {
		return Tenant{}, err
	}
	return s.GetTenant(ctx, id, name)
}

// ProviderEncryption is the provider-wide default encryption of new
// objects set through the API (default "none" when it set none: the
// nodes' sse_default, if any, applies then).
func (s *Service) ProviderEncryption(ctx context.Context, id *iam.Identity) (TenantEncryption, error) {
	if err := allow(id, ""); err != nil {
		return TenantEncryption{}, err
	}
	enc, err := s.cat.ProviderSetting(ctx, catalog.ProviderEncryption)
	if err != nil {
		return TenantEncryption{}, apiErr(err)
	}
	if out := encryptionOut(enc); out != nil {
		return *out, nil
	}
	return TenantEncryption{Default: "none"}, nil
}

// SetProviderEncryption sets the default encryption of every tenant's new
// objects, below a tenant's and a bucket's own defaults (provider only).
// An SSE-KMS default names no key: each tenant's own key wraps its objects.
func (s *Service) SetProviderEncryption(ctx context.Context, id *iam.Identity, in TenantEncryption) (TenantEncryption, error) {
	if err := allow(id, ""); err != nil {
		return TenantEncryption{}, err
	}
	if in.KMSKey != "" {
		return TenantEncryption{}, newErr(http.StatusBadRequest, "InvalidArgument", "kms_key: a key belongs to one tenant; a provider-wide sse-kms default uses each tenant's own key")
	}
	rule, err := in.rule()
	if err != nil {
		return TenantEncryption{}, err
	}
	if err := s.done(s.cat.SetProviderSetting(ctx, catalog.ProviderEncryption, rule.Encode())); err != nil {
		return TenantEncryption{}, err
	}
	return s.ProviderEncryption(ctx, id)
}
