package replicator

import (
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/replication"
)

// maxRemoteLookups bounds the versions of a key looked at to find the
// replica of a version that is no longer its key's current one.
const maxRemoteLookups = 20

// remoteMeta brings the replica of obj at a remote endpoint to obj's
// tags, public grants, retention and legal hold, changing only what
// differs (so that a change that comes back from a target that
// replicates to us too ends there). The replica is the target's version
// that carries obj's version id (MetaSourceVersion); for replica
// modification sync, obj is itself a replica another site wrote, and
// its own MetaSourceVersion names the version there. A replica not found
// is written whole while obj is its key's current version; otherwise
// there is nothing to change.
func (w *Worker) remoteMeta(ctx context.Context, b catalog.Bucket, arn replication.ARN, d Destination, obj catalog.Object, replica bool, open func() (catalog.Object, io.ReadCloser, error)) error {
	t, err := replication.ResolveTarget(ctx, w.cat, b.Tenant, arn.Target)
	if err != nil {
		return err
	}
	rc, err := w.client(ctx, t)
	if err != nil {
		return err
	}
	var version *string
	if replica {
		v := obj.Meta.User[MetaSourceVersion]
		if v == "" {
			return nil // a replica of a bucket of this Ostium: its source is not there
		}
		if _, err := rc.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &arn.Bucket, Key: &obj.Key, VersionId: &v}); err != nil {
			if notFound(err) {
				return nil
			}
			return classify(err)
		}
		version = &v
	} else {
		var found bool
		if version, found, err = findReplica(ctx, rc.c, arn.Bucket, obj); err != nil {
			return err
		}
		if !found {
			if obj.IsLatest {
				return w.toRemote(ctx, b, arn, d, obj, open)
			}
			return nil
		}
	}
	return syncRemote(ctx, rc.c, arn.Bucket, obj, version)
}

// findReplica finds the version of the target that is obj's replica:
// its key's current one, else one of its most recent versions. A
// target without versioning answers no version id: nil, the current.
func findReplica(ctx context.Context, c *s3.Client, bucket string, obj catalog.Object) (*string, bool, error) {
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &obj.Key})
	if err != nil && !notFound(err) {
		return nil, false, classify(err)
	}
	if err == nil && head.Metadata[MetaSourceVersion] == obj.VersionID {
		return head.VersionId, true, nil
	}
	vs, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: &bucket, Prefix: &obj.Key, MaxKeys: aws.Int32(maxRemoteLookups + 1)})
	if err != nil {
		return nil, false, classify(err)
	}
	looked := 0
	for _, v := range vs.Versions {
		if aws.ToString(v.Key) != obj.Key || aws.ToBool(v.IsLatest) || looked >= maxRemoteLookups {
			continue
		}
		looked++
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &obj.Key, VersionId: v.VersionId})
		if err != nil && !notFound(err) {
			return nil, false, classify(err)
		}
		if err == nil && h.Metadata[MetaSourceVersion] == obj.VersionID {
			return v.VersionId, true, nil
		}
	}
	return nil, false, nil
}

// syncRemote changes what differs of the replica's tags, grants to
// everyone or to any authenticated user (the source's grants to users
// name principals of this Ostium, which mean nothing there), retention
// and legal hold.
func syncRemote(ctx context.Context, c *s3.Client, bucket string, obj catalog.Object, version *string) error {
	key := &obj.Key
	tags, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &bucket, Key: key, VersionId: version})
	if err != nil {
		return classify(err)
	}
	have := map[string]string{}
	for _, t := range tags.TagSet {
		have[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	want := obj.Meta.Tags
	if want == nil {
		want = map[string]string{}
	}
	switch {
	case maps.Equal(have, want):
	case len(want) == 0:
		_, err = c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: &bucket, Key: key, VersionId: version})
	default:
		set := make([]types.Tag, 0, len(want))
		for _, k := range slices.Sorted(maps.Keys(want)) {
			set = append(set, types.Tag{Key: aws.String(k), Value: aws.String(want[k])})
		}
		_, err = c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: &bucket, Key: key, VersionId: version,
			Tagging: &types.Tagging{TagSet: set}})
	}
	if err != nil {
		return classify(err)
	}
	if err := syncGrants(ctx, c, bucket, obj, version); err != nil {
		return err
	}
	return syncLock(ctx, c, bucket, obj, version)
}

