package objects

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Multipart limits, as S3.
const (
	MinPartSize = 5 << 20
	MaxParts    = 10000
)

// CompletedUploadRetry is how long after an upload completed the same
// completion sent again (an SDK retrying a response it lost) is answered
// with the object it made, as AWS answers a recently completed upload,
// rather than NoSuchUpload. Clients retry within seconds or minutes.
const CompletedUploadRetry = time.Hour

// CreateUpload starts a multipart upload and returns its id. The lock
// asked for (or the bucket's default retention, counted from now) is the
// completed version's.
func (s *Service) CreateUpload(ctx context.Context, id *iam.Identity, u catalog.Upload, acl iam.ACLSpec, lock *LockRequest) (catalog.Upload, error) {
	return s.CreateEncryptedUpload(ctx, id, u, acl, lock, nil)
}

// CreateEncryptedUpload is CreateUpload with encryption at rest (enc nil:
// none): the upload's one data key, wrapped, is kept in its Meta, and
// each part is encrypted under it with its part number.
func (s *Service) CreateEncryptedUpload(ctx context.Context, id *iam.Identity, u catalog.Upload, acl iam.ACLSpec, lock *LockRequest, enc *EncryptRequest) (catalog.Upload, error) {
	b, owner, stored, err := s.writeAccess(ctx, id, u.Bucket, u.Key, acl, u.Meta.Tags)
	if err != nil {
		return u, err
	}
	if u.Lock, err = newLock(b, lock, time.Now()); err != nil {
		return u, err
	}
	u.Meta.ACL = stored
	if err := validKey(u.Key); err != nil {
		return u, err
	}
	if err := validMeta(u.Meta); err != nil {
		return u, err
	}
	seal, err := s.newSealing(ctx, b, u.Key, enc)
	if err != nil {
		return u, err
	}
	u.Meta.Encryption = seal.record()
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return u, fmt.Errorf("objects: upload id: %w", err)
	}
	u.UploadID = base64.RawURLEncoding.EncodeToString(raw[:])
	u.Owner = owner
	u.Initiated = time.Now().UTC()
	if u.StorageClass, err = s.writableClass(u.StorageClass); err != nil {
		return u, err
	}
	if u.ChecksumAlgorithm != "" && u.ChecksumType == "" {
		// As S3: CRC64NVME exists only whole-object; the others default to
		// composite.
		u.ChecksumType = "COMPOSITE"
		if u.ChecksumAlgorithm == "CRC64NVME" {
			u.ChecksumType = "FULL_OBJECT"
		}
	}
	if err := s.cat.CreateUpload(ctx, u); err != nil {
		if errors.Is(err, catalog.ErrNoSuchBucket) {
			return u, ErrNoSuchBucket
		}
		return u, fmt.Errorf("objects: create upload: %w", err)
	}
	return u, nil
}

// upload loads an upload and its bucket after authorizing action on it.
func (s *Service) upload(ctx context.Context, id *iam.Identity, bucket, key, uploadID string, action iam.Action) (catalog.Upload, catalog.Bucket, error) {
	b, err := s.bucket(ctx, id, bucket, key, action)
	if err != nil {
		return catalog.Upload{}, b, err
	}
	u, err := s.cat.GetUpload(ctx, bucket, key, uploadID)
	if errors.Is(err, catalog.ErrNoSuchUpload) {
		return u, b, noSuchUpload()
	}
	if err != nil {
		return u, b, fmt.Errorf("objects: get upload: %w", err)
	}
	return u, b, nil
}

func noSuchUpload() error {
	return errorf(ErrNoSuchUpload, "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.")
}

func validPartNumber(n int) error {
	if n < 1 || n > MaxParts {
		return errorf(ErrInvalidArgument, "Part number must be an integer between 1 and 10000, inclusive")
	}
	return nil
}

// PartInput describes UploadPart; with CopySource set it is UploadPartCopy.
type PartInput struct {
	Bucket, Key, UploadID string
	Number                int
	Payload               Payload
	Copy                  *CopySource
	// CustomerKey is the upload's SSE-C key, which every part must bring.
	CustomerKey []byte
}

// CopySource names the source of UploadPartCopy.
type CopySource struct {
	Bucket, Key, Version string
	Cond                 Conditions
	Range                *ByteRange
	CustomerKey          []byte // the source's SSE-C key
}

// UploadPart stores one part and returns it (with its ETag) and, for
// UploadPartCopy, the source's version id as a response reports it
// (reported).
func (s *Service) UploadPart(ctx context.Context, id *iam.Identity, in PartInput) (catalog.Part, string, error) {
	part, src, err := s.uploadPart(ctx, id, in)
	return part, src.VersionID, err
}

