package iam

import (
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// BucketAccess is a bucket's access settings, parsed once.
type BucketAccess struct {
	Policy    *bucketpolicy.Policy // nil: none
	ACL       ACL
	Ownership string // "" for buckets from before ownership controls: ObjectWriter
	// Block is the bucket's public access block combined with the
	// provider's.
	Block PublicAccessBlock
	tags  policyTags // set by ParseAccess
}

// ParseAccess reads a bucket's stored settings; provider is the block
// every bucket is under.
func ParseAccess(b catalog.Bucket, provider PublicAccessBlock) (*BucketAccess, error) {
	a := &BucketAccess{Ownership: b.Ownership, Block: DecodePAB(b.PublicAccessBlock).Or(provider)}
	var err error
	if b.Policy != "" {
		doc, ids := DecodePolicy(b.Policy)
		if a.Policy, err = bucketpolicy.Parse(doc, b.Name); err != nil {
			return nil, fmt.Errorf("iam: policy of %s: %w", b.Name, err)
		}
		if ids == nil {
			ids = legacyBinding(a.Policy)
		}
		a.Policy.Bind(ids)
		a.tags = tagsTested(a.Policy)
	}
	if a.ACL, err = DecodeACL(b.ACL, b.Owner); err != nil {
		return nil, fmt.Errorf("iam: ACL of %s: %w", b.Name, err)
	}
	return a, nil
}

// ACLsEnabled reports whether ACLs grant anything: not under
// BucketOwnerEnforced, where AWS disables them.
func (a *BucketAccess) ACLsEnabled() bool { return a.Ownership != OwnerEnforced }

// aclPermissions maps actions to the ACL permission that grants them and
// whether it is read from the object's ACL (else the bucket's), after
// AWS's "mapping of ACL permissions and access policy permissions".
var aclPermissions = map[Action]struct {
	perm   string
	object bool
}{
	"s3:ListBucket":                 {PermRead, false},
	"s3:ListBucketVersions":         {PermRead, false},
	"s3:ListBucketMultipartUploads": {PermRead, false},
	"s3:PutObject":                  {PermWrite, false},
	"s3:DeleteObject":               {PermWrite, false},
	"s3:AbortMultipartUpload":       {PermWrite, false},
	"s3:ListMultipartUploadParts":   {PermWrite, false},
	"s3:GetBucketAcl":               {PermReadACP, false},
	"s3:PutBucketAcl":               {PermWriteACP, false},
	"s3:GetObject":                  {PermRead, true},
	"s3:GetObjectAcl":               {PermReadACP, true},
	"s3:PutObjectAcl":               {PermWriteACP, true},
	"s3:DeleteObjectVersion":        {PermWrite, false},
	"s3:GetObjectVersion":           {PermRead, true},
	"s3:GetObjectVersionAcl":        {PermReadACP, true},
	"s3:PutObjectVersionAcl":        {PermWriteACP, true},
	// READ of an object lets one ask its attributes too (AWS:
	// "you must have READ access to the object").
	"s3:GetObjectAttributes":        {PermRead, true},
	"s3:GetObjectVersionAttributes": {PermRead, true},
}

// aclDecision is the last rule of Authorize: what the ACLs grant.
func (a *BucketAccess) aclDecision(r Request) error {
	m, ok := aclPermissions[r.Action]
	ignorePublic := a.Block.IgnorePublicACLs
	switch {
	case !ok:
		return ErrAccessDenied
	case !m.object:
		if a.ACL.Allows(r.ID, m.perm, ignorePublic) {
			return nil
		}
	case r.ObjectACL == nil:
		return ErrNeedObjectACL
	case r.ObjectACL.Allows(r.ID, m.perm, ignorePublic):
		return nil
	}
	return ErrAccessDenied
}
