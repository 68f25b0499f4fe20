package s3

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// s3NS is the namespace of S3's XML documents.
const s3NS = "http://s3.amazonaws.com/doc/2006-03-01/"

// writeXML encodes v as a complete response.
func writeXML(w http.ResponseWriter, status int, v any) {
	out, err := xml.Marshal(v)
	if err != nil {
		status, out = 500, []byte("<Error><Code>InternalError</Code></Error>")
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(xml.Header)+len(out)))
	w.WriteHeader(status)
	io.WriteString(w, xml.Header)
	w.Write(out)
}

// Request documents are read whole into memory (CompleteMultipartUpload's
// is parsed as it streams), so each operation's is capped near the
// largest AWS accepts: DeleteObjects names at most 1000 keys of up to 1
// KiB; CompleteMultipartUpload at most 10,000 parts, each with an ETag
// and checksums; an ACL at most 100 grants; a policy 20 KiB. What a
// request may read is reserved from the node's document memory first
// (dispatch).
const (
	maxXMLBody      = 2 << 20
	maxCompleteBody = 5 << 20
	maxACLBody      = 64 << 10
	maxSmallBody    = 16 << 10 // configurations of a few elements
)

// documents are the operations whose body is a document: its cap, and
// the action the service will authorize (whether on the route's key),
// which admission decides before the body is read. A new document-carrying
// operation is one line here.
var documents = map[Op]struct {
	limit  int64
	action iam.Action
	onKey  bool
}{
	OpCreateBucket:               {maxSmallBody, iam.ActionCreateBucket, false},
	OpDeleteObjects:              {maxXMLBody, "s3:DeleteObject", false},
	OpCompleteMultipartUpload:    {maxCompleteBody, "s3:PutObject", true},
	OpPutBucketPolicy:            {bucketpolicy.MaxSize, "s3:PutBucketPolicy", false},
	OpPutBucketAcl:               {maxACLBody, "s3:PutBucketAcl", false},
	OpPutObjectAcl:               {maxACLBody, "s3:PutObjectAcl", true},
	OpPutBucketOwnershipControls: {maxSmallBody, "s3:PutBucketOwnershipControls", false},
	OpPutPublicAccessBlock:       {maxSmallBody, "s3:PutBucketPublicAccessBlock", false},
	OpPutBucketLogging:           {maxSmallBody, "s3:PutBucketLogging", false},
	OpPutBucketVersioning:        {maxSmallBody, "s3:PutBucketVersioning", false},
	OpPutObjectTagging:           {maxObjectTaggingBody, "s3:PutObjectTagging", true},
	OpPutBucketTagging:           {maxBucketTaggingBody, "s3:PutBucketTagging", false},
	OpPutObjectLockConfiguration: {maxSmallBody, "s3:PutBucketObjectLockConfiguration", false},
	OpPutObjectRetention:         {maxSmallBody, "s3:PutObjectRetention", true},
	OpPutObjectLegalHold:         {maxSmallBody, "s3:PutObjectLegalHold", true},
	OpPutBucketCors:              {maxCORSBody, "s3:PutBucketCORS", false},
	OpPutBucketEncryption:        {maxSmallBody, "s3:PutEncryptionConfiguration", false},
	// At most 1,000 rules of a few hundred bytes each.
	OpPutBucketLifecycleConfiguration: {maxXMLBody, "s3:PutLifecycleConfiguration", false},
	// At most 100 rules.
	OpPutBucketNotificationConfiguration: {maxACLBody, "s3:PutBucketNotification", false},
	// At most 1,000 rules, as lifecycle.
	OpPutBucketReplication: {maxXMLBody, "s3:PutReplicationConfiguration", false},
}

