package console

import (
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/objects"
)

// Encryption is a bucket's default encryption of new objects as the
// console takes and shows it: S3's rule (PutBucketEncryption) in the
// API's snake_case.
type Encryption struct {
	// Algorithm is S3's: AES256 (SSE-S3) or aws:kms (SSE-KMS).
	Algorithm string `json:"algorithm"`
	// KMSKeyID is SSE-KMS's key as it was set: an id, alias/NAME or an
	// ARN of one of the tenant's keys; "" = the tenant's own key.
	KMSKeyID  string `json:"kms_key_id,omitempty"`
	BucketKey bool   `json:"bucket_key_enabled,omitempty"`
	// Source (GET only) says whose rule is in force: "bucket" (its own,
	// which DELETE removes) or "default" (none of its own: its tenant's
	// or the provider's default applies, which only the provider
	// changes); "" when the caller may not read the bucket to tell.
	Source string `json:"source,omitempty"`
}

// rule checks the console's document and makes it the object service's
// rule, which the service validates again as S3's.
func (e Encryption) rule() (objects.EncryptionRule, error) {
	switch e.Algorithm {
	case objects.KindS3, objects.KindKMS, objects.SSEAlgorithmDSSE:
		// DSSE is S3's, and the service refuses it as S3 does: 501.
	default:
		return objects.EncryptionRule{}, apiError(http.StatusBadRequest, "InvalidArgument",
			"algorithm: %q is neither AES256 (SSE-S3) nor aws:kms (SSE-KMS)", e.Algorithm)
	}
	r := objects.EncryptionRule{Algorithm: e.Algorithm, KMSKeyID: strings.TrimSpace(e.KMSKeyID), BucketKey: e.BucketKey}
	return r, r.Validate()
}

// encryptionSetting is the bucket setting "encryption": S3's
// Get/Put/DeleteBucketEncryption, with the identity of the session.
var encryptionSetting = setting{
	audit: [2]string{"PutBucketEncryption", "DeleteBucketEncryption"},
	get: func(h *Handler, c *call, b string) (any, error) {
		r, err := h.o.Objects.GetBucketEncryption(c.ctx(), c.id(), b)
		if err != nil {
			return nil, err
		}
		out := Encryption{Algorithm: r.Algorithm, KMSKeyID: r.KMSKeyID, BucketKey: r.BucketKey}
		// Whose rule it is: the bucket's own row says. A caller allowed
		// GetEncryptionConfiguration but not ListBucket is not told.
		if bk, err := h.o.Objects.HeadBucket(c.ctx(), c.id(), b); err == nil {
			out.Source = "default"
			if bk.Encryption != "" {
				out.Source = "bucket"
			}
		}
		return out, nil
	},
	put: func(h *Handler, c *call, b string) error {
		var in Encryption
		if err := decode(c.r, &in); err != nil {
			return err
		}
		r, err := in.rule()
		if err != nil {
			return err
		}
		return h.o.Objects.PutBucketEncryption(c.ctx(), c.id(), b, r)
	},
	del: func(h *Handler, c *call, b string) error {
		return h.o.Objects.DeleteBucketEncryption(c.ctx(), c.id(), b)
	},
}

// ObjectEncryption is how a version's bytes are encrypted at rest.
type ObjectEncryption struct {
	// Kind is AES256 (SSE-S3), aws:kms (SSE-KMS) or SSE-C.
	Kind string `json:"kind"`
	// KMSKeyID and KMSKeyARN name SSE-KMS's key: its id, and the ARN S3
	// reports in x-amz-server-side-encryption-aws-kms-key-id.
	KMSKeyID  string `json:"kms_key_id,omitempty"`
	KMSKeyARN string `json:"kms_key_arn,omitempty"`
	BucketKey bool   `json:"bucket_key_enabled,omitempty"`
}

// objectEncryption is enc as the console shows it (nil: plaintext). An
// SSE-S3 object's key is the tenant's own, which S3 does not name either.
func (h *Handler) objectEncryption(tenant string, enc *catalog.Encryption) *ObjectEncryption {
	if enc == nil || enc.Kind == "" {
		return nil
	}
	out := &ObjectEncryption{Kind: enc.Kind, BucketKey: enc.BucketKey}
	if enc.Kind == objects.KindKMS {
		out.KMSKeyID = enc.KeyID
		out.KMSKeyARN = enc.KeyID
		if !strings.HasPrefix(enc.KeyID, "arn:") {
			out.KMSKeyARN = kms.KeyARN(h.o.Objects.Region(), tenant, enc.KeyID)
		}
	}
	return out
}

// customerKeyed is the metadata call's answer for an SSE-C object, which
// S3 describes to no one without its key (HeadObject answers 400): what
// the caller may know is that it exists and why nothing more is shown.
// The caller was allowed s3:GetObject (the object service decides that
// before it asks for the key).
func customerKeyed(key, version string) Object {
	return Object{Key: key, VersionID: version, Encryption: &ObjectEncryption{Kind: objects.KindSSEC}, CustomerKeyRequired: true}
}

// undoCreate answers a step of a bucket's creation that failed after
// the bucket was made: the bucket is deleted again, so the caller never
// gets a bucket without what it asked for (a bucket meant to encrypt its
// objects that stores them in the clear). Should that delete fail too,
// the answer says the bucket is there without the setting, and
// bucket_created tells the pages so.
func (h *Handler) undoCreate(c *call, bucket, what string, err error) error {
	f := errorOf(err)
	derr := h.o.Objects.DeleteBucket(c.ctx(), c.id(), bucket)
	h.recordS3(c, "DeleteBucket", http.StatusNoContent, derr, bucket)
	if derr != nil {
		e := apiError(f.Status, f.Code, "The bucket %s was created, but its %s could not be set (%s), and it could not be deleted again (%s): "+
			"set its %s in the bucket's settings, or delete it, before storing objects in it", bucket, what, f.Message, errorOf(derr).Message, what)
		e.BucketCreated = true
		return e
	}
	return apiError(f.Status, f.Code, "The bucket %s was not created: its %s could not be set: %s", bucket, what, f.Message)
}
