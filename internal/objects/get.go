package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Conditions are the HTTP preconditions S3 evaluates on reads and copies.
type Conditions struct {
	IfMatch, IfNoneMatch               string
	IfModifiedSince, IfUnmodifiedSince time.Time
}

// ByteRange is a parsed Range header: First-Last (Last < 0 for an open
// end), or the last Suffix bytes when Suffix > 0.
type ByteRange struct {
	First, Last int64
	Suffix      int64
}

// GetInput describes a GetObject or HeadObject.
type GetInput struct {
	Bucket, Key, VersionID string
	Range                  *ByteRange
	// PartNumber, when positive, selects one part of a multipart object
	// (part 1 of any other object is the whole of it).
	PartNumber int
	Cond       Conditions
	// CustomerKey is the SSE-C key sent with the request (nil: none).
	CustomerKey []byte
}

// Reader is an object opened for reading. Body is nil for HEAD.
type Reader struct {
	Object catalog.Object
	// Start and Length select the bytes Body yields; Ranged tells whether
	// the client asked for a range or a part (206 rather than 200).
	Start, Length int64
	Ranged        bool
	// PartsCount is the number of parts of a multipart object read by part
	// number, else 0.
	PartsCount int
	// PartChecksums are the checksums of a part read by number, by
	// algorithm, as AWS answers x-amz-checksum-mode on such a read (see
	// partChecksums); nil when it has none of its own.
	PartChecksums    map[string]string
	PartChecksumType string
	// TagCount is the number of the object's tags, when the caller may
	// read them (x-amz-tagging-count), else 0.
	TagCount int
	Body     io.ReadCloser
}

