package iam

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ACL permissions, grantee types and groups, as S3 names them.
const (
	PermFullControl = "FULL_CONTROL"
	PermRead        = "READ"
	PermWrite       = "WRITE"
	PermReadACP     = "READ_ACP"
	PermWriteACP    = "WRITE_ACP"

	GranteeUser  = "CanonicalUser"
	GranteeGroup = "Group"
	GranteeEmail = "AmazonCustomerByEmail"

	AllUsers           = "http://acs.amazonaws.com/groups/global/AllUsers"
	AuthenticatedUsers = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
	LogDelivery        = "http://acs.amazonaws.com/groups/s3/LogDelivery"
)

// Object ownership settings (PutBucketOwnershipControls).
const (
	OwnerEnforced  = "BucketOwnerEnforced" // ACLs disabled; the bucket owner owns every object
	OwnerPreferred = "BucketOwnerPreferred"
	ObjectWriter   = "ObjectWriter"
)

// ACL is an access control list of a bucket or an object.
type ACL struct {
	Owner  string  `json:"owner"` // canonical id
	Grants []Grant `json:"grants"`
}

// Grant gives one grantee one permission.
type Grant struct {
	Type string `json:"type"`          // GranteeUser or GranteeGroup (GranteeEmail until resolved)
	ID   string `json:"id,omitempty"`  // canonical id, for a user
	URI  string `json:"uri,omitempty"` // for a group
	// Email names the grantee of a GranteeEmail grant as the request
	// stated it; the object service resolves it to a canonical id before
	// the grant is stored, as S3 does.
	Email      string `json:"-"`
	Permission string `json:"perm"`
}

// ValidPermission reports whether p is an ACL permission.
func ValidPermission(p string) bool {
	switch p {
	case PermFullControl, PermRead, PermWrite, PermReadACP, PermWriteACP:
		return true
	}
	return false
}

// CannedACL returns the ACL a canned name stands for, owned by owner, in
// a bucket owned by bucketOwner ("" for a bucket's own ACL).
func CannedACL(name, owner, bucketOwner string) (ACL, error) {
	acl := ACL{Owner: owner, Grants: []Grant{{Type: GranteeUser, ID: owner, Permission: PermFullControl}}}
	group := func(uri string, perms ...string) {
		for _, p := range perms {
			acl.Grants = append(acl.Grants, Grant{Type: GranteeGroup, URI: uri, Permission: p})
		}
	}
	switch name {
	case "", "private":
	case "public-read":
		group(AllUsers, PermRead)
	case "public-read-write":
		group(AllUsers, PermRead, PermWrite)
	case "authenticated-read":
		group(AuthenticatedUsers, PermRead)
	case "log-delivery-write":
		group(LogDelivery, PermWrite, PermReadACP)
	case "bucket-owner-read", "bucket-owner-full-control":
		perm := PermRead
		if name == "bucket-owner-full-control" {
			perm = PermFullControl
		}
		if bucketOwner != "" && bucketOwner != owner {
			acl.Grants = append(acl.Grants, Grant{Type: GranteeUser, ID: bucketOwner, Permission: perm})
		}
	default:
		return ACL{}, fmt.Errorf("iam: unknown canned ACL %q", name)
	}
	return acl, nil
}

// ParseGrantHeader reads an x-amz-grant-* header: comma-separated
// id="...", uri="..." or emailAddress="..." grantees.
func ParseGrantHeader(v, perm string) ([]Grant, error) {
	var out []Grant
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("iam: grantee %q is not key=value", item)
		}
		val = strings.Trim(strings.TrimSpace(val), `"`)
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "id":
			out = append(out, Grant{Type: GranteeUser, ID: val, Permission: perm})
		case "uri":
			out = append(out, Grant{Type: GranteeGroup, URI: val, Permission: perm})
		case "emailaddress":
			out = append(out, Grant{Type: GranteeEmail, Email: val, Permission: perm})
		default:
			return nil, fmt.Errorf("iam: unknown grantee type %q", k)
		}
	}
	return out, nil
}

