package s3

import (
	"context"
	"encoding/xml"
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrNoSuchEncryptionConfiguration] = apiError{404, "ServerSideEncryptionConfigurationNotFoundError", "The server side encryption configuration was not found"}
	domainErrors[objects.ErrNotImplementedSSE] = apiError{501, "NotImplemented", "A header you provided implies functionality that is not implemented"}
	logOperations[OpGetBucketEncryption] = "REST.GET.ENCRYPTION"
	logOperations[OpPutBucketEncryption] = "REST.PUT.ENCRYPTION"
	logOperations[OpDeleteBucketEncryption] = "REST.DELETE.ENCRYPTION"
}

// sseConfiguration is the document of Get/PutBucketEncryption.
type sseConfiguration struct {
	XMLName xml.Name  `xml:"ServerSideEncryptionConfiguration"`
	NS      string    `xml:"xmlns,attr,omitempty"`
	Rules   []sseRule `xml:"Rule"`
}

type sseRule struct {
	Default          *sseByDefault `xml:"ApplyServerSideEncryptionByDefault"`
	BucketKeyEnabled *bool         `xml:",omitempty"`
}

type sseByDefault struct {
	SSEAlgorithm   string
	KMSMasterKeyID string `xml:",omitempty"`
}

func getBucketEncryption(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	rule, err := s.svc.GetBucketEncryption(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	// The key as it was set, as AWS reports it.
	d := &sseByDefault{SSEAlgorithm: rule.Algorithm, KMSMasterKeyID: rule.KMSKeyID}
	bk := rule.BucketKey
	out := sseConfiguration{NS: s3NS, Rules: []sseRule{{Default: d, BucketKeyEnabled: &bk}}}
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketEncryption(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if !digestSent(r) {
		return errMissingMD5
	}
	var doc sseConfiguration
	if err := readXML(r, c, &doc); err != nil {
		return err
	}
	rule, err := doc.rule()
	if err != nil {
		return err
	}
	return s.svc.PutBucketEncryption(r.Context(), c.id, c.Bucket, rule)
}

// rule is the document's one rule: AWS takes exactly one, and a rule
// must say which algorithm.
func (doc sseConfiguration) rule() (objects.EncryptionRule, error) {
	if len(doc.Rules) != 1 || doc.Rules[0].Default == nil {
		return objects.EncryptionRule{}, errMalformedXML
	}
	in := doc.Rules[0]
	rule := objects.EncryptionRule{Algorithm: in.Default.SSEAlgorithm, KMSKeyID: in.Default.KMSMasterKeyID}
	if in.BucketKeyEnabled != nil {
		rule.BucketKey = *in.BucketKeyEnabled
	}
	return rule, nil
}

func deleteBucketEncryption(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketEncryption(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// kmsKeyARN is the full ARN AWS reports for a KMS key in
// x-amz-server-side-encryption-aws-kms-key-id: the key of the bucket's
// tenant (its account) in the node's region.
func (s *Server) kmsKeyARN(ctx context.Context, bucket, id string) string {
	if strings.HasPrefix(id, "arn:") {
		return id
	}
	return kms.KeyARN(s.svc.Region(), s.svc.BucketTenant(ctx, bucket), id)
}
