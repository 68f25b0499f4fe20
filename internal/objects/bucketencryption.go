package objects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// SSEAlgorithmDSSE is dual-layer SSE-KMS, which S3 defines and Ostium
// does not offer (the other kinds: KindS3, KindKMS, KindSSEC).
const SSEAlgorithmDSSE = "aws:kms:dsse"

// ErrNoSuchEncryptionConfiguration is GetBucketEncryption's answer when
// neither the bucket, its tenant nor the provider sets a default.
var ErrNoSuchEncryptionConfiguration = errors.New("no server side encryption configuration")

// EncryptionRule is a default encryption of new objects: a bucket's
// (PutBucketEncryption), a tenant's (set by the provider) or the
// provider's (node configuration).
type EncryptionRule struct {
	Algorithm string `json:"a"`            // KindS3 or KindKMS
	KMSKeyID  string `json:"id,omitempty"` // SSE-KMS's key; "" = the tenant's own key
	BucketKey bool   `json:"bk,omitempty"` // BucketKeyEnabled, as asked and echoed
}

// Validate checks a rule as AWS checks PutBucketEncryption's.
func (r EncryptionRule) Validate() error {
	switch r.Algorithm {
	case KindS3:
		if r.KMSKeyID != "" {
			return errorf(ErrInvalidArgument, "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse")
		}
	case KindKMS:
	case SSEAlgorithmDSSE:
		return errorf(ErrNotImplementedSSE, "Dual-layer server-side encryption (aws:kms:dsse) is not implemented")
	default:
		return errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
	}
	return nil
}

// ErrNotImplementedSSE refuses what S3 defines and Ostium does not offer
// (dual-layer SSE-KMS): NotImplemented, never a silent downgrade.
var ErrNotImplementedSSE = errors.New("encryption kind not implemented")

// Encode is the rule as the catalog keeps it ("" for none).
func (r *EncryptionRule) Encode() string {
	if r == nil || r.Algorithm == "" {
		return ""
	}
	b, _ := json.Marshal(r) // plain strings and a bool: cannot fail
	return string(b)
}

// DecodeEncryptionRule reads what Encode wrote; nil for "".
func DecodeEncryptionRule(s string) (*EncryptionRule, error) {
	if s == "" {
		return nil, nil
	}
	var r EncryptionRule
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("objects: decode encryption rule: %w", err)
	}
	return &r, nil
}

// GetBucketEncryption returns the default encryption of the bucket's new
// objects: the bucket's own rule, else its tenant's default, else the
// provider's. AWS reports SSE-S3 for every bucket without a rule since
// 2023, because AWS encrypts every object; Ostium encrypts only where a
// default says so, and reports the rule in force, so a bucket with none
// anywhere gets ServerSideEncryptionConfigurationNotFoundError (AWS's
// answer before 2023) rather than a claim that is false.
func (s *Service) GetBucketEncryption(ctx context.Context, id *iam.Identity, bucket string) (*EncryptionRule, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetEncryptionConfiguration")
	if err != nil {
		return nil, err
	}
	r, err := s.DefaultEncryption(ctx, b)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errorf(ErrNoSuchEncryptionConfiguration, "The server side encryption configuration was not found")
	}
	return r, nil
}

// PutBucketEncryption sets the bucket's default encryption of new
// objects; objects already stored keep theirs, as on AWS.
func (s *Service) PutBucketEncryption(ctx context.Context, id *iam.Identity, bucket string, r EncryptionRule) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutEncryptionConfiguration"); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingEncryption, r.Encode())
}

// DeleteBucketEncryption removes the bucket's own rule (the tenant's or
// provider's default then applies); AWS authorizes it as
// s3:PutEncryptionConfiguration.
func (s *Service) DeleteBucketEncryption(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutEncryptionConfiguration"); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingEncryption, "")
}

// TenantEncryption is the default encryption a provider set for a
// tenant (*iam.Keyring, cached): the encoded rule, "" for none.
type TenantEncryption interface {
	TenantEncryption(ctx context.Context, tenant string) (string, error)
}

// ProviderEncryption is the provider-wide default set through the admin
// API (*iam.Keyring, cached): the encoded rule, "" for none.
type ProviderEncryption interface {
	ProviderEncryption(ctx context.Context) (string, error)
}

// DefaultEncryption is the rule a new object of bucket b is encrypted by
// when its request asks for none: the bucket's, else the tenant's, else
// the provider's (the admin API's, else the node's sse_default); nil when
// none applies.
func (s *Service) DefaultEncryption(ctx context.Context, b catalog.Bucket) (*EncryptionRule, error) {
	if b.Encryption != "" {
		return DecodeEncryptionRule(b.Encryption)
	}
	if te, ok := s.tenants.(TenantEncryption); ok && b.Tenant != "" {
		enc, err := te.TenantEncryption(ctx, b.Tenant)
		if err != nil {
			return nil, fmt.Errorf("objects: default encryption of %s: %w", b.Tenant, err)
		}
		if enc != "" {
			return DecodeEncryptionRule(enc)
		}
	}
	if pe, ok := s.tenants.(ProviderEncryption); ok {
		enc, err := pe.ProviderEncryption(ctx)
		if err != nil {
			return nil, fmt.Errorf("objects: default encryption: %w", err)
		}
		if enc != "" {
			return DecodeEncryptionRule(enc)
		}
	}
	if s.sseDefault.Algorithm != "" {
		r := s.sseDefault
		return &r, nil
	}
	return nil, nil
}

// UploadEncryption is how a multipart upload's parts are encrypted (nil:
// not), which UploadPart's response reports as AWS does; the caller has
// just been allowed to write a part of it.
func (s *Service) UploadEncryption(ctx context.Context, bucket, key, uploadID string) (*catalog.Encryption, error) {
	u, err := s.cat.GetUpload(ctx, bucket, key, uploadID)
	if err != nil {
		return nil, fmt.Errorf("objects: upload %s: %w", uploadID, err)
	}
	return u.Meta.Encryption, nil
}

// defaultRequest is the encryption of a new object of bucket b whose
// request asks for none (DefaultEncryption); nil for none.
func (s *Service) defaultRequest(ctx context.Context, b catalog.Bucket) (*EncryptRequest, error) {
	r, err := s.DefaultEncryption(ctx, b)
	if err != nil || r == nil {
		return nil, err
	}
	return &EncryptRequest{Kind: r.Algorithm, KeyID: r.KMSKeyID, BucketKey: r.BucketKey}, nil
}

// BucketTenant is the tenant that owns bucket (its account in ARNs), read
// through the bucket cache; "" for the provider's, or when it is gone.
func (s *Service) BucketTenant(ctx context.Context, bucket string) string {
	b, _, err := s.getBucket(ctx, bucket)
	if err != nil {
		return ""
	}
	return b.Tenant
}
