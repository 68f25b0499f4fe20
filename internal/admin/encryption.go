package admin

import (
	"context"
	"net/http"

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
	var rule *objects.EncryptionRule
	switch in.Default {
	case "sse-s3":
		rule = &objects.EncryptionRule{Algorithm: objects.KindS3}
	case "sse-kms":
		rule = &objects.EncryptionRule{Algorithm: objects.KindKMS, KMSKeyID: in.KMSKey}
	case "none", "":
	default:
		return Tenant{}, newErr(http.StatusBadRequest, "InvalidArgument", "default: %q is not sse-s3, sse-kms or none", in.Default)
	}
	if in.KMSKey != "" && in.Default != "sse-kms" {
		return Tenant{}, newErr(http.StatusBadRequest, "InvalidArgument", "kms_key: only with default sse-kms")
	}
	if err := s.done(s.cat.SetTenantEncryption(ctx, name, rule.Encode())); err != nil {
		return Tenant{}, err
	}
	return s.GetTenant(ctx, id, name)
}
