package objects

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/replication"
)

// CopyInput describes CopyObject.
type CopyInput struct {
	SrcBucket, SrcKey, SrcVersion string
	SrcCond                       Conditions // x-amz-copy-source-if-*
	Bucket, Key                   string
	ReplaceMeta                   bool // metadata directive REPLACE
	Meta                          catalog.Meta
	StorageClass                  string
	Cond                          catalog.PutOptions // on the destination
	ACL                           iam.ACLSpec        // the copy's; it never inherits the source's
	// ReplaceTags (tagging directive REPLACE) gives the copy Tags rather
	// than the source's.
	ReplaceTags bool
	Tags        map[string]string
	// Lock is the copy's object lock (x-amz-object-lock-*); as on AWS
	// it never inherits the source's.
	Lock *LockRequest
	// Encrypt is the copy's encryption at rest (nil: none); as on AWS it
	// never inherits the source's. SrcCustomerKey is the source's SSE-C
	// key (x-amz-copy-source-server-side-encryption-customer-key).
	Encrypt        *EncryptRequest
	SrcCustomerKey []byte
}

// CopyObject copies an object's bytes (of its current version, or of
// in.SrcVersion) into a fresh blob of the destination. Both versions come
// back as a response reports them (reported).
func (s *Service) CopyObject(ctx context.Context, id *iam.Identity, in CopyInput) (src, dst catalog.Object, err error) {
	var setTags map[string]string // the tags this request states
	if in.ReplaceTags {
		setTags = in.Tags
	}
	b, owner, acl, err := s.writeAccess(ctx, id, in.Bucket, in.Key, in.ACL, setTags)
	if err != nil {
		return src, dst, err
	}
	if err := validKey(in.Key); err != nil {
		return src, dst, err
	}
	if in.Bucket == in.SrcBucket && in.Key == in.SrcKey && in.SrcVersion == "" && !in.ReplaceMeta && in.StorageClass == "" && in.Encrypt == nil {
		return src, dst, errorf(ErrInvalidRequest, "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.")
	}
	lock, err := newLock(b, in.Lock, time.Now())
	if err != nil {
		return src, dst, err
	}
	src, r, err := s.openSource(ctx, id, in.SrcBucket, in.SrcKey, in.SrcVersion, in.SrcCond, nil, in.SrcCustomerKey)
	if err != nil {
		return src, dst, err
	}
	defer r.Close()
	meta := src.Meta
	if in.ReplaceMeta {
		meta = in.Meta
	}
	meta.Tags = src.Meta.Tags
	meta.UploadID = "" // a copy is no upload's completion
	// Nor a replica, nor replicated yet: its status is its own, and the
	// mark of another site's replica (which names the version it copies)
	// is not copied.
	meta.Replication = ""
	if !in.ReplaceMeta && meta.User[replication.MetaSourceVersion] != "" {
		meta.User = maps.Clone(meta.User)
		delete(meta.User, replication.MetaSourceVersion)
	}
	if in.ReplaceTags {
		meta.Tags = in.Tags
	}
	if err := validMeta(meta); err != nil {
		return src, dst, err
	}
	algos := checksumNames(src.Meta.Checksums)
	seal, err := s.newSealing(ctx, b, in.Key, in.Encrypt)
	if err != nil {
		return src, dst, err
	}
	meta.Encryption = seal.record()
	// AWS: a copy is STANDARD unless the request names a class, whatever
	// the source's (its class's platform is where its bytes go).
	sc, err := s.writableClass(in.StorageClass)
	if err != nil {
		return src, dst, err
	}
	st, err := s.writeBlob(ctx, b, Payload{Body: r, Size: src.Size, Algorithms: algos, seal: seal, class: sc}, true)
	if err != nil {
		return src, dst, err
	}
	part, sums := st.part, st.sums
	meta.Checksums, meta.ChecksumType, meta.ACL = sums, "", acl
	if len(sums) > 0 {
		meta.ChecksumType = "FULL_OBJECT"
	}
	dst = catalog.Object{
		Bucket: in.Bucket, Key: in.Key, VersionID: versionFor(b),
		Size: part.Size, ETag: part.ETag, LastModified: part.LastModified,
		Owner: owner, StorageClass: storageClass(sc), Meta: meta, Lock: lock,
	}
	dst.Parts, dst.Inline = st.layout()
	row, err := seal.row(dst)
	if err == nil {
		err = s.commit(ctx, Change{Name: EventCopy, Identity: id}, b, row, in.Cond)
	}
	if err != nil {
		s.deleteBlobs(ctx, part.BlobID)
		return src, catalog.Object{}, err
	}
	return src, reported(b, dst), nil
}

// MaxCopySize is the largest source CopyObject accepts, as S3.
const MaxCopySize = 5 << 30

// openSource authorizes reading a copy source, checks its conditions and
// opens the (ranged) bytes.
func (s *Service) openSource(ctx context.Context, id *iam.Identity, bucket, key, version string, cond Conditions, rng *ByteRange, customer []byte) (catalog.Object, *Reader, error) {
	b, _, t, err := s.bucketTarget(ctx, iam.Request{ID: id, Action: versionAction("s3:GetObject", version), Key: key}, bucket, version)
	if err != nil {
		return catalog.Object{}, nil, err
	}
	src, err := s.lookup(ctx, t)
	if errors.Is(err, ErrMethodNotAllowed) {
		return src, nil, errorf(ErrInvalidRequest, "The source of a copy request may not specifically refer to a delete marker by version id.")
	}
	if err != nil {
		return src, nil, err
	}
	src = reported(b, src)
	if err := cond.check(src, false); err != nil {
		return src, nil, err
	}
	start, length := int64(0), src.Size
	if rng != nil {
		if rng.Suffix > 0 || rng.Last < 0 || rng.First > rng.Last || rng.Last >= src.Size {
			return src, nil, errorf(ErrInvalidArgument, fmt.Sprintf("Range specified is not valid for source object of size: %d", src.Size))
		}
		start, length = rng.First, rng.Last-rng.First+1
	}
	if length > MaxCopySize {
		return src, nil, errorf(ErrInvalidRequest, fmt.Sprintf("The specified copy source is larger than the maximum allowable size for a copy source: %d", int64(MaxCopySize)))
	}
	dk, err := s.dataKey(ctx, b, src.Key, src.Meta.Encryption, customer, true)
	if err != nil {
		return src, nil, err
	}
	if src, err = openChecksums(src, dk); err != nil {
		return src, nil, err
	}
	body, err := s.open(ctx, src, dk, start, length)
	if err != nil {
		return src, nil, err
	}
	return src, &Reader{Object: src, Start: start, Length: length, Body: body}, nil
}

func (r *Reader) Close() error {
	if r.Body == nil {
		return nil
	}
	return r.Body.Close()
}

// Read reads the opened bytes.
func (r *Reader) Read(p []byte) (int, error) { return r.Body.Read(p) }

func checksumNames(m map[string]string) []string {
	var out []string
	for _, a := range ChecksumAlgorithms() {
		if _, ok := m[a]; ok {
			out = append(out, a)
		}
	}
	return out
}
