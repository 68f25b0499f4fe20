package objects

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// aclConditions are the policy condition keys an ACL stated with a write
// defines.
func aclConditions(spec iam.ACLSpec) map[string][]string {
	if spec.Canned == "" {
		return nil
	}
	return map[string][]string{"s3:x-amz-acl": {spec.Canned}}
}

// resolve turns grants by e-mail into grants to the user with that
// address, as S3 does before it stores an ACL.
func (s *Service) resolve(ctx context.Context, spec iam.ACLSpec) (iam.ACLSpec, error) {
	if spec.Grants == nil {
		return spec, nil
	}
	out := make([]iam.Grant, 0, len(spec.Grants))
	for _, g := range spec.Grants {
		if g.Type == iam.GranteeEmail {
			u, err := s.cat.UserByEmail(ctx, strings.ToLower(g.Email))
			if errors.Is(err, catalog.ErrNoSuchUser) {
				return spec, ErrUnresolvableGrantByEmailAddress
			}
			if err != nil {
				return spec, fmt.Errorf("objects: resolve grantee %s: %w", g.Email, err)
			}
			g = iam.Grant{Type: iam.GranteeUser, ID: u.CanonicalID, Permission: g.Permission}
		}
		out = append(out, g)
	}
	spec.Grants = out
	return spec, nil
}

// checkACL applies the bucket's ownership and public access block to an
// ACL a request sets: ACLs disabled refuse any but the owner's own, a
// public one is refused under BlockPublicAcls (both as AWS).
func checkACL(a *iam.BucketAccess, acl iam.ACL, owner string) error {
	switch {
	case !a.ACLsEnabled() && !acl.OnlyOwner(owner):
		return ErrACLNotSupported
	case a.Block.BlockPublicACLs && acl.Public():
		return ErrAccessDenied
	}
	return nil
}

// writeAccess decides a write of key into bucket by id with the ACL spec
// and the tags it sets (s3:PutObject; with tags, s3:PutObjectTagging
// too) and returns the bucket with the new object's owner and stored
// ACL. The writer owns what it writes unless the bucket owner
// takes over: always under BucketOwnerEnforced, when asked with
// bucket-owner-full-control under BucketOwnerPreferred, and for anonymous
// writers.
func (s *Service) writeAccess(ctx context.Context, id *iam.Identity, bucket, key string, spec iam.ACLSpec, tags map[string]string) (_ catalog.Bucket, owner, acl string, _ error) {
	r := iam.Request{ID: id, Action: "s3:PutObject", Key: key, Conditions: aclConditions(spec), RequestTags: tags}
	b, a, err := s.bucketFor(ctx, r, bucket, "")
	if err == nil {
		err = s.mayTagNew(ctx, id, b, a, key, tags)
	}
	if err != nil {
		return b, "", "", err
	}
	if spec, err = s.resolve(ctx, spec); err != nil {
		return b, "", "", err
	}
	owner = b.Owner
	if a.ACLsEnabled() && id != nil && !(a.Ownership == iam.OwnerPreferred && spec.Canned == "bucket-owner-full-control") {
		owner = id.CanonicalID
	}
	if !spec.Stated() {
		return b, owner, "", nil
	}
	resolved, err := spec.Resolve(owner, b.Owner)
	if err != nil {
		return b, "", "", errorf(ErrInvalidArgument, err.Error())
	}
	if err := checkACL(a, resolved, b.Owner); err != nil {
		return b, "", "", err
	}
	if !a.ACLsEnabled() {
		return b, owner, "", nil
	}
	return b, owner, iam.EncodeACL(resolved), nil
}

// objectACL is o's ACL as it counts: the bucket owner's alone while ACLs
// are disabled.
func objectACL(a *iam.BucketAccess, b catalog.Bucket, o catalog.Object) (iam.ACL, error) {
	if !a.ACLsEnabled() {
		return iam.CannedACL("private", b.Owner, "")
	}
	acl, err := iam.DecodeACL(o.Meta.ACL, o.Owner)
	if err != nil {
		return acl, fmt.Errorf("objects: ACL of %s/%s: %w", b.Name, o.Key, err)
	}
	return acl, nil
}

// GetBucketACL returns a bucket's ACL.
func (s *Service) GetBucketACL(ctx context.Context, id *iam.Identity, bucket string) (iam.ACL, error) {
	b, a, err := s.freshBucketFor(ctx, iam.Request{ID: id, Action: "s3:GetBucketAcl"}, bucket)
	if err != nil {
		return iam.ACL{}, err
	}
	if !a.ACLsEnabled() {
		return iam.CannedACL("private", b.Owner, "")
	}
	return a.ACL, nil
}

// PutBucketACL replaces a bucket's ACL.
func (s *Service) PutBucketACL(ctx context.Context, id *iam.Identity, bucket string, spec iam.ACLSpec) error {
	r := iam.Request{ID: id, Action: "s3:PutBucketAcl", Conditions: aclConditions(spec)}
	b, a, err := s.bucketFor(ctx, r, bucket, "")
	if err != nil {
		return err
	}
	if spec, err = s.resolve(ctx, spec); err != nil {
		return err
	}
	acl, err := spec.Resolve(b.Owner, "")
	if err != nil {
		return errorf(ErrInvalidArgument, err.Error())
	}
	if err := checkACL(a, acl, b.Owner); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingACL, iam.EncodeACL(acl))
}

// GetObjectACL returns the ACL of an object version ("" = current).
func (s *Service) GetObjectACL(ctx context.Context, id *iam.Identity, bucket, key, version string) (iam.ACL, error) {
	b, a, o, err := s.aclObject(ctx, iam.Request{ID: id, Action: versionAction("s3:GetObjectAcl", version), Key: key}, bucket, version)
	if err != nil {
		return iam.ACL{}, err
	}
	return objectACL(a, b, o)
}

// PutObjectACL replaces the ACL of an object version ("" = current).
func (s *Service) PutObjectACL(ctx context.Context, id *iam.Identity, bucket, key, version string, spec iam.ACLSpec) error {
	r := iam.Request{ID: id, Action: versionAction("s3:PutObjectAcl", version), Key: key, Conditions: aclConditions(spec)}
	b, a, o, err := s.aclObject(ctx, r, bucket, version)
	if err != nil {
		return err
	}
	if spec, err = s.resolve(ctx, spec); err != nil {
		return err
	}
	acl, err := spec.Resolve(o.Owner, b.Owner)
	if err != nil {
		return errorf(ErrInvalidArgument, err.Error())
	}
	if err := checkACL(a, acl, b.Owner); err != nil {
		return err
	}
	changed := o
	changed.Meta.ACL = iam.EncodeACL(acl)
	opt, err := s.observeChange(ctx, EventACLPut, id, b, changed)
	if err != nil {
		return err
	}
	err = s.cat.SetObjectACL(ctx, bucket, key, o.VersionID, changed.Meta.ACL, opt)
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return ErrNoSuchKey
	}
	if err != nil {
		return fmt.Errorf("objects: set ACL of %s/%s: %w", bucket, key, err)
	}
	return nil
}

// aclObject authorizes r on an object version and loads it.
func (s *Service) aclObject(ctx context.Context, r iam.Request, bucket, version string) (catalog.Bucket, *iam.BucketAccess, catalog.Object, error) {
	b, a, t, err := s.bucketTarget(ctx, r, bucket, version)
	if err != nil {
		return b, nil, catalog.Object{}, err
	}
	o, err := s.lookup(ctx, t)
	return b, a, o, err
}
