package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objectlock"
	"github.com/ostiumio/ostium/internal/replication"
)

// ErrNoSuchReplicationConfiguration: the bucket has no replication rules.
var ErrNoSuchReplicationConfiguration = errors.New("no such replication configuration")

// Actions AWS's replication asks of the destination's owner.
const (
	actionReplicateObject iam.Action = "s3:ReplicateObject"
	actionReplicateDelete iam.Action = "s3:ReplicateDelete"
	actionReplicateTags   iam.Action = "s3:ReplicateTags"
)

// GetBucketReplication returns a bucket's replication configuration;
// ErrNoSuchReplicationConfiguration when it has none.
func (s *Service) GetBucketReplication(ctx context.Context, id *iam.Identity, bucket string) (*replication.Configuration, error) {
	b, err := s.settings(ctx, id, bucket, "s3:GetReplicationConfiguration")
	if err != nil {
		return nil, err
	}
	c, err := replication.Decode(b.Replication)
	if err != nil {
		return nil, fmt.Errorf("objects: replication of %s: %w", bucket, err)
	}
	if c == nil {
		return nil, ErrNoSuchReplicationConfiguration
	}
	return c, nil
}

// PutBucketReplication replaces a bucket's replication configuration,
// which the caller has parsed (replication.Parse validates its shape).
// As AWS: the bucket must have versioning enabled, and so must a
// destination of this Ostium, which must exist and which the caller
// must be allowed to replicate into (s3:ReplicateObject, decided as for
// any request of the caller); a remote destination must be a target
// the caller's tenant registered or the provider shares. The caller is
// kept with the configuration: every delivery is decided again as it.
func (s *Service) PutBucketReplication(ctx context.Context, id *iam.Identity, bucket string, c *replication.Configuration) error {
	b, err := s.settings(ctx, id, bucket, "s3:PutReplicationConfiguration")
	if err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if b.Versioning != VersioningEnabled {
		return errorf(ErrInvalidRequest, "Versioning must be 'Enabled' on the bucket to apply a replication configuration")
	}
	for _, d := range c.Destinations() {
		if d.Target != "" {
			if _, err := replication.ResolveTarget(ctx, s.cat, b.Tenant, d.Target); err != nil {
				if errors.Is(err, catalog.ErrNoSuchReplicationTarget) {
					return errorf(ErrInvalidRequest, "Destination bucket must exist: no replication target named "+d.Target)
				}
				return err
			}
			continue
		}
		if d.Bucket == bucket {
			return errorf(ErrInvalidRequest, "Destination bucket cannot be the same as the source bucket.")
		}
		if _, err := s.replicaBucket(ctx, id, d.Bucket, "", actionReplicateObject); err != nil {
			return err
		}
	}
	c.Writer = replication.Writer{Root: id.Root, Tenant: id.Tenant, User: id.User, CanonicalID: id.CanonicalID}
	if id.App != nil {
		c.Writer.App = &replication.AppLimits{Buckets: id.App.Buckets, ReadOnly: id.App.ReadOnly}
	}
	return s.setSetting(ctx, bucket, catalog.SettingReplication, c.Encode())
}

// replicaBucket loads a destination bucket of this Ostium and decides
// action on it as id: it must exist and have versioning enabled, as AWS
// answers a configuration naming it.
func (s *Service) replicaBucket(ctx context.Context, id *iam.Identity, name, key string, action iam.Action) (catalog.Bucket, error) {
	b, err := s.bucket(ctx, id, name, key, action)
	switch {
	case errors.Is(err, ErrNoSuchBucket):
		return b, errorf(ErrInvalidRequest, "Destination bucket must exist.")
	case err != nil:
		return b, err
	case b.Versioning != VersioningEnabled:
		return b, errorf(ErrInvalidRequest, "Destination bucket must have versioning enabled.")
	}
	return b, nil
}

// DeleteBucketReplication removes a bucket's replication rules; AWS
// authorizes it as s3:PutReplicationConfiguration.
func (s *Service) DeleteBucketReplication(ctx context.Context, id *iam.Identity, bucket string) error {
	if _, err := s.bucket(ctx, id, bucket, "", "s3:PutReplicationConfiguration"); err != nil {
		return err
	}
	return s.setSetting(ctx, bucket, catalog.SettingReplication, "")
}

// ErrReplicaSSEC: a version encrypted with a customer's key cannot be
// read by the replicator, which never holds that key.
var ErrReplicaSSEC = errors.New("objects: SSE-C versions are not replicated")