var (
	errMalformedXML = &apiError{400, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema"}
	errIncomplete   = &apiError{400, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header."}
	errBodyTimeout  = &apiError{400, "RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed."}
	errBadDigest    = &apiError{400, "BadDigest", "The Content-MD5 you specified did not match what we received."}
)

// tooLarge is the answer to a document over its operation's cap.
func tooLarge(op Op) error {
	if op == OpPutBucketPolicy {
		return &apiError{400, "MalformedPolicy", "Policy exceeds the maximum allowed document size."}
	}
	return errMalformedXML
}

// declaredSize is the length of r's body as the client declared it
// (aws-chunked's decoded length), or -1.
func declaredSize(r *http.Request, c *call) int64 {
	if c.auth != nil && c.auth.DecodedLength >= 0 {
		return c.auth.DecodedLength
	}
	return r.ContentLength
}

// documentSize is the memory reading c's document may take: its
// declared length, or its operation's cap when none is declared;
// nothing for one declared over the cap, which is refused unread.
func documentSize(r *http.Request, c *call, limit int64) int64 {
	switch size := declaredSize(r, c); {
	case size < 0:
		return limit
	case size > limit:
		return 0
	default:
		return size
	}
}

// documentLimit is the cap of c's document.
func documentLimit(c *call) int64 {
	if doc, ok := documents[c.Op]; ok {
		return doc.limit
	}
	return maxSmallBody
}

// readBody reads an operation's document, at most its cap, checking the
// Content-MD5 and x-amz-checksum-* the client sent with it. A body that
// declares more than the cap is refused before a byte is read.
func readBody(r *http.Request, c *call) ([]byte, error) {
	limit := documentLimit(c)
	size := declaredSize(r, c)
	if size > limit {
		return nil, tooLarge(c.Op)
	}
	n := limit + 1
	if size >= 0 {
		n = size + 1 // a body longer than declared is noticed below
	}
	var buf bytes.Buffer
	if size > 0 {
		buf.Grow(int(size))
	}
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, n)); err != nil {
		return nil, bodyReadError(err)
	}
	data := buf.Bytes()
	switch {
	case int64(len(data)) > limit:
		return nil, tooLarge(c.Op)
	case size >= 0 && int64(len(data)) < size:
		return nil, errIncomplete
	}
	if err := checkDigests(r, c, data); err != nil {
		return nil, err
	}
	return data, nil
}

// bodyReadError is the answer to a body that failed while it was read:
// the signature's and the framing's own errors as they are, a client
// that stopped sending (or hung up) as a 400 of its own, never a 500.
func bodyReadError(err error) error {
	var se *sigv4.Error
	if errors.As(err, &se) {
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errBodyTimeout
	}
	return errIncomplete
}

// contentMD5 is the Content-MD5 r was sent with (nil: none).
func contentMD5(r *http.Request) ([]byte, error) {
	v := r.Header.Get("Content-MD5")
	if v == "" {
		return nil, nil
	}
	want, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(want) != md5.Size {
		return nil, errEmptyMD5
	}
	return want, nil
}

// checkDigests compares a document with the digests sent for it.
func checkDigests(r *http.Request, c *call, data []byte) error {
	want, err := contentMD5(r)
	if err != nil {
		return err
	}
	if want != nil {
		if got := md5.Sum(data); !bytes.Equal(got[:], want) {
			return errBadDigest
		}
	}
	if c.Op == OpCompleteMultipartUpload {
		return nil // its x-amz-checksum-* are the object's, not the document's
	}
	var trailer http.Header
	if c.auth != nil && c.auth.Trailer != nil {
		trailer = c.auth.Trailer()
	}
	for _, algo := range objects.ChecksumAlgorithms() {
		name := "x-amz-checksum-" + strings.ToLower(algo)
		want := r.Header.Get(name)
		if want == "" {
			want = trailer.Get(name)
		}
		if want == "" {
			continue
		}
		h := objects.NewChecksum(algo)
		h.Write(data)
		if base64.StdEncoding.EncodeToString(h.Sum(nil)) != want {
			return &apiError{400, "BadDigest", "The " + algo + " you specified did not match the calculated checksum."}
		}
	}
	return nil
}

// readXML reads an operation's document (readBody) and decodes it into
// v; a document that does not parse, or whose shape could make the
// decoder hold far more than the document (xmlShaped), is MalformedXML.
func readXML(r *http.Request, c *call, v any) error {
	data, err := readBody(r, c)
	if err != nil {
		return err
	}
	if err := xmlShaped(data); err != nil {
		return err
	}
	if err := xml.Unmarshal(data, v); err != nil {
		return errMalformedXML
	}
	return nil
}

