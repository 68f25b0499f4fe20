package kms

import (
	"crypto/rand"
	"fmt"
	"strings"
)

// DefaultKeyAlias names each tenant's own key, which SSE-S3 uses and
// SSE-KMS uses when no key id is given: AWS's name for the key it manages
// for S3 in an account ("alias/aws/s3"), which no tenant may take, as
// AWS reserves "alias/aws/".
const DefaultKeyAlias = "aws/s3"

// NewKeyID returns a fresh key id in AWS's form (a random UUID).
func NewKeyID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("kms: crypto/rand failed: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// KeyARN is a key's ARN as S3 reports it
// (x-amz-server-side-encryption-aws-kms-key-id): the tenant is the
// account.
func KeyARN(region, tenant, id string) string {
	return "arn:aws:kms:" + region + ":" + tenant + ":key/" + id
}

// Ref is a key named as AWS lets a client name one: a key id, a key ARN,
// an alias ("alias/name") or an alias ARN.
type Ref struct {
	ID    string // the key id, or "" for an alias
	Alias string // the alias without "alias/", or ""
	// ARN: Region and Account were given, and must be the node's region
	// and the asking tenant.
	ARN             bool
	Region, Account string
}

// maxRef bounds a key reference as AWS bounds KeyId (2048).
const maxRef = 2048

// ParseKeyRef reads a key reference; an error says why it names no key
// (S3 answers it as KMS.NotFoundException).
func ParseKeyRef(ref string) (Ref, error) {
	if ref == "" || len(ref) > maxRef {
		return Ref{}, fmt.Errorf("%w: key id of %d bytes", ErrNoSuchKey, len(ref))
	}
	var r Ref
	name := ref
	if strings.HasPrefix(ref, "arn:") {
		// arn:PARTITION:kms:REGION:ACCOUNT:key/ID or :alias/NAME
		f := strings.SplitN(ref, ":", 6)
		if len(f) != 6 || f[1] == "" || f[2] != "kms" {
			return Ref{}, fmt.Errorf("%w: %q is not a KMS key ARN", ErrNoSuchKey, ref)
		}
		r.ARN, r.Region, r.Account, name = true, f[3], f[4], f[5]
		if !strings.HasPrefix(name, "key/") && !strings.HasPrefix(name, "alias/") {
			return Ref{}, fmt.Errorf("%w: %q is not a KMS key ARN", ErrNoSuchKey, ref)
		}
	}
	switch {
	case strings.HasPrefix(name, "alias/"):
		r.Alias = strings.TrimPrefix(name, "alias/")
		if r.Alias == "" {
			return Ref{}, fmt.Errorf("%w: empty alias", ErrNoSuchKey)
		}
	case strings.HasPrefix(name, "key/"):
		r.ID = strings.TrimPrefix(name, "key/")
	default:
		r.ID = name
	}
	if r.ID == "" && r.Alias == "" || strings.ContainsAny(r.ID, "/:") {
		return Ref{}, fmt.Errorf("%w: %q names no key", ErrNoSuchKey, ref)
	}
	return r, nil
}

// ErrBadAlias: a name a tenant may not give its key.
var ErrBadAlias = fmt.Errorf("kms: invalid alias")

// ValidAlias checks a name a tenant gives a key (without "alias/") as AWS
// checks CreateAlias's: 1 to 250 of [a-zA-Z0-9/_-], not beginning with
// "aws/", which AWS keeps for its own keys (and Ostium for each tenant's
// default key).
func ValidAlias(name string) error {
	if name == "" || len(name) > 250 {
		return fmt.Errorf("%w: %q must be 1 to 250 characters", ErrBadAlias, name)
	}
	if strings.HasPrefix(name, "aws/") {
		return fmt.Errorf("%w: %q: alias/aws/ is reserved", ErrBadAlias, name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return fmt.Errorf("%w: %q: only letters, digits, /, _ and -", ErrBadAlias, name)
		}
	}
	return nil
}