// Public reports whether the ACL grants anything to everyone or to every
// authenticated identity (what public access blocks look for).
func (a ACL) Public() bool {
	for _, g := range a.Grants {
		if g.Type == GranteeGroup && (g.URI == AllUsers || g.URI == AuthenticatedUsers) {
			return true
		}
	}
	return false
}

// Allows reports whether the ACL gives id (nil: anonymous) perm. The
// owner always may read and write the ACL itself, as in S3; public grants
// count only unless ignorePublic.
func (a ACL) Allows(id *Identity, perm string, ignorePublic bool) bool {
	if id != nil && id.CanonicalID == a.Owner && (perm == PermReadACP || perm == PermWriteACP) {
		return true
	}
	for _, g := range a.Grants {
		if g.Permission != perm && g.Permission != PermFullControl {
			continue
		}
		switch {
		case g.Type == GranteeUser && id != nil && g.ID == id.CanonicalID:
			return true
		case g.Type == GranteeGroup && !ignorePublic && g.URI == AllUsers:
			return true
		case g.Type == GranteeGroup && !ignorePublic && g.URI == AuthenticatedUsers && id != nil:
			return true
		}
	}
	return false
}

// EncodeACL and DecodeACL keep an ACL in the catalog. An empty string
// decodes to the private ACL of owner.
func EncodeACL(a ACL) string {
	b, _ := json.Marshal(a)
	return string(b)
}

func DecodeACL(s, owner string) (ACL, error) {
	if s == "" {
		return CannedACL("private", owner, "")
	}
	var a ACL
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return ACL{}, fmt.Errorf("iam: decode ACL: %w", err)
	}
	return a, nil
}

// PublicAccessBlock is a bucket's (or the provider's) public access block.
type PublicAccessBlock struct {
	BlockPublicACLs       bool `json:"block_public_acls"`
	IgnorePublicACLs      bool `json:"ignore_public_acls"`
	BlockPublicPolicy     bool `json:"block_public_policy"`
	RestrictPublicBuckets bool `json:"restrict_public_buckets"`
}

// BlockAll is what AWS sets on every new bucket.
var BlockAll = PublicAccessBlock{true, true, true, true}

// Or combines a bucket's block with the provider's: either one blocks.
func (p PublicAccessBlock) Or(o PublicAccessBlock) PublicAccessBlock {
	return PublicAccessBlock{p.BlockPublicACLs || o.BlockPublicACLs, p.IgnorePublicACLs || o.IgnorePublicACLs,
		p.BlockPublicPolicy || o.BlockPublicPolicy, p.RestrictPublicBuckets || o.RestrictPublicBuckets}
}

func EncodePAB(p PublicAccessBlock) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// DecodePAB reads a stored block; "" is no block.
func DecodePAB(s string) PublicAccessBlock {
	var p PublicAccessBlock
	if s != "" {
		json.Unmarshal([]byte(s), &p)
	}
	return p
}

// ACLSpec is an ACL as a request states it: a canned name (x-amz-acl) or
// explicit grants (x-amz-grant-* headers or an XML body, where an empty
// list still says something). The zero value states nothing.
type ACLSpec struct {
	Canned string
	Grants []Grant // nil: none stated
}

// Stated reports whether the request said anything about the ACL.
func (s ACLSpec) Stated() bool { return s.Canned != "" || s.Grants != nil }

// Resolve returns the ACL s stands for, owned by owner, in a bucket owned
// by bucketOwner ("" for a bucket's own ACL). Explicit grants replace
// the whole list, as in S3.
func (s ACLSpec) Resolve(owner, bucketOwner string) (ACL, error) {
	if s.Grants != nil {
		return ACL{Owner: owner, Grants: s.Grants}, nil
	}
	return CannedACL(s.Canned, owner, bucketOwner)
}

// OnlyOwner reports whether the ACL grants nothing to anyone but owner:
// what a bucket under BucketOwnerEnforced still accepts, the equivalents
// of bucket-owner-full-control.
func (a ACL) OnlyOwner(owner string) bool {
	for _, g := range a.Grants {
		if g.Type != GranteeUser || g.ID != owner {
			return false
		}
	}
	return true
}
