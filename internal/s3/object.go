package s3

import (
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

// payload describes a write's body: its length (decoded, for aws-chunked)
// and the digests the client declared in headers or will send in trailers.
func payload(r *http.Request, c *call) (objects.Payload, error) {
	algos, declared, err := checksumRequest(r.Header)
	if err != nil {
		return objects.Payload{}, err
	}
	size := r.ContentLength
	if c.auth != nil && c.auth.DecodedLength >= 0 {
		size = c.auth.DecodedLength
	}
	if size < 0 {
		return objects.Payload{}, &apiError{411, "MissingContentLength", "You must provide the Content-Length HTTP header."}
	}
	expected := func() map[string]string {
		if c.auth == nil || c.auth.Trailer == nil {
			return declared
		}
		tr := c.auth.Trailer()
		if len(tr) == 0 {
			return declared
		}
		m := map[string]string{}
		for a, v := range declared {
			m[a] = v
		}
		for _, a := range objects.ChecksumAlgorithms() {
			if v := tr.Get("x-amz-checksum-" + strings.ToLower(a)); v != "" {
				m[a] = v
			}
		}
		return m
	}
	return objects.Payload{Body: r.Body, Size: size, ContentMD5: r.Header.Get("Content-MD5"),
		Algorithms: algos, Expected: expected}, nil
}

// putOptions reads the conditional-write headers. If-Match names the
// current version's ETag, quoted as responses give it or bare. If-None-Match
// takes "*" (no current version) or entity tags (none of them the current
// version's), as Ceph RGW and MinIO do; AWS takes "*" alone.
func putOptions(h http.Header) (catalog.PutOptions, error) {
	var o catalog.PutOptions
	if v := strings.TrimSpace(h.Get("If-Match")); v != "" {
		o.IfMatch = `"` + strings.Trim(v, `"`) + `"`
	}
	v := strings.TrimSpace(h.Get("If-None-Match"))
	if v == "" {
		return o, nil
	}
	for _, t := range strings.Split(v, ",") {
		t = strings.Trim(strings.TrimPrefix(strings.TrimSpace(t), "W/"), `"`)
		switch {
		case t == "*":
			o.IfNoneMatch = true
		case t == "" || strings.ContainsAny(t, `" `):
			return o, &apiError{400, "InvalidArgument", "Invalid If-None-Match header: " + v}
		default:
			o.IfNoneMatchETags = append(o.IfNoneMatchETags, `"`+t+`"`)
		}
	}
	return o, nil
}

func putObject(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	enc, err := s.writeSSE(r)
	if err != nil {
		return err
	}
	r = withSSEConditions(r)
	p, err := payload(r, c)
	if err != nil {
		return err
	}
	cond, err := putOptions(r.Header)
	if err != nil {
		return err
	}
	sc, err := storageClass(r.Header)
	if err != nil {
		return err
	}
	acl, err := aclHeaders(r)
	if err != nil {
		return err
	}
	lock, err := lockRequest(r.Header)
	if err != nil {
		return err
	}
	if lock != nil && !hasIntegrity(r) {
		return errIntegrityRequired
	}
	meta := metaFromHeaders(r.Header)
	if meta.Tags, err = taggingHeader(r, c); err != nil {
		return err
	}
	obj, err := s.svc.PutObject(r.Context(), c.id, objects.PutInput{
		Bucket: c.Bucket, Key: c.Key, Payload: p, Meta: meta,
		StorageClass: sc, Cond: cond, ACL: acl, Lock: lock, Encrypt: enc.request(),
	})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("ETag", obj.ETag)
	s.setSSEHeaders(r.Context(), h, c, obj.Meta.Encryption, true, true, r.Header.Get(hSSECKeyMD5))
	setVersionHeader(h, obj)
	setChecksumHeaders(h, obj.Meta.Checksums, obj.Meta.ChecksumType)
	s.setExpiration(r.Context(), h, obj)
	w.WriteHeader(http.StatusOK)
	return nil
}

// getObject serves GetObject and HeadObject.
func getObject(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	head := r.Method == http.MethodHead
	in := objects.GetInput{Bucket: c.Bucket, Key: c.Key, VersionID: c.Query.Get("versionId"),
		Cond: conditions(r.Header, "")}
	if v, ok := c.Query["partNumber"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > 10000 {
			return &apiError{400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive"}
		}
		in.PartNumber = n
	}
	if v := r.Header.Get("Range"); v != "" {
		in.Range = parseRange(v)
	}
	key, err := s.customerKey(r, "")
	if err != nil {
		return err
	}
	in.CustomerKey = key.CustomerKey
	rd, err := s.svc.GetObject(r.Context(), c.id, in, head)
	if err != nil {
		switch {
		case rd == nil:
		case rd.Object.DeleteMarker:
			// As S3: the marker's id, and its date when it was named.
			setDeleteMarkerHeaders(w.Header(), rd.Object)
			if in.VersionID != "" {
				w.Header().Set("Last-Modified", rd.Object.LastModified.UTC().Format(http.TimeFormat))
			}
		case errors.Is(err, objects.ErrNotModified):
			w.Header().Set("ETag", rd.Object.ETag)
			w.Header().Set("Last-Modified", rd.Object.LastModified.UTC().Format(http.TimeFormat))
		}
		return err
	}
	defer rd.Close()
	h := w.Header()
	// Checksums are of the whole object, or of the part read by number
	// (a client checks them against the bytes it reads); a range has none.
	withSums := strings.EqualFold(r.Header.Get("x-amz-checksum-mode"), "ENABLED")
	setObjectHeaders(h, rd.Object, withSums && !rd.Ranged && in.PartNumber == 0)
	if withSums && in.PartNumber > 0 {
		setChecksumHeaders(h, rd.PartChecksums, rd.PartChecksumType)
	}
	setVersionHeader(h, rd.Object)
	s.setSSEHeaders(r.Context(), h, c, rd.Object.Meta.Encryption, false, true, r.Header.Get(hSSECKeyMD5))
	setLockHeaders(h, s.svc.VisibleLock(r.Context(), c.id, c.Bucket, c.Key, rd.Object.Lock))
	setReplicationStatus(h, rd.Object)
	if rd.Object.IsLatest {
		s.setExpiration(r.Context(), h, rd.Object)
	}
	for q, hn := range responseOverrides {
		if v := c.Query.Get(q); v != "" {
			h.Set(hn, v)
		}
	}
	h.Set("Accept-Ranges", "bytes")
	setTaggingCount(h, rd.TagCount)
	// As AWS: the count of parts answers a read by part number only.
	if rd.PartsCount > 0 {
		h.Set("x-amz-mp-parts-count", strconv.Itoa(rd.PartsCount))
	}
	return s.writeObject(w, rd, head)
}

// writeObject ends an object answer whose other headers are set: its
// length, range, the answer headers every object carries, and the body.
func (s *Server) writeObject(w http.ResponseWriter, rd *objects.Reader, head bool) error {
	h := w.Header()
	h.Set("Content-Length", strconv.FormatInt(rd.Length, 10))
	s.objectAnswerHeaders(h)
	status := http.StatusOK
	if rd.Ranged {
		status = http.StatusPartialContent
		h.Set("Content-Range", "bytes "+strconv.FormatInt(rd.Start, 10)+"-"+
			strconv.FormatInt(rd.Start+rd.Length-1, 10)+"/"+strconv.FormatInt(rd.Object.Size, 10))
	}
	w.WriteHeader(status)
	if head || rd.Length == 0 {
		return nil
	}
	// Headers are gone: a failure now can only cut the connection short,
	// which the client sees as a truncated body.
	if _, err := io.Copy(w, rd.Body); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}

func deleteObject(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	obj, err := s.svc.DeleteObject(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"), bypassGovernance(r))
	if err != nil {
		return err
	}
	setDeleteMarkerHeaders(w.Header(), obj)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// copySource parses x-amz-copy-source: "bucket/key" or "/bucket/key",
// URL-encoded, with an optional "?versionId=".
func copySource(v string) (bucket, key, version string, err error) {
	bad := &apiError{400, "InvalidArgument", "Invalid copy source object key"}
	path, query, _ := strings.Cut(v, "?")
	path, uerr := url.PathUnescape(path)
	if uerr != nil {
		return "", "", "", bad
	}
	path = strings.TrimPrefix(path, "/")
	bucket, key, ok := strings.Cut(path, "/")
	if !ok || bucket == "" || key == "" {
		return "", "", "", bad
	}
	if query != "" {
		q, err := url.ParseQuery(query)
		if err != nil {
			return "", "", "", bad
		}
		version = q.Get("versionId")
		if _, ok := q["versionId"]; ok && !validVersionID(version) {
			return "", "", "", errBadVersionID
		}
	}
	return bucket, key, version, nil
}

func copyObject(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	sb, sk, sv, err := copySource(r.Header.Get("x-amz-copy-source"))
	if err != nil {
		return err
	}
	in := objects.CopyInput{SrcBucket: sb, SrcKey: sk, SrcVersion: sv,
		SrcCond: conditions(r.Header, "x-amz-copy-source-"), Bucket: c.Bucket, Key: c.Key}
	switch d := r.Header.Get("x-amz-metadata-directive"); d {
	case "", "COPY":
	case "REPLACE":
		in.ReplaceMeta, in.Meta = true, metaFromHeaders(r.Header)
	default:
		return &apiError{400, "InvalidArgument", "Unknown metadata directive."}
	}
	switch d := r.Header.Get("x-amz-tagging-directive"); d {
	case "", "COPY":
	case "REPLACE":
		in.ReplaceTags = true
		if in.Tags, err = taggingHeader(r, c); err != nil {
			return err
		}
	default:
		return &apiError{400, "InvalidArgument", "Unknown tagging directive."}
	}
	if in.StorageClass, err = storageClass(r.Header); err != nil {
		return err
	}
	if in.Cond, err = putOptions(r.Header); err != nil {
		return err
	}
	if in.ACL, err = aclHeaders(r); err != nil {
		return err
	}
	if in.Lock, err = lockRequest(r.Header); err != nil {
		return err
	}
	enc, err := s.writeSSE(r)
	if err != nil {
		return err
	}
	in.Encrypt = enc.request()
	srcKey, err := s.customerKey(r, copySourcePfx)
	if err != nil {
		return err
	}
	in.SrcCustomerKey = srcKey.CustomerKey
	r = withSSEConditions(r)
	src, dst, err := s.svc.CopyObject(r.Context(), c.id, in)
	if err != nil {
		return err
	}
	if src.VersionID != "" {
		w.Header().Set("x-amz-copy-source-version-id", src.VersionID)
	}
	setVersionHeader(w.Header(), dst)
	s.setSSEHeaders(r.Context(), w.Header(), c, dst.Meta.Encryption, true, true, r.Header.Get(hSSECKeyMD5))
	s.setExpiration(r.Context(), w.Header(), dst)
	writeXML(w, http.StatusOK, copyResult("CopyObjectResult", dst.ETag, dst.LastModified, dst.Meta.Checksums))
	return nil
}

// deleteRequest is DeleteObjects' document.
type deleteRequest struct {
	Quiet  bool
	Object []struct {
		Key       string
		VersionID string `xml:"VersionId"`
		// Conditional deletes: refused until they are done.
		ETag, LastModifiedTime, Size *string
	}
}

// errConditionalDelete refuses the conditions DeleteObjects may set per
// object, which are not checked yet.
var errConditionalDelete = &apiError{501, "NotImplemented", "Conditional deletes (ETag, LastModifiedTime, Size) are not implemented"}

func deleteObjects(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var req deleteRequest
	if err := readXML(r, c, &req); err != nil {
		return err
	}
	targets := make([]objects.DeleteTarget, 0, len(req.Object))
	var reserved []objects.DeleteResult // keys SOSAPI keeps (sosapi.go)
	for _, o := range req.Object {
		if o.ETag != nil || o.LastModifiedTime != nil || o.Size != nil {
			return errConditionalDelete
		}
		t := objects.DeleteTarget{Key: o.Key, VersionID: o.VersionID}
		if s.sosapiRefusesKey(o.Key) && len(req.Object) <= objects.MaxDeleteKeys {
			reserved = append(reserved, objects.DeleteResult{DeleteTarget: t, Err: errSOSAPIReserved})
			continue
		}
		targets = append(targets, t)
	}
	var results []objects.DeleteResult
	if len(targets) > 0 || len(reserved) == 0 {
		var err error
		if results, err = s.svc.DeleteObjects(r.Context(), c.id, c.Bucket, targets, bypassGovernance(r)); err != nil {
			return err
		}
	} else if _, err := s.svc.HeadBucket(r.Context(), c.id, c.Bucket); errors.Is(err, objects.ErrNoSuchBucket) {
		return err // a batch of reserved keys only, to a bucket that is not there
	}
	results = append(results, reserved...)
	type deleted struct {
		Key                   string
		VersionID             string `xml:"VersionId,omitempty"`
		DeleteMarker          bool   `xml:",omitempty"`
		DeleteMarkerVersionID string `xml:"DeleteMarkerVersionId,omitempty"`
	}
	type failed struct {
		Key       string
		VersionID string `xml:"VersionId,omitempty"`
		Code      string
		Message   string
	}
	var res struct {
		XMLName xml.Name `xml:"DeleteResult"`
		NS      string   `xml:"xmlns,attr"`
		Deleted []deleted
		Error   []failed
	}
	res.NS = s3NS
	for _, d := range results {
		if d.Err != nil {
			e := toAPIError(d.Err)
			res.Error = append(res.Error, failed{d.Key, d.VersionID, e.Code, e.Message})
			if c.refused == "" {
				c.refused = e.Code
			}
		} else if !req.Quiet {
			res.Deleted = append(res.Deleted, deleted{d.Key, d.VersionID, d.DeleteMarker, d.DeleteMarkerVersionID})
		}
	}
	writeXML(w, http.StatusOK, res)
	return nil
}