// What the decoder may be made to hold for a document is bounded by its
// shape, not only its size: encoding/xml keeps every attribute of a tag
// (a 2 MiB tag of empty attributes costs some 80 MB) and an entry for
// every open element (600,000 nested elements, over 100 MB), and
// xml.Unmarshal builds a value for every element of a list (2 MiB of
// empty <Rule/> elements, 300,000 lifecycle rules, allocate some 240 MB).
// S3's documents have short tags, a few levels, at most 1,000 entries in
// a list under their root (DeleteObjects' keys, lifecycle rules), a few
// tens of elements per entry and hardly an attribute, so a document with
// a run of more than maxXMLRun bytes without a '<' (a tag, or a text,
// longer than any of S3's), nested deeper than maxXMLDepth, with more
// than maxXMLChildren elements under its root or more than
// maxXMLElements elements and attributes in all is refused before it is
// decoded.
const (
	maxXMLRun      = 64 << 10
	maxXMLDepth    = 32
	maxXMLChildren = 1024
	maxXMLElements = 64 << 10
)

// xmlRuns fails a stream that passes more than maxXMLRun bytes without
// a '<': a tag with that many bytes of attributes never reaches the
// decoder whole.
type xmlRuns struct {
	r   io.Reader
	run int
}

func (x *xmlRuns) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	for _, b := range p[:n] {
		if b == '<' {
			x.run = 0
		} else if x.run++; x.run > maxXMLRun {
			return 0, errMalformedXML
		}
	}
	return n, err
}

// xmlShaped checks a document's shape (maxXMLRun, maxXMLDepth,
// maxXMLChildren, maxXMLElements), reading its tokens once with no more
// held than the deepest path, up to the end of its first element (all
// that xml.Unmarshal reads).
func xmlShaped(data []byte) error {
	d := xml.NewDecoder(&xmlRuns{r: bytes.NewReader(data)})
	depth, children, elements := 0, 0, 0
	for {
		tok, err := d.Token()
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return errMalformedXML
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth++; depth > maxXMLDepth {
				return errMalformedXML
			}
			if depth == 2 {
				children++
			}
			// An attribute costs the decoder as an element does (a
			// namespace declaration stays on its stack while its element
			// is open); S3's documents have a few.
			if elements += 1 + len(t.Attr); children > maxXMLChildren || elements > maxXMLElements {
				return errMalformedXML
			}
		case xml.EndElement:
			if depth--; depth == 0 {
				return nil
			}
		}
	}
}

// admit decides what can be decided before the body is read: whether
// the caller could be allowed an operation whose document it sends (so
// that nobody makes the node read what it may not write), and whether
// the bucket (and a copy's source) has the owner the request expects.
// Streaming writes (PutObject, UploadPart) need no admission here: the
// service authorizes them before it reads their bodies.
func (s *Server) admit(r *http.Request, c *call) error {
	expected := ""
	if bucketOps.has(c.Op) {
		expected = r.Header.Get("x-amz-expected-bucket-owner")
	}
	// A signed DeleteObjects is answered key by key, as AWS answers it
	// even to a caller who may delete nothing; only an anonymous one,
	// which no policy lets delete, is refused before its body is read.
	if a, ok := documents[c.Op]; ok && (c.Op != OpDeleteObjects || c.id == nil) {
		in := objects.Admission{ID: c.id, Action: a.action}
		if c.Op != OpCreateBucket {
			in.Bucket, in.ExpectedOwner, expected = c.Bucket, expected, ""
		} else {
			in.NewBucket = c.Bucket
		}
		if a.onKey {
			in.Key, in.Version = c.Key, c.Query.Get("versionId")
		}
		if err := s.svc.Admit(r.Context(), in); err != nil {
			return err
		}
	}
	if expected != "" && c.Bucket != "" {
		if err := s.svc.BucketOwner(r.Context(), c.Bucket, expected); err != nil {
			return err
		}
	}
	if v := r.Header.Get("x-amz-source-expected-bucket-owner"); v != "" && (c.Op == OpCopyObject || c.Op == OpUploadPartCopy) {
		sb, _, _, err := copySource(r.Header.Get("x-amz-copy-source"))
		if err != nil {
			return err
		}
		if err := s.svc.BucketOwner(r.Context(), sb, v); err != nil {
			return err
		}
	}
	return nil
}

// clientBody marks what failed while reading the client's body as the
// client's: a client that stops sending or hangs up gets a 400 (which
// nobody may read) and no ERROR in the log, whatever layer reported it.
type clientBody struct {
	r    io.ReadCloser
	done bool // read to its end
}

// bodyError is a read error of the client's body.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "reading the request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

func (b *clientBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.done = true
	case err != nil:
		err = &bodyError{err}
	}
	return n, err
}

func (b *clientBody) Close() error { return b.r.Close() }