// OpenVersion opens one version of a bucket for the replicator, with no
// caller to authorize (the configuration's writer is decided at the
// destination): the version (Meta as stored, delete markers included,
// the body nil for them) and its plaintext. ErrNoSuchObject if it is
// gone; ErrReplicaSSEC for a customer-keyed version.
func (s *Service) OpenVersion(ctx context.Context, bucket, key, versionID string) (catalog.Object, io.ReadCloser, error) {
	obj, err := s.cat.GetObject(ctx, bucket, key, versionID)
	if err != nil {
		return obj, nil, err
	}
	if obj.DeleteMarker {
		return obj, nil, nil
	}
	if obj.Meta.Encryption != nil && obj.Meta.Encryption.Kind == KindSSEC {
		return obj, nil, ErrReplicaSSEC
	}
	b, _, err := s.getBucket(ctx, bucket)
	if err != nil {
		return obj, nil, err
	}
	dk, err := s.dataKey(ctx, b, key, obj.Meta.Encryption, nil, true)
	if err != nil {
		return obj, nil, err
	}
	body, err := s.open(ctx, obj, dk, 0, obj.Size)
	return obj, body, err
}

// ReplicaInput is a version to write into a destination bucket of this
// Ostium, as the source holds it.
type ReplicaInput struct {
	Bucket string         // the destination
	Source catalog.Object // the source's version (key, id, meta, lock, ...)
	Body   io.Reader      // its plaintext; nil for a delete marker
	// StorageClass replaces the source's when set (the rule's).
	StorageClass string
	// KMSKeyID seals a replica of an SSE-KMS version under this key of
	// the destination's tenant ("" = its default key).
	KMSKeyID string
	// OwnerIsDestination gives the replica to the destination bucket's
	// owner (AccessControlTranslation), else it keeps the source's owner
	// and ACL.
	OwnerIsDestination bool
}

// PutReplica writes a replica as id, the configuration's writer, who
// must still be allowed to replicate into the destination. The replica
// keeps the source's version id, so writing it again (a delivery
// repeated after a crash) replaces the same version: idempotent. A
// version already there with the same ETag is left as it is. Replicas
// carry x-amz-replication-status REPLICA.
func (s *Service) PutReplica(ctx context.Context, id *iam.Identity, in ReplicaInput) error {
	src := in.Source
	action := actionReplicateObject
	if src.DeleteMarker {
		action = actionReplicateDelete
	}
	b, err := s.replicaBucket(ctx, id, in.Bucket, src.Key, action)
	if err != nil {
		return err
	}
	if old, err := s.cat.GetObject(ctx, b.Name, src.Key, src.VersionID); err == nil &&
		old.DeleteMarker == src.DeleteMarker && old.ETag == src.ETag {
		return nil
	} else if err != nil && !errors.Is(err, catalog.ErrNoSuchObject) {
		return fmt.Errorf("objects: replica %s/%s: %w", b.Name, src.Key, err)
	}
	owner := src.Owner
	if in.OwnerIsDestination || owner == "" {
		owner = b.Owner
	}
	if src.DeleteMarker {
		m := catalog.Object{Bucket: b.Name, Key: src.Key, VersionID: src.VersionID, DeleteMarker: true,
			LastModified: src.LastModified, Owner: owner}
		events, err := s.observe(ctx, Change{Name: EventDeleteMarker, Bucket: b, Object: m, Identity: id})
		if err != nil {
			return err
		}
		return commitErr(s.cat.PutObject(ctx, m, catalog.PutOptions{Events: events}), "replicate delete marker", m)
	}
	meta := src.Meta
	meta.Replication = replication.StatusReplica
	meta.Encryption = nil
	if in.OwnerIsDestination {
		meta.ACL = ""
	}
	if src.Lock != (catalog.Lock{}) {
		if cfg, err := lockConfig(b); err != nil || !cfg.Enabled {
			return errorf(ErrInvalidRequest, "Destination bucket must have object lock enabled to replicate a locked version.")
		}
	}
	var req *EncryptRequest // the destination's default
	if enc := src.Meta.Encryption; enc != nil {
		req = &EncryptRequest{Kind: enc.Kind, BucketKey: enc.BucketKey}
		if enc.Kind == KindKMS {
			req.KeyID, req.Context = in.KMSKeyID, enc.Context
		}
	}
	p := Payload{Body: in.Body, Size: src.Size}
	if p.seal, err = s.newSealing(ctx, b, src.Key, req); err != nil {
		return err
	}
	meta.Encryption = p.seal.record()
	st, err := s.writeBlob(ctx, b, p, true)
	if err != nil {
		return err
	}
	class := src.StorageClass
	if in.StorageClass != "" {
		class = in.StorageClass
	}
	obj := catalog.Object{
		Bucket: b.Name, Key: src.Key, VersionID: src.VersionID,
		Size: st.part.Size, ETag: src.ETag, LastModified: src.LastModified,
		Owner: owner, StorageClass: storageClass(class), Meta: meta, Lock: src.Lock,
	}
	if obj.ETag == "" {
		obj.ETag = st.part.ETag
	}
	obj.Parts, obj.Inline = st.layout()
	row, err := p.seal.row(obj)
	if err == nil {
		err = s.commit(ctx, Change{Name: EventPut, Identity: id}, b, row, catalog.PutOptions{})
	}
	if err != nil {
		s.deleteBlobs(ctx, st.part.BlobID)
		return err
	}
	return nil
}

