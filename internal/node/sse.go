package node

import (
	"errors"
	"fmt"

	"github.com/ostiumio/ostium/internal/objects"
)

// SSEConfig is the provider's side of encryption at rest seen from S3.
type SSEConfig struct {
	// Default is the provider-wide default encryption of new objects,
	// under a tenant's default (`ostium admin tenant encryption`) and a
	// bucket's (PutBucketEncryption): "" (none), "sse-s3" or "sse-kms".
	Default string `yaml:"sse_default,omitempty"`
	// DefaultKMSKey is sse-kms's key ("" = each tenant's own key).
	DefaultKMSKey string `yaml:"sse_default_kms_key,omitempty"`
	// COverHTTP lets SSE-C requests arrive over plain HTTP, which AWS
	// refuses (the customer's key would cross the network in the clear).
	// For tests only.
	COverHTTP bool `yaml:"sse_c_over_http,omitempty"`
}

// rule is the provider's default as the object service takes it.
func (c SSEConfig) rule() objects.EncryptionRule {
	switch c.Default {
	case "sse-s3":
		return objects.EncryptionRule{Algorithm: objects.KindS3}
	case "sse-kms":
		return objects.EncryptionRule{Algorithm: objects.KindKMS, KMSKeyID: c.DefaultKMSKey}
	}
	return objects.EncryptionRule{}
}

func (c SSEConfig) validate() error {
	var errs []error
	switch c.Default {
	case "", "sse-s3", "sse-kms":
	default:
		errs = append(errs, fmt.Errorf("sse_default: %q is not sse-s3, sse-kms or empty", c.Default))
	}
	if c.DefaultKMSKey != "" && c.Default != "sse-kms" {
		errs = append(errs, fmt.Errorf("sse_default_kms_key: only with sse_default: sse-kms"))
	}
	return errors.Join(errs...)
}