// publicGrants are an ACL's grants to everyone and to any authenticated
// user, as "uri permission", sorted.
func publicGrants(uris func(yield func(uri, perm string) bool)) []string {
	var out []string
	for uri, perm := range uris {
		if public(uri) {
			out = append(out, uri+" "+perm)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func syncGrants(ctx context.Context, c *s3.Client, bucket string, obj catalog.Object, version *string) error {
	acl, err := iam.DecodeACL(obj.Meta.ACL, obj.Owner)
	if err != nil {
		return permanent{err}
	}
	want := publicGrants(func(yield func(string, string) bool) {
		for _, g := range acl.Grants {
			if g.Type == iam.GranteeGroup && !yield(g.URI, g.Permission) {
				return
			}
		}
	})
	cur, err := c.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: &bucket, Key: &obj.Key, VersionId: version})
	if err != nil {
		return classify(err)
	}
	have := publicGrants(func(yield func(string, string) bool) {
		for _, g := range cur.Grants {
			if g.Grantee != nil && g.Grantee.Type == types.TypeGroup && !yield(aws.ToString(g.Grantee.URI), string(g.Permission)) {
				return
			}
		}
	})
	if slices.Equal(have, want) {
		return nil
	}
	// The target's own grants stay; its public ones become the source's.
	// Sent as x-amz-grant-* headers, which every S3 server takes (an
	// AccessControlPolicy body with group grants is not read alike).
	by := map[string][]string{}
	for _, g := range cur.Grants {
		switch {
		case g.Grantee == nil:
		case g.Grantee.Type == types.TypeCanonicalUser:
			by[string(g.Permission)] = append(by[string(g.Permission)], `id="`+aws.ToString(g.Grantee.ID)+`"`)
		case g.Grantee.Type == types.TypeGroup && !public(aws.ToString(g.Grantee.URI)):
			by[string(g.Permission)] = append(by[string(g.Permission)], `uri="`+aws.ToString(g.Grantee.URI)+`"`)
		}
	}
	for _, g := range acl.Grants {
		if g.Type == iam.GranteeGroup && public(g.URI) {
			by[g.Permission] = append(by[g.Permission], `uri="`+g.URI+`"`)
		}
	}
	in := &s3.PutObjectAclInput{Bucket: &bucket, Key: &obj.Key, VersionId: version}
	for perm, p := range map[string]**string{iam.PermFullControl: &in.GrantFullControl, iam.PermRead: &in.GrantRead,
		iam.PermReadACP: &in.GrantReadACP, iam.PermWriteACP: &in.GrantWriteACP} {
		if gs := by[perm]; len(gs) > 0 {
			*p = aws.String(strings.Join(gs, ", "))
		}
	}
	_, err = c.PutObjectAcl(ctx, in)
	return classify(err)
}

func public(uri string) bool { return uri == iam.AllUsers || uri == iam.AuthenticatedUsers }

// syncLock changes the replica's retention and legal hold where they
// differ from obj's; a version without retention leaves the replica's
// alone (the target's default stands, as for a new replica).
func syncLock(ctx context.Context, c *s3.Client, bucket string, obj catalog.Object, version *string) error {
	l := obj.Lock
	if l.Mode != "" {
		cur, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: &bucket, Key: &obj.Key, VersionId: version})
		if err != nil && !noLock(err) {
			return classify(err)
		}
		same := err == nil && cur.Retention != nil && string(cur.Retention.Mode) == string(l.Mode) &&
			aws.ToTime(cur.Retention.RetainUntilDate).Unix() == l.RetainUntil.Unix()
		if !same {
			_, err := c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: &bucket, Key: &obj.Key, VersionId: version,
				Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionMode(l.Mode), RetainUntilDate: aws.Time(l.RetainUntil)}})
			if err != nil {
				return classify(err)
			}
		}
	}
	hold, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: &bucket, Key: &obj.Key, VersionId: version})
	if err != nil && !noLock(err) {
		return classify(err)
	}
	on := err == nil && hold.LegalHold != nil && hold.LegalHold.Status == types.ObjectLockLegalHoldStatusOn
	if on == l.LegalHold {
		return nil
	}
	status := types.ObjectLockLegalHoldStatusOff
	if l.LegalHold {
		status = types.ObjectLockLegalHoldStatusOn
	}
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: &bucket, Key: &obj.Key, VersionId: version,
		LegalHold: &types.ObjectLockLegalHold{Status: status}})
	return classify(err)
}

// noLock tells a target's answer that a version has no retention or
// legal hold, or its bucket no object lock.
func noLock(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "NoSuchObjectLockConfiguration", "ObjectLockConfigurationNotFoundError", "InvalidRequest":
		return true
	}
	return false
}