func (s *Service) uploadPart(ctx context.Context, id *iam.Identity, in PartInput) (catalog.Part, catalog.Object, error) {
	var src catalog.Object
	if err := validPartNumber(in.Number); err != nil {
		return catalog.Part{}, src, err
	}
	u, b, err := s.upload(ctx, id, in.Bucket, in.Key, in.UploadID, "s3:PutObject")
	if err != nil {
		return catalog.Part{}, src, err
	}
	seal, err := s.partSealing(ctx, b, u, in.CustomerKey, in.Number)
	if err != nil {
		return catalog.Part{}, src, err
	}
	p := in.Payload
	if in.Copy != nil {
		var r *Reader
		src, r, err = s.openSource(ctx, id, in.Copy.Bucket, in.Copy.Key, in.Copy.Version, in.Copy.Cond, in.Copy.Range, in.Copy.CustomerKey)
		if err != nil {
			return catalog.Part{}, catalog.Object{}, err
		}
		defer r.Close()
		p = Payload{Body: r, Size: r.Length}
	}
	if u.ChecksumAlgorithm != "" && !slices.Contains(p.Algorithms, u.ChecksumAlgorithm) {
		p.Algorithms = append(p.Algorithms, u.ChecksumAlgorithm)
	}
	// Parts always go to blobs: completing an upload lays them out as they
	// are.
	p.seal, p.class = seal, u.StorageClass
	st, err := s.writeBlob(ctx, b, p, false)
	if err != nil {
		return catalog.Part{}, src, err
	}
	part := st.part
	part.Number = in.Number
	// A part counts in the bucket's and tenant's bytes, so it is held to
	// their quotas: one that would cross them stores nothing.
	l, err := s.limits(ctx, b)
	if err == nil {
		var row catalog.Part
		if row, err = sealPart(u.Bucket, u.Key, u.Meta.Encryption, seal.dataKey(), part); err == nil {
			err = s.cat.PutPart(ctx, in.Bucket, in.Key, in.UploadID, row, l)
		}
	}
	if err != nil {
		s.deleteBlobs(ctx, part.BlobID)
		switch {
		case errors.Is(err, catalog.ErrNoSuchUpload):
			return part, src, noSuchUpload()
		case errors.Is(err, catalog.ErrQuotaExceeded):
			return part, src, commitErr(err, "put part", catalog.Object{})
		}
		return part, src, fmt.Errorf("objects: put part: %w", err)
	}
	return part, src, nil
}

// CompletePart is one entry of a CompleteMultipartUpload request.
type CompletePart struct {
	Number int
	ETag   string
	// Checksums are the part's checksums as the client lists them, by
	// algorithm.
	Checksums map[string]string
}

// checkPartChecksum holds a listed part to the upload's checksum, as
// AWS: an upload with a COMPOSITE checksum must list each part's (it is
// what the object's is made of), a FULL_OBJECT one may; one listed must
// be the part's.
func checkPartChecksum(u catalog.Upload, cp CompletePart, p catalog.Part) error {
	algo := u.ChecksumAlgorithm
	if algo == "" {
		return nil
	}
	listed := cp.Checksums[algo]
	switch {
	case listed == "" && u.ChecksumType == "COMPOSITE":
		return errorf(ErrInvalidRequest, fmt.Sprintf("The upload was created using a %s checksum. The complete request must include the checksum for each part. It was missing for part %d in the request.",
			strings.ToLower(algo), cp.Number))
	case listed != "" && listed != p.Checksums[algo]:
		return errorf(ErrInvalidPart, invalidPartMessage)
	}
	return nil
}

const invalidPartMessage = "One or more of the specified parts could not be found.  The part may not have been uploaded, or the specified entity tag may not have matched the part's entity tag."

// uploadChecksum is the checksum a completed upload carries: of the whole
// object (FULL_OBJECT, combined from the parts' CRCs) or of the parts'
// checksums (COMPOSITE, suffixed with the part count).
func uploadChecksum(u catalog.Upload, parts []catalog.Part, want map[string]string) (map[string]string, string, error) {
	algo := u.ChecksumAlgorithm
	if algo == "" {
		return nil, "", nil
	}
	var sum string
	var ok bool
	if u.ChecksumType == "FULL_OBJECT" {
		sum, ok = fullObjectChecksum(algo, parts)
		if w := want[algo]; ok && w != "" && w != sum {
			return nil, "", errorf(ErrBadDigest, fmt.Sprintf("The %s you specified did not match the calculated checksum.", algo))
		}
	} else {
		sums := make([]string, len(parts))
		for i, p := range parts {
			sums[i] = p.Checksums[algo]
		}
		sum, ok = compositeChecksum(algo, sums)
	}
	if !ok {
		return nil, "", nil
	}
	return map[string]string{algo: sum}, u.ChecksumType, nil
}