// GetObject opens an object for reading; head skips opening the bytes.
// The object's version is as a response reports it (reported). Reading a
// delete marker fails (NoSuchKey or MethodNotAllowed, see lookup) with a
// Reader of the marker, whose headers S3 sends with the error.
func (s *Service) GetObject(ctx context.Context, id *iam.Identity, in GetInput, head bool) (*Reader, error) {
	req := iam.Request{ID: id, Action: versionAction("s3:GetObject", in.VersionID), Key: in.Key}
	b, a, t, err := s.bucketTarget(ctx, req, in.Bucket, in.VersionID)
	if err != nil {
		return nil, err
	}
	obj, err := s.lookup(ctx, t)
	obj = reported(b, obj)
	if err != nil {
		if obj.DeleteMarker {
			return &Reader{Object: obj}, err
		}
		return nil, err
	}
	if err := in.Cond.check(obj, true); err != nil {
		return &Reader{Object: obj}, err
	}
	key, err := s.dataKey(ctx, b, obj.Key, obj.Meta.Encryption, in.CustomerKey, !head)
	if err != nil {
		return nil, err
	}
	if obj, err = openChecksums(obj, key); err != nil {
		return nil, err
	}
	r := &Reader{Object: obj, TagCount: s.tagCount(ctx, id, b, a, t)}
	if err := r.selectBytes(in); err != nil {
		return r, err
	}
	if !head {
		if r.Body, err = s.open(ctx, obj, key, r.Start, r.Length); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// selectBytes sets the bytes r yields from a request's Range or
// partNumber. A part is read as a range of the object, as AWS answers
// it (206 with the part's Content-Range), part 1 of an object not
// uploaded in parts too; an empty object has no range to name.
func (r *Reader) selectBytes(in GetInput) error {
	var err error
	if in.PartNumber == 0 {
		r.Ranged = in.Range != nil
		r.Start, r.Length, err = resolveRange(in.Range, r.Object.Size)
		return err
	}
	if in.Range != nil {
		return errorf(ErrInvalidRequest, "Cannot specify both Range header and partNumber query parameter")
	}
	r.Start, r.Length, r.PartsCount, err = partRange(r.Object, in.PartNumber)
	r.Ranged = r.Length > 0
	r.PartChecksums, r.PartChecksumType = partChecksums(r.Object, in.PartNumber, r.PartsCount)
	return err
}

// partChecksums are the checksums a read of part n (of count) answers
// with, as AWS: an object not uploaded in parts is its own part 1, with
// its checksums; a part of a COMPOSITE object has its own checksum of the
// object's algorithm, which the object's is made of; a part of a
// FULL_OBJECT one has none of its own unless it is the only part (its
// checksum is then the object's).
func partChecksums(obj catalog.Object, n, count int) (map[string]string, string) {
	sums := obj.Meta.Checksums
	switch {
	case len(sums) == 0:
		return nil, ""
	case count == 0:
		return sums, obj.Meta.ChecksumType
	case obj.Meta.ChecksumType == "FULL_OBJECT" && count == 1:
		return sums, obj.Meta.ChecksumType
	case obj.Meta.ChecksumType != "COMPOSITE":
		return nil, ""
	}
	for _, p := range obj.Parts {
		if p.Number != n {
			continue
		}
		own := map[string]string{}
		for algo := range sums {
			if v := p.Checksums[algo]; v != "" {
				own[algo] = v
			}
		}
		if len(own) > 0 {
			return own, ""
		}
	}
	return nil, ""
}

// partRange finds part n of an object: its offset, its length and the
// object's part count (0 for an object not uploaded in parts, whose only
// part is the whole).
func partRange(obj catalog.Object, n int) (start, length int64, count int, err error) {
	_, suffix, multipart := strings.Cut(strings.Trim(obj.ETag, `"`), "-")
	if !multipart {
		if n != 1 {
			return 0, 0, 0, ErrInvalidPartNumber
		}
		return 0, obj.Size, 0, nil
	}
	if _, err := fmt.Sscanf(suffix, "%d", &count); err != nil || n > count {
		return 0, 0, 0, ErrInvalidPartNumber
	}
	for _, p := range obj.Parts {
		if p.Number == n {
			return start, p.Size, count, nil
		}
		start += p.Size
	}
	// An empty part holds no blob, so it is not in the layout.
	return 0, 0, 0, ErrInvalidPartNumber
}

// lookup reads t's version (once) with S3's error for its absence. A
// delete marker is returned with the error it reads as: NoSuchKey when it
// is the current version, MethodNotAllowed when named by its id.
func (s *Service) lookup(ctx context.Context, t *target) (catalog.Object, error) {
	obj, err := s.readTarget(ctx, t)
	switch {
	case errors.Is(err, catalog.ErrNoSuchObject):
		if t.version != "" && t.version != catalog.NullVersion {
			return obj, ErrNoSuchVersion
		}
		return obj, ErrNoSuchKey
	case err != nil:
		return obj, fmt.Errorf("objects: get %s/%s: %w", t.bucket, t.key, err)
	case obj.DeleteMarker && t.version != "":
		return obj, errorf(ErrMethodNotAllowed, "The specified method is not allowed against this resource.")
	case obj.DeleteMarker:
		return obj, ErrNoSuchKey
	}
	return obj, nil
}

// check evaluates preconditions in the order S3 (and RFC 7232) does: an
// If-Match that holds overrides If-Unmodified-Since, an If-None-Match that
// is present overrides If-Modified-Since. notModified selects 304 for reads;
// copies turn every failure into 412.
func (c Conditions) check(obj catalog.Object, notModified bool) error {
	mod := obj.LastModified.Truncate(time.Second)
	if c.IfMatch != "" {
		if !etagMatches(c.IfMatch, obj.ETag) {
			return ErrPreconditionFailed
		}
	} else if !c.IfUnmodifiedSince.IsZero() && mod.After(c.IfUnmodifiedSince) {
		return ErrPreconditionFailed
	}
	fail := ErrNotModified
	if !notModified {
		fail = ErrPreconditionFailed
	}
	if c.IfNoneMatch != "" {
		if etagMatches(c.IfNoneMatch, obj.ETag) {
			return fail
		}
	} else if !c.IfModifiedSince.IsZero() && !mod.After(c.IfModifiedSince) {
		return fail
	}
	return nil
}

// etagMatches reports whether a comma-separated list of entity tags (or
// "*") names etag. Quotes and weak prefixes are tolerated, as S3 does.
func etagMatches(list, etag string) bool {
	want := strings.Trim(etag, `"`)
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "*" {
			return true
		}
		t = strings.TrimPrefix(t, "W/")
		if strings.Trim(t, `"`) == want {
			return true
		}
	}
	return false
}

// resolveRange turns a requested range into an offset and length within
// size, or InvalidRange when it cannot be satisfied.
func resolveRange(r *ByteRange, size int64) (start, length int64, err error) {
	if r == nil {
		return 0, size, nil
	}
	invalid := errorf(ErrInvalidRange, "The requested range is not satisfiable")
	if r.Suffix > 0 {
		if size == 0 {
			return 0, 0, invalid
		}
		n := min(r.Suffix, size)
		return size - n, n, nil
	}
	if r.First >= size {
		return 0, 0, invalid
	}
	last := r.Last
	if last < 0 || last >= size {
		last = size - 1
	}
	return r.First, last - r.First + 1, nil
}

// open returns a reader of length bytes from offset start across parts,
// decrypting them with key when the object is encrypted (dataKey).
// The first part's blob is opened at once, so that a platform that cannot
// serve it fails the request before a response starts; each later one
// when the reader reaches it.
func (s *Service) open(ctx context.Context, obj catalog.Object, key []byte, start, length int64) (io.ReadCloser, error) {
	if (obj.Meta.Encryption != nil) != (key != nil) && length > 0 {
		return nil, fmt.Errorf("objects: %s/%s: encryption %v with a key of %d bytes", obj.Bucket, obj.Key, obj.Meta.Encryption != nil, len(key))
	}
	if key != nil && len(obj.Inline) > 0 {
		return s.openSealed(ctx, catalog.Part{Size: obj.Size}, obj.Inline, key, start, length)
	}
	if len(obj.Inline) > 0 {
		return io.NopCloser(bytes.NewReader(obj.Inline[start : start+length])), nil
	}
	r := &partsReader{ctx: ctx, s: s, parts: obj.Parts, off: start, left: length, key: key, obj: obj, total: len(obj.Parts)}
	if length > 0 {
		if err := r.next(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

type partsReader struct {
	ctx   context.Context
	s     *Service
	parts []catalog.Part
	off   int64 // offset within parts[0] of the next byte to open
	left  int64
	cur   io.ReadCloser
	key   []byte // the data key of an encrypted object
	// obj is the version read and total its number of parts, so that a
	// part whose blob a move took away is found again (relocate).
	obj   catalog.Object
	total int
}

func (r *partsReader) Read(p []byte) (int, error) {
	for {
		if r.left == 0 {
			return 0, io.EOF
		}
		if r.cur == nil {
			if err := r.next(); err != nil {
				return 0, err
			}
		}
		if int64(len(p)) > r.left {
			p = p[:r.left]
		}
		n, err := r.cur.Read(p)
		r.left -= int64(n)
		if err == io.EOF {
			r.cur.Close()
			r.cur = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		if err != nil {
			return n, fmt.Errorf("objects: read blob: %w", err)
		}
		return n, nil
	}
}

// next opens the part holding r.off and drops the parts before it.
func (r *partsReader) next() error {
	for len(r.parts) > 0 && r.off >= r.parts[0].Size {
		r.off -= r.parts[0].Size
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return fmt.Errorf("objects: object shorter than its catalog size: %w", io.ErrUnexpectedEOF)
	}
	p := r.parts[0]
	n := min(p.Size-r.off, r.left)
	rc, err := r.openPart(p, n)
	if errors.Is(err, blob.ErrNotFound) && r.relocate() {
		p = r.parts[0]
		rc, err = r.openPart(p, n)
	}
	if err != nil {
		return fmt.Errorf("objects: open blob %s: %w", p.BlobID, err)
	}
	r.cur = rc
	r.parts, r.off = r.parts[1:], 0
	return nil
}

func (r *partsReader) openPart(p catalog.Part, n int64) (io.ReadCloser, error) {
	if r.key != nil {
		return r.s.openSealed(r.ctx, p, nil, r.key, r.off, n)
	}
	return r.s.blobs.Get(r.ctx, p.BlobID, r.off, n)
}

// relocate reads the version again when a blob of it is gone: a move (a
// lifecycle transition) may have switched it to copies on another
// platform since it was read, and the collector taken the old blobs. If
// it is the same version, laid out in as many parts, the read goes on
// from the copies: a read that began before a move does not fail for it.
func (r *partsReader) relocate() bool {
	cur, err := r.s.cat.GetObject(r.ctx, r.obj.Bucket, r.obj.Key, r.obj.VersionID)
	if err != nil || !cur.LastModified.Equal(r.obj.LastModified) || len(cur.Parts) != r.total {
		return false
	}
	i := r.total - len(r.parts)
	if cur.Parts[i].BlobID == r.parts[0].BlobID {
		return false // not moved: the blob is lost, not elsewhere
	}
	r.parts = cur.Parts[i:]
	return true
}

// copyBufs are the buffers of copies from blobs that are not files: a
// platform's response body moved in 32 KiB reads (io.Copy's default)
// costs ten times the system calls of 1 MiB reads.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// copyBlob copies a blob reader to w: one that knows how to write itself
// (a file range, which goes by sendfile) does, anything else (a
// platform's response body) goes through a large buffer.
func copyBlob(w io.Writer, r io.Reader) (int64, error) {
	if _, ok := r.(io.WriterTo); ok {
		return io.Copy(w, r)
	}
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	return io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, *buf)
}

// WriteTo lets a single-part read hand its blob reader to the response
// writer, so that a file-backed blob can be sent with sendfile.
func (r *partsReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for r.left > 0 {
		if r.cur == nil {
			if err := r.next(); err != nil {
				return total, err
			}
		}
		n, err := copyBlob(w, r.cur)
		total += n
		r.left -= n
		r.cur.Close()
		r.cur = nil
		if err != nil {
			return total, err
		}
		if n == 0 {
			return total, fmt.Errorf("objects: blob shorter than expected: %w", io.ErrUnexpectedEOF)
		}
	}
	return total, nil
}

func (r *partsReader) Close() error {
	if r.cur != nil {
		err := r.cur.Close()
		r.cur = nil
		return err
	}
	return nil
}
