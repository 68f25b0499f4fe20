package objects

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// S3's limits.
const (
	MaxKeyLength = 1024
	MaxPutSize   = 5 << 30 // single PUT and each part
	// InlineMax is the largest object kept in its catalog row instead of a
	// blob, unless its platform asks for less. Small objects are most of a
	// typical store's writes; inline, a durable PUT costs one group commit
	// and no blob flush.
	InlineMax        = 32 << 10
	MaxUserMetaBytes = 2 << 10
)

// Payload is a request body and what the client declared about it.
type Payload struct {
	Body io.Reader
	Size int64 // declared length; -1 if unknown
	// ContentMD5 is the Content-MD5 header as sent (base64), if any.
	ContentMD5 string
	// Algorithms are the checksums to compute and store.
	Algorithms []string
	// Expected returns the checksums the client sent (algorithm -> base64),
	// from headers or trailers; it is called after Body is drained, when
	// trailers are known.
	Expected func() map[string]string

	seal *sealing // encrypt at rest (encrypt.go); nil: plaintext
	// class is the storage class the bytes are written for, which may
	// send them to a platform of their own (classes.go).
	class string
}

// PutInput describes a PutObject.
type PutInput struct {
	Bucket, Key  string
	Payload      Payload
	Meta         catalog.Meta
	StorageClass string
	Cond         catalog.PutOptions
	ACL          iam.ACLSpec
	Lock         *LockRequest // x-amz-object-lock-*; nil: none given
	// Encrypt asks for encryption at rest (nil: none).
	Encrypt *EncryptRequest
	// Event names the change for observers ("" = EventPut).
	Event string
}

// PutObject stores an object: bytes to a fresh durable blob, then one
// catalog commit. It returns the version written, as a response reports
// it (reported).
func (s *Service) PutObject(ctx context.Context, id *iam.Identity, in PutInput) (catalog.Object, error) {
	b, owner, acl, err := s.writeAccess(ctx, id, in.Bucket, in.Key, in.ACL, in.Meta.Tags)
	if err != nil {
		return catalog.Object{}, err
	}
	in.Meta.ACL = acl
	if err := validKey(in.Key); err != nil {
		return catalog.Object{}, err
	}
	if err := validMeta(in.Meta); err != nil {
		return catalog.Object{}, err
	}
	lock, err := newLock(b, in.Lock, time.Now())
	if err != nil {
		return catalog.Object{}, err
	}
	if in.Payload.seal, err = s.newSealing(ctx, b, in.Key, in.Encrypt); err != nil {
		return catalog.Object{}, err
	}
	in.Meta.Encryption = in.Payload.seal.record()
	if in.Payload.class, err = s.writableClass(in.StorageClass); err != nil {
		return catalog.Object{}, err
	}
	st, err := s.writeBlob(ctx, b, in.Payload, true)
	if err != nil {
		return catalog.Object{}, err
	}
	part, sums := st.part, st.sums
	obj := catalog.Object{
		Bucket:       in.Bucket,
		Key:          in.Key,
		VersionID:    versionFor(b),
		Size:         part.Size,
		ETag:         part.ETag,
		LastModified: part.LastModified,
		Owner:        owner,
		StorageClass: storageClass(in.StorageClass),
		Meta:         in.Meta,
		Lock:         lock,
	}
	obj.Meta.Checksums = sums
	if len(sums) > 0 {
		obj.Meta.ChecksumType = "FULL_OBJECT"
	}
	obj.Parts, obj.Inline = st.layout()
	row, err := in.Payload.seal.row(obj)
	if err == nil {
		err = s.commit(ctx, Change{Name: cmp.Or(in.Event, EventPut), Identity: id}, b, row, in.Cond)
	}
	if err != nil {
		s.deleteBlobs(ctx, part.BlobID)
		return catalog.Object{}, err
	}
	return reported(b, obj), nil
}

// commit switches the object to its new version, within the quotas of
// its bucket b, with the events of change c.
func (s *Service) commit(ctx context.Context, c Change, b catalog.Bucket, obj catalog.Object, cond catalog.PutOptions) error {
	var err error
	if cond.Limits, err = s.limits(ctx, b); err != nil {
		return err
	}
	c.Bucket, c.Object = b, obj
	if cond.Events, err = s.observe(ctx, c); err != nil {
		return err
	}
	markPending(cond.Events, &obj.Meta)
	return commitErr(s.cat.PutObject(ctx, obj, cond), "commit", obj)
}

// commitErr maps the catalog's answer to a write.
func commitErr(err error, what string, obj catalog.Object) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, catalog.ErrPreconditionFailed):
		return ErrPreconditionFailed
	case errors.Is(err, catalog.ErrNoSuchObject):
		// If-Match named a version where the key has none: 404, as AWS
		// answers a conditional write with nothing to match.
		return ErrNoSuchKey
	case errors.Is(err, catalog.ErrNoSuchBucket):
		return ErrNoSuchBucket
	case errors.Is(err, catalog.ErrQuotaExceeded):
		return errorf(ErrQuotaExceeded, "The quota of this bucket or its tenant would be exceeded.")
	case errors.Is(err, catalog.ErrObjectLocked):
		return errLocked
	}
	return fmt.Errorf("objects: %s %s/%s: %w", what, obj.Bucket, obj.Key, err)
}

// stored is a payload written and checked: in a blob, or for a small
// object kept in memory for its catalog row (part.BlobID is then "").
type stored struct {
	part   catalog.Part
	inline []byte
	sums   map[string]string
}