// CompleteOptions are what a client may add to the list of parts it
// completes.
type CompleteOptions struct {
	// Checksums are whole-object checksums the client declared
	// (x-amz-checksum-*).
	Checksums map[string]string
	// Size, if set, is the size the client declared
	// (x-amz-mp-object-size): the listed parts must add up to it, as S3,
	// else nothing is completed and the upload stays open for another try.
	Size *int64
	Cond catalog.PutOptions
	// CustomerKey is the SSE-C key, which AWS asks for only when the parts
	// have checksums: they are sealed under the data key it opens
	// (sealPart), and the object's are sealed again.
	CustomerKey []byte
}

// CompleteUpload assembles the listed parts into the object. No bytes are
// copied: the object's layout is the parts' blobs. The checksums the
// client declared are checked against a FULL_OBJECT checksum.
func (s *Service) CompleteUpload(ctx context.Context, id *iam.Identity, bucket, key, uploadID string, list []CompletePart, o CompleteOptions) (catalog.Object, error) {
	want, cond, customer := o.Checksums, o.Cond, o.CustomerKey
	u, b, err := s.upload(ctx, id, bucket, key, uploadID, "s3:PutObject")
	if errors.Is(err, ErrNoSuchUpload) {
		return s.completed(ctx, b, key, uploadID, list, customer)
	}
	if err != nil {
		return catalog.Object{}, err
	}
	if len(list) == 0 {
		return catalog.Object{}, errorf(ErrMalformedXML, "The XML you provided was not well-formed or did not validate against our published schema")
	}
	stored, err := s.allParts(ctx, u)
	if err != nil {
		return catalog.Object{}, err
	}
	dk, err := s.completionKey(ctx, b, u, stored, customer)
	if err != nil {
		return catalog.Object{}, err
	}
	invalid := errorf(ErrInvalidPart, invalidPartMessage)
	md5s := md5.New()
	obj := catalog.Object{
		Bucket: bucket, Key: key, VersionID: versionFor(b), Owner: u.Owner,
		StorageClass: u.StorageClass, Meta: u.Meta, LastModified: time.Now().UTC(), Lock: u.Lock,
	}
	obj.Meta.UploadID = uploadID
	// Every listed part must exist, in order, before sizes are judged: S3
	// reports a missing part as InvalidPart even when an earlier one is
	// too small.
	for i, cp := range list {
		if i > 0 && cp.Number <= list[i-1].Number {
			return catalog.Object{}, errorf(ErrInvalidPartOrder, "The list of parts was not in ascending order. Parts must be ordered by part number.")
		}
		p, ok := stored[cp.Number]
		if !ok || strings.Trim(cp.ETag, `"`) != strings.Trim(p.ETag, `"`) {
			return catalog.Object{}, invalid
		}
	}
	var listed []catalog.Part
	for i, cp := range list {
		p := stored[cp.Number]
		if dk != nil {
			if p, err = openPart(u.Bucket, u.Key, u.Meta.Encryption, dk, p); err != nil {
				return catalog.Object{}, err
			}
		}
		if err := checkPartChecksum(u, cp, p); err != nil {
			return catalog.Object{}, err
		}
		if i < len(list)-1 && p.Size < MinPartSize {
			return catalog.Object{}, errorf(ErrEntityTooSmall, "Your proposed upload is smaller than the minimum allowed object size.")
		}
		raw, err := hex.DecodeString(strings.Trim(p.ETag, `"`))
		if err != nil {
			return catalog.Object{}, invalid
		}
		md5s.Write(raw)
		listed = append(listed, p)
		obj.Size += p.Size
		if p.Size > 0 {
			obj.Parts = append(obj.Parts, p)
		}
	}
	if o.Size != nil && *o.Size != obj.Size {
		return catalog.Object{}, errorf(ErrInvalidRequest, fmt.Sprintf("The provided 'x-amz-mp-object-size' header value %d does not match what was computed: %d", *o.Size, obj.Size))
	}
	obj.ETag = fmt.Sprintf(`"%s-%d"`, hex.EncodeToString(md5s.Sum(nil)), len(list))
	if obj.Meta.Checksums, obj.Meta.ChecksumType, err = uploadChecksum(u, listed, want); err != nil {
		return catalog.Object{}, err
	}
	if cond.Limits, err = s.limits(ctx, b); err != nil {
		return obj, err
	}
	row := obj
	if dk != nil {
		if row, err = sealChecksums(obj, dk); err != nil {
			return obj, err
		}
	}
	if cond.Events, err = s.observe(ctx, Change{Name: EventCompleteMultipart, Bucket: b, Object: row, Identity: id}); err != nil {
		return obj, err
	}
	markPending(cond.Events, &row.Meta)
	err = s.cat.CompleteUpload(ctx, uploadID, row, cond)
	if errors.Is(err, catalog.ErrNoSuchUpload) {
		// Completed (or aborted) since it was read: by this same
		// completion sent twice at once, perhaps.
		return s.completed(ctx, b, key, uploadID, list, customer)
	}
	return reported(b, obj), commitErr(err, "complete upload", obj)
}