// PutReplicaMeta brings a replica's tags, ACL, retention and legal hold
// to what the version it copies (in.Source, as it is now) holds: the
// version of the same id in in.Bucket, written there by PutReplica, or,
// for replica modification sync, the source version a replica was made
// from. It is done as id, the configuration's writer, who must still be
// allowed to replicate into the bucket (s3:ReplicateTags for tags, as
// AWS asks, and s3:ReplicateObject), and only what differs is changed,
// each as a change that arrived by replication, which is not
// replicated again. A retention the replica's own lock does not let
// shorten is refused (AccessDenied) unless id may bypass governance
// there. ErrNoSuchObject when the bucket holds no such version.
func (s *Service) PutReplicaMeta(ctx context.Context, id *iam.Identity, in ReplicaInput) error {
	src := in.Source
	b, err := s.replicaBucket(ctx, id, in.Bucket, src.Key, actionReplicateObject)
	if err != nil {
		return err
	}
	cur, err := s.cat.GetObject(ctx, b.Name, src.Key, src.VersionID)
	if err != nil {
		return fmt.Errorf("objects: replica %s/%s: %w", b.Name, src.Key, err)
	}
	if cur.DeleteMarker || src.DeleteMarker {
		return nil
	}
	ctx = iam.WithOrigin(ctx, iam.Origin{Replication: true})
	change := func(name string, o catalog.Object) (catalog.ChangeOptions, error) {
		return s.observeChange(ctx, name, id, b, o)
	}
	if !maps.Equal(cur.Meta.Tags, src.Meta.Tags) {
		if _, err := s.bucket(ctx, id, b.Name, src.Key, actionReplicateTags); err != nil {
			return err
		}
		ot, err := s.objectTags()
		if err != nil {
			return err
		}
		cur.Meta.Tags = maps.Clone(src.Meta.Tags)
		opt, err := change(EventTaggingPut, cur)
		if err == nil {
			err = ot.SetObjectTags(ctx, b.Name, src.Key, cur.VersionID, cur.Meta.Tags, opt)
		}
		if err != nil {
			return fmt.Errorf("objects: replica tags of %s/%s: %w", b.Name, src.Key, err)
		}
	}
	if !in.OwnerIsDestination && cur.Meta.ACL != src.Meta.ACL {
		cur.Meta.ACL = src.Meta.ACL
		opt, err := change(EventACLPut, cur)
		if err == nil {
			err = s.cat.SetObjectACL(ctx, b.Name, src.Key, cur.VersionID, cur.Meta.ACL, opt)
		}
		if err != nil {
			return fmt.Errorf("objects: replica ACL of %s/%s: %w", b.Name, src.Key, err)
		}
	}
	if cur.Lock == src.Lock {
		return nil
	}
	if cfg, err := lockConfig(b); err != nil || !cfg.Enabled {
		return errorf(ErrInvalidRequest, "Destination bucket must have object lock enabled to replicate a locked version.")
	}
	if cur.Lock.Mode != src.Lock.Mode || !cur.Lock.RetainUntil.Equal(src.Lock.RetainUntil) {
		_, a, err := s.getBucket(ctx, b.Name)
		if err != nil {
			return err
		}
		bypass, err := s.mayBypass(ctx, id, b, a, src.Key, true)
		if err != nil {
			return err
		}
		cur.Lock.Mode, cur.Lock.RetainUntil = src.Lock.Mode, src.Lock.RetainUntil
		opt, err := change(EventRetentionPut, cur)
		if err != nil {
			return err
		}
		opt.BypassGovernance = bypass.BypassGovernance
		r := objectlock.Retention{Mode: src.Lock.Mode, Until: src.Lock.RetainUntil}
		if _, err := s.cat.SetRetention(ctx, b.Name, src.Key, cur.VersionID, r, opt); err != nil {
			return s.lockChangeErr(err, b.Name, src.Key, cur.VersionID)
		}
	}
	if cur.Lock.LegalHold != src.Lock.LegalHold {
		cur.Lock.LegalHold = src.Lock.LegalHold
		opt, err := change(EventLegalHoldPut, cur)
		if err == nil {
			_, err = s.cat.SetLegalHold(ctx, b.Name, src.Key, cur.VersionID, cur.Lock.LegalHold, opt)
		}
		if err != nil {
			return s.lockChangeErr(err, b.Name, src.Key, cur.VersionID)
		}
	}
	return nil
}

// markPending gives a version the replication status PENDING when the
// replication observer queued an event for it, in the same row as the
// event, so that a HEAD right after the write says so. A replica stays
// as it is: REPLICA, or with no status when another site's replication
// wrote it (its changes go back by replica modification sync).
func markPending(events []catalog.Event, m *catalog.Meta) {
	if replication.IsReplica(m.Replication, m.User) {
		return
	}
	for _, e := range events {
		if e.Sink == replication.Sink {
			m.Replication = replication.StatusPending
			return
		}
	}
}