// layout is how an object holds the bytes of its one part.
func (st stored) layout() ([]catalog.Part, []byte) {
	switch {
	case st.part.Size == 0:
		return nil, nil
	case st.inline != nil:
		return nil, st.inline
	}
	return []catalog.Part{st.part}, nil
}

// writeBlob streams a payload into a fresh blob where bucket b places
// its blobs, checking its length and digests; on any failure the blob is
// deleted and an S3 error returned. When inline is allowed and the payload
// is no larger than its platform keeps inline, the bytes are kept in
// memory for the catalog row instead of a blob.
func (s *Service) writeBlob(ctx context.Context, b catalog.Bucket, p Payload, inline bool) (stored, error) {
	if p.Size > MaxPutSize {
		return stored{}, errorf(ErrEntityTooLarge, "Your proposed upload exceeds the maximum allowed size")
	}
	var wantMD5 []byte
	if p.ContentMD5 != "" {
		m, err := base64.StdEncoding.DecodeString(p.ContentMD5)
		if err != nil || len(m) != 16 {
			return stored{}, errorf(ErrInvalidDigest, "The Content-MD5 you specified was invalid.")
		}
		wantMD5 = m
	}
	body := p.Body
	if p.Size >= 0 {
		// Read one byte past the declared size to notice an overlong body.
		body = io.LimitReader(body, p.Size+1)
	} else {
		body = io.LimitReader(body, MaxPutSize+1)
	}
	pl, err := s.placement(ctx, b, p.class)
	if err != nil {
		return stored{}, err
	}
	var st stored
	var n int64
	var d *digester
	if inline && p.Size > 0 && p.Size <= pl.inlineMax {
		buf := bytes.NewBuffer(make([]byte, 0, p.Size+1))
		d = newDigester(p.Algorithms, true)
		n, err = io.Copy(buf, io.TeeReader(body, d))
		st.inline = buf.Bytes()
		if err == nil && p.seal != nil {
			st.inline, err = p.seal.sealInline(st.inline)
		}
	} else {
		st.part.BlobID = s.newBlobID(pl, b)
		n, d, err = s.putBlob(ctx, st.part.BlobID, body, p)
	}
	fail := func(e error) (stored, error) {
		s.deleteBlobs(ctx, st.part.BlobID)
		return stored{}, e
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(errorf(ErrIncompleteBody, "You did not provide the number of bytes specified by the Content-Length HTTP header."))
		}
		return fail(fmt.Errorf("objects: write blob: %w", err))
	}
	switch {
	case p.Size >= 0 && n < p.Size:
		return fail(errorf(ErrIncompleteBody, "You did not provide the number of bytes specified by the Content-Length HTTP header."))
	case p.Size >= 0 && n > p.Size:
		return fail(errorf(ErrInvalidRequest, "The request body is longer than its declared length."))
	case n > MaxPutSize:
		return fail(errorf(ErrEntityTooLarge, "Your proposed upload exceeds the maximum allowed size"))
	}
	if wantMD5 != nil && !bytes.Equal(wantMD5, d.md5Sum()) {
		return fail(errorf(ErrBadDigest, "The Content-MD5 you specified did not match what we received."))
	}
	st.sums = d.checksums()
	if p.Expected != nil {
		for algo, want := range p.Expected() {
			if got, ok := st.sums[algo]; ok && got != want {
				return fail(errorf(ErrBadDigest, fmt.Sprintf("The %s you specified did not match the calculated checksum.", algo)))
			}
		}
	}
	st.part.Size, st.part.ETag, st.part.LastModified, st.part.Checksums = n, d.etag(), time.Now().UTC(), st.sums
	if p.seal != nil {
		st.part.ETag = p.seal.etag(d.md5Sum(), st.part.BlobID)
	}
	return st, nil
}

// putBlob streams body into blob id, hashing it on the way; the MD5 comes
// from the platform instead when it reports one, which spares the gateway
// the most expensive hash of every byte.
func (s *Service) putBlob(ctx context.Context, id string, body io.Reader, p Payload) (int64, *digester, error) {
	if p.seal != nil {
		return s.putSealed(ctx, id, body, p)
	}
	if r, ok := s.blobs.(blob.MD5Reporter); ok && r.ReportsMD5(id, p.Size) {
		d := newDigester(p.Algorithms, false)
		n, sum, err := r.PutMD5(ctx, id, io.TeeReader(body, d), p.Size)
		d.knownMD5 = sum
		return n, d, err
	}
	d := newDigester(p.Algorithms, true)
	n, err := s.blobs.Put(ctx, id, io.TeeReader(body, d), p.Size)
	return n, d, err
}

func validKey(key string) error {
	if key == "" {
		return errorf(ErrInvalidArgument, "Object key must not be empty.")
	}
	if len(key) > MaxKeyLength {
		return errorf(ErrKeyTooLong, "Your key is too long")
	}
	if !utf8.ValidString(key) {
		return errorf(ErrInvalidArgument, "Object key must be valid UTF-8.")
	}
	return nil
}

func validMeta(m catalog.Meta) error {
	n := 0
	for k, v := range m.User {
		n += len(k) + len(v)
	}
	if n > MaxUserMetaBytes {
		return errorf(ErrMetadataTooLarge, "Your metadata headers exceed the maximum allowed metadata size.")
	}
	return nil
}

func storageClass(c string) string {
	if c == "" {
		return "STANDARD"
	}
	return c
}