// completed answers a completion of an upload that is not open (any
// more): with the key's current version if that upload made it, within
// CompletedUploadRetry, from the same list of parts (retriedCompletion),
// as AWS answers a completion retried; else NoSuchUpload. The request's
// conditions held when the upload completed, and are not asked again of
// the object they let it make.
func (s *Service) completed(ctx context.Context, b catalog.Bucket, key, uploadID string, list []CompletePart, customer []byte) (catalog.Object, error) {
	obj, err := s.cat.GetObject(ctx, b.Name, key, "")
	if errors.Is(err, catalog.ErrNoSuchObject) || err == nil && !retriedCompletion(obj, uploadID, list, time.Now()) {
		return catalog.Object{}, noSuchUpload()
	}
	if err != nil {
		return catalog.Object{}, fmt.Errorf("objects: get %s/%s: %w", b.Name, key, err)
	}
	// An SSE-C object's checksums answer the request that brings its key.
	if enc := obj.Meta.Encryption; enc != nil && enc.Kind == KindSSEC && customer != nil {
		dk, err := s.dataKey(ctx, b, key, enc, customer, true)
		if err != nil {
			return catalog.Object{}, err
		}
		if obj, err = openChecksums(obj, dk); err != nil {
			return catalog.Object{}, err
		}
	}
	obj.Parts, obj.Inline = nil, nil
	return reported(b, obj), nil
}

// retriedCompletion tells whether list completing uploadID is the
// completion that made obj, at most CompletedUploadRetry before now: obj
// is that upload's, its multipart ETag is the one of the listed parts'
// ETags in their order (and so of their count), and every part that holds
// bytes was listed under its number.
func retriedCompletion(obj catalog.Object, uploadID string, list []CompletePart, now time.Time) bool {
	if obj.DeleteMarker || obj.Meta.UploadID != uploadID || uploadID == "" ||
		now.Sub(obj.LastModified) > CompletedUploadRetry {
		return false
	}
	md5s := md5.New()
	numbers := make(map[int]string, len(list))
	for _, cp := range list {
		raw, err := hex.DecodeString(strings.Trim(cp.ETag, `"`))
		if err != nil || len(raw) != md5.Size {
			return false
		}
		md5s.Write(raw)
		numbers[cp.Number] = strings.Trim(cp.ETag, `"`)
	}
	if fmt.Sprintf(`"%s-%d"`, hex.EncodeToString(md5s.Sum(nil)), len(list)) != obj.ETag {
		return false
	}
	for _, p := range obj.Parts {
		if numbers[p.Number] != strings.Trim(p.ETag, `"`) {
			return false
		}
	}
	return true
}

// completionKey is the data key an SSE-C upload's completion needs to
// open its parts' sealed checksums, from the customer's key, when the
// object's checksum is made of them: the upload was created with a
// checksum algorithm (AWS asks for the key then only). Otherwise it is
// nil, and the parts keep their checksums sealed as they are, bound to
// the same object and part numbers, for a read with the key to open.
func (s *Service) completionKey(ctx context.Context, b catalog.Bucket, u catalog.Upload, parts map[int]catalog.Part, customer []byte) ([]byte, error) {
	enc := u.Meta.Encryption
	if enc == nil || enc.Kind != KindSSEC {
		return nil, nil
	}
	sealed := false
	for _, p := range parts {
		if _, ok := p.Checksums[catalog.SealedChecksums]; ok {
			sealed = true
			break
		}
	}
	if customer == nil && (!sealed || u.ChecksumAlgorithm == "") {
		return nil, nil
	}
	if customer == nil {
		return nil, errorf(ErrInvalidRequest, "The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.")
	}
	return s.dataKey(ctx, b, u.Key, enc, customer, true)
}

