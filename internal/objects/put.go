package objects

import (
	"bytes"
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
	MaxKeyLength     = 1024
	MaxPutSize       = 5 << 30 // single PUT and each part
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
}

// PutInput describes a PutObject.
type PutInput struct {
	Bucket, Key  string
	Payload      Payload
	Meta         catalog.Meta
	StorageClass string
	Cond         catalog.PutOptions
}

// PutObject stores an object: bytes to a fresh durable blob, then one
// catalog commit.
func (s *Service) PutObject(ctx context.Context, id *iam.Identity, in PutInput) (catalog.Object, error) {
	b, err := s.bucket(ctx, id, in.Bucket, "s3:PutObject")
	if err != nil {
		return catalog.Object{}, err
	}
	if err := validKey(in.Key); err != nil {
		return catalog.Object{}, err
	}
	if err := validMeta(in.Meta); err != nil {
		return catalog.Object{}, err
	}
	part, sums, err := s.writeBlob(ctx, in.Payload)
	if err != nil {
		return catalog.Object{}, err
	}
	obj := catalog.Object{
		Bucket:       in.Bucket,
		Key:          in.Key,
		VersionID:    catalog.NullVersion,
		Size:         part.Size,
		ETag:         part.ETag,
		LastModified: part.LastModified,
		Owner:        b.Owner,
		StorageClass: storageClass(in.StorageClass),
		Meta:         in.Meta,
	}
	obj.Meta.Checksums = sums
	if len(sums) > 0 {
		obj.Meta.ChecksumType = "FULL_OBJECT"
	}
	if part.Size > 0 {
		obj.Parts = []catalog.Part{part}
	}
	if err := s.commit(ctx, obj, in.Cond); err != nil {
		s.deleteBlobs(ctx, part.BlobID)
		return catalog.Object{}, err
	}
	return obj, nil
}

// commit switches the object to its new version.
func (s *Service) commit(ctx context.Context, obj catalog.Object, cond catalog.PutOptions) error {
	err := s.cat.PutObject(ctx, obj, cond)
	switch {
	case errors.Is(err, catalog.ErrPreconditionFailed):
		return ErrPreconditionFailed
	case errors.Is(err, catalog.ErrNoSuchBucket):
		return ErrNoSuchBucket
	case err != nil:
		return fmt.Errorf("objects: commit %s/%s: %w", obj.Bucket, obj.Key, err)
	}
	return nil
}

// writeBlob streams a payload into a fresh blob, checking its length and
// digests; on any failure the blob is deleted and an S3 error returned. The
// returned part carries the blob id, size, ETag and checksums.
func (s *Service) writeBlob(ctx context.Context, p Payload) (catalog.Part, map[string]string, error) {
	if p.Size > MaxPutSize {
		return catalog.Part{}, nil, errorf(ErrEntityTooLarge, "Your proposed upload exceeds the maximum allowed size")
	}
	var wantMD5 []byte
	if p.ContentMD5 != "" {
		m, err := base64.StdEncoding.DecodeString(p.ContentMD5)
		if err != nil || len(m) != 16 {
			return catalog.Part{}, nil, errorf(ErrInvalidDigest, "The Content-MD5 you specified was invalid.")
		}
		wantMD5 = m
	}
	d := newDigester(p.Algorithms)
	body := p.Body
	if p.Size >= 0 {
		// Read one byte past the declared size to notice an overlong body.
		body = io.LimitReader(body, p.Size+1)
	} else {
		body = io.LimitReader(body, MaxPutSize+1)
	}
	id := blob.NewID()
	n, err := s.blobs.Put(ctx, id, io.TeeReader(body, d), p.Size)
	fail := func(e error) (catalog.Part, map[string]string, error) {
		s.deleteBlobs(ctx, id)
		return catalog.Part{}, nil, e
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
	sums := d.checksums()
	if p.Expected != nil {
		for algo, want := range p.Expected() {
			if got, ok := sums[algo]; ok && got != want {
				return fail(errorf(ErrBadDigest, fmt.Sprintf("The %s you specified did not match the calculated checksum.", algo)))
			}
		}
	}
	return catalog.Part{BlobID: id, Size: n, ETag: d.etag(), LastModified: time.Now().UTC(), Checksums: sums}, sums, nil
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