func (s *Service) allParts(ctx context.Context, u catalog.Upload) (map[int]catalog.Part, error) {
	out := map[int]catalog.Part{}
	after := 0
	for {
		ps, err := s.cat.ListParts(ctx, u.Bucket, u.Key, u.UploadID, after, 1000)
		if err != nil {
			return nil, fmt.Errorf("objects: list parts: %w", err)
		}
		for _, p := range ps {
			out[p.Number] = p
			after = p.Number
		}
		if len(ps) < 1000 {
			return out, nil
		}
	}
}

// AbortUpload discards an upload and its parts.
func (s *Service) AbortUpload(ctx context.Context, id *iam.Identity, bucket, key, uploadID string) error {
	if _, _, err := s.upload(ctx, id, bucket, key, uploadID, "s3:AbortMultipartUpload"); err != nil {
		return err
	}
	err := s.cat.AbortUpload(ctx, bucket, key, uploadID)
	if errors.Is(err, catalog.ErrNoSuchUpload) {
		return noSuchUpload()
	}
	if err != nil {
		return fmt.Errorf("objects: abort upload: %w", err)
	}
	return nil
}

// ListParts returns a page of an upload's parts after the marker.
func (s *Service) ListParts(ctx context.Context, id *iam.Identity, bucket, key, uploadID string, marker, max int, customer []byte) (catalog.Upload, []catalog.Part, bool, error) {
	u, b, err := s.upload(ctx, id, bucket, key, uploadID, "s3:ListMultipartUploadParts")
	if err != nil {
		return u, nil, false, err
	}
	// An SSE-C upload's parts show their checksums to a listing that
	// brings the key (as AWS asks), none to one without.
	var dk []byte
	if enc := u.Meta.Encryption; enc != nil && enc.Kind == KindSSEC && customer != nil {
		if dk, err = s.dataKey(ctx, b, u.Key, enc, customer, true); err != nil {
			return u, nil, false, err
		}
	}
	if max < 0 || max > MaxKeys {
		max = MaxKeys
	}
	ps, err := s.cat.ListParts(ctx, bucket, key, uploadID, marker, max+1)
	if err != nil {
		return u, nil, false, fmt.Errorf("objects: list parts: %w", err)
	}
	truncated := len(ps) > max
	ps = ps[:min(len(ps), max)]
	for i, p := range ps {
		if ps[i], err = openPart(u.Bucket, u.Key, u.Meta.Encryption, dk, p); err != nil {
			return u, nil, false, err
		}
	}
	return u, ps, truncated, nil
}

// UploadsOutput is a page of ListMultipartUploads.
type UploadsOutput struct {
	Uploads                           []catalog.Upload
	CommonPrefixes                    []string
	Truncated                         bool
	NextKeyMarker, NextUploadIDMarker string
}

// ListUploads lists the uploads in progress in a bucket.
func (s *Service) ListUploads(ctx context.Context, id *iam.Identity, in ListInput) (UploadsOutput, error) {
	if _, err := s.bucket(ctx, id, in.Bucket, "", "s3:ListBucketMultipartUploads"); err != nil {
		return UploadsOutput{}, err
	}
	start := cursor[catalog.Upload]{start: in.Marker}
	if in.Marker != "" && in.VersionMarker != "" {
		start = cursor[catalog.Upload]{after: &catalog.Upload{Key: in.Marker, UploadID: in.VersionMarker}}
	}
	f, err := fold(in.Prefix, in.Delimiter, clampKeys(in.MaxKeys), start,
		func(u catalog.Upload) string { return u.Key },
		func(c cursor[catalog.Upload], limit int) ([]catalog.Upload, error) {
			q := catalog.UploadQuery{Prefix: in.Prefix, Start: c.start, Inclusive: c.inclusive, Limit: limit}
			if c.after != nil {
				q.KeyMarker, q.UploadIDMarker = c.after.Key, c.after.UploadID
			}
			return s.cat.ListUploads(ctx, in.Bucket, q)
		})
	if err != nil {
		return UploadsOutput{}, fmt.Errorf("objects: list uploads: %w", err)
	}
	out := UploadsOutput{Uploads: f.items, CommonPrefixes: f.prefixes, Truncated: f.truncated}
	if f.truncated {
		out.NextKeyMarker = f.last
		if f.lastItem != nil {
			out.NextUploadIDMarker = f.lastItem.UploadID
		}
	}
	return out, nil
}
