package console

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objectlock"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3"
)

// Bucket is a bucket as the console lists it.
type Bucket struct {
	Name       string             `json:"name"`
	Created    time.Time          `json:"created"`
	Region     string             `json:"region"`
	Tenant     string             `json:"tenant,omitempty"`
	Versioning string             `json:"versioning,omitempty"`
	ObjectLock *objectlock.Config `json:"object_lock,omitempty"`
	// SettingsHidden marks a listed bucket whose settings its viewer may
	// not read (no s3:ListBucket on it).
	SettingsHidden bool `json:"settings_hidden,omitempty"`
}

func bucketOut(b catalog.Bucket) Bucket {
	out := Bucket{Name: b.Name, Created: b.CreatedAt, Region: b.Region, Tenant: b.Tenant, Versioning: b.Versioning}
	if b.ObjectLock != "" {
		if c, err := objectlock.Decode(b.ObjectLock); err == nil {
			out.ObjectLock = &c
		}
	}
	return out
}

// Object is an object (a version, a delete marker) as the console
// shows it.
type Object struct {
	Key          string            `json:"key"`
	VersionID    string            `json:"version_id,omitempty"`
	IsLatest     bool              `json:"is_latest"`
	DeleteMarker bool              `json:"delete_marker"`
	Size         int64             `json:"size"`
	ETag         string            `json:"etag,omitempty"`
	LastModified time.Time         `json:"last_modified"`
	StorageClass string            `json:"storage_class,omitempty"`
	ContentType  string            `json:"content_type,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	Lock         *LockInfo         `json:"lock,omitempty"`
	// Encryption (metadata only) is how its bytes are encrypted at rest
	// (absent: not encrypted).
	Encryption *ObjectEncryption `json:"encryption,omitempty"`
	// CustomerKeyRequired (metadata only) marks an SSE-C object, of which
	// nothing more is shown without its key (customerKeyed).
	CustomerKeyRequired bool `json:"customer_key_required,omitempty"`
}

// LockInfo is a version's object lock.
type LockInfo struct {
	Mode        string     `json:"mode,omitempty"`
	RetainUntil *time.Time `json:"retain_until,omitempty"`
	LegalHold   bool       `json:"legal_hold"`
}

func objectOut(o catalog.Object, full bool) Object {
	out := Object{Key: o.Key, VersionID: o.VersionID, IsLatest: o.IsLatest, DeleteMarker: o.DeleteMarker, Size: o.Size,
		ETag: o.ETag, LastModified: o.LastModified, StorageClass: o.StorageClass, ContentType: o.Meta.ContentType}
	if full {
		out.Metadata, out.Tags = o.Meta.User, o.Meta.Tags
		if l := o.Lock; l.Mode != "" || l.LegalHold {
			out.Lock = &LockInfo{Mode: string(l.Mode), LegalHold: l.LegalHold}
			if !l.RetainUntil.IsZero() {
				out.Lock.RetainUntil = &l.RetainUntil
			}
		}
	}
	return out
}

// pageToken is where a listing resumes: an opaque token to pages.
type pageToken struct {
	Key     string `json:"k"`
	Version string `json:"v,omitempty"`
}

func encodeToken(t pageToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s string) (pageToken, error) {
	var t pageToken
	if s == "" {
		return t, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil {
		return t, apiError(http.StatusBadRequest, "InvalidArgument", "The continuation token is not valid")
	}
	return t, nil
}

func listInput(c *call) (objects.ListInput, error) {
	q := c.r.URL.Query()
	in := objects.ListInput{Bucket: c.path("bucket"), Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter"), MaxKeys: objects.MaxKeys}
	if v := q.Get("max"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > objects.MaxKeys {
			return in, apiError(http.StatusBadRequest, "InvalidArgument", "max is 1 to %d", objects.MaxKeys)
		}
		in.MaxKeys = n
	}
	t, err := decodeToken(q.Get("token"))
	in.Marker, in.VersionMarker = t.Key, t.Version
	return in, err
}

// Listing is a page of objects or versions.
type Listing struct {
	Objects   []Object `json:"objects"`
	Prefixes  []string `json:"prefixes"`
	NextToken string   `json:"next_token,omitempty"`
}

func listing(out objects.ListOutput, versions bool) Listing {
	l := Listing{Objects: make([]Object, len(out.Objects)), Prefixes: out.CommonPrefixes}
	if l.Prefixes == nil {
		l.Prefixes = []string{}
	}
	for i, o := range out.Objects {
		l.Objects[i] = objectOut(o, false)
		if !versions {
			l.Objects[i].VersionID, l.Objects[i].IsLatest = "", true
		}
	}
	if out.Truncated {
		t := pageToken{Key: out.NextMarker}
		if versions {
			t.Version = out.NextVersionMarker
		}
		l.NextToken = encodeToken(t)
	}
	return l
}

func listObjects(h *Handler, c *call) (any, int, error) {
	in, err := listInput(c)
	if err != nil {
		return nil, 0, err
	}
	out, err := h.o.Objects.ListObjects(c.ctx(), c.id(), in)
	return listing(out, false), http.StatusOK, err
}

func listVersions(h *Handler, c *call) (any, int, error) {
	in, err := listInput(c)
	if err != nil {
		return nil, 0, err
	}
	out, err := h.o.Objects.ListVersions(c.ctx(), c.id(), in)
	return listing(out, true), http.StatusOK, err
}

// key is the object key a call names (?key=), which S3 bounds.
func key(c *call) (string, error) {
	k := c.query("key")
	if k == "" {
		return "", apiError(http.StatusBadRequest, "InvalidArgument", "Name the object with ?key=")
	}
	return k, nil
}

// userMeta reads X-Meta-* headers as S3 reads x-amz-meta-*.
func userMeta(h http.Header) map[string]string {
	var m map[string]string
	for name, vs := range h {
		if k, ok := strings.CutPrefix(strings.ToLower(name), "x-meta-"); ok && k != "" {
			if m == nil {
				m = map[string]string{}
			}
			m[k] = strings.Join(vs, ",")
		}
	}
	return m
}

// payload is a streamed request body of a declared length.
func payload(r *http.Request) (objects.Payload, error) {
	if r.ContentLength < 0 {
		return objects.Payload{}, apiError(http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header.")
	}
	return objects.Payload{Body: r.Body, Size: r.ContentLength, Expected: func() map[string]string { return nil }}, nil
}

func putObject(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	p, err := payload(c.r)
	if err != nil {
		return nil, 0, err
	}
	o, err := h.o.Objects.PutObject(c.ctx(), c.id(), objects.PutInput{Bucket: c.path("bucket"), Key: k, Payload: p,
		Meta: catalog.Meta{ContentType: c.r.Header.Get("Content-Type"), User: userMeta(c.r.Header)}})
	return objectOut(o, false), http.StatusOK, err
}

func createUpload(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	var in struct {
		ContentType string            `json:"content_type"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	u, err := h.o.Objects.CreateUpload(c.ctx(), c.id(), catalog.Upload{Bucket: c.path("bucket"), Key: k,
		Meta: catalog.Meta{ContentType: in.ContentType, User: in.Metadata}}, iam.ACLSpec{}, nil)
	return map[string]string{"upload_id": u.UploadID, "key": k}, http.StatusCreated, err
}

func uploadPart(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	n, err := strconv.Atoi(c.query("part"))
	if err != nil || n < 1 || n > 10000 {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive")
	}
	p, err := payload(c.r)
	if err != nil {
		return nil, 0, err
	}
	part, _, err := h.o.Objects.UploadPart(c.ctx(), c.id(), objects.PartInput{Bucket: c.path("bucket"), Key: k,
		UploadID: c.path("upload"), Number: n, Payload: p})
	return map[string]any{"part": n, "etag": part.ETag}, http.StatusOK, err
}

func completeUpload(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	var in struct {
		Parts []struct {
			Part int    `json:"part"`
			ETag string `json:"etag"`
		} `json:"parts"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if len(in.Parts) == 0 || len(in.Parts) > 10000 {
		return nil, 0, apiError(http.StatusBadRequest, "MalformedJSON", "An upload completes with 1 to 10000 parts")
	}
	list := make([]objects.CompletePart, len(in.Parts))
	for i, p := range in.Parts {
		list[i] = objects.CompletePart{Number: p.Part, ETag: p.ETag}
	}
	o, err := h.o.Objects.CompleteUpload(c.ctx(), c.id(), c.path("bucket"), k, c.path("upload"), list, objects.CompleteOptions{})
	return objectOut(o, false), http.StatusOK, err
}

func abortUpload(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	return nil, http.StatusNoContent, h.o.Objects.AbortUpload(c.ctx(), c.id(), c.path("bucket"), k, c.path("upload"))
}

func listUploads(h *Handler, c *call) (any, int, error) {
	out, err := h.o.Objects.ListUploads(c.ctx(), c.id(), objects.ListInput{Bucket: c.path("bucket"), Prefix: c.query("prefix"), MaxKeys: objects.MaxKeys})
	type upload struct {
		Key       string    `json:"key"`
		UploadID  string    `json:"upload_id"`
		Initiated time.Time `json:"initiated"`
	}
	us := make([]upload, len(out.Uploads))
	for i, u := range out.Uploads {
		us[i] = upload{u.Key, u.UploadID, u.Initiated}
	}
	return map[string]any{"uploads": us}, http.StatusOK, err
}

// activeTypes are those a browser would run or render as a document of
// the console's origin: they are always sent as attachments, sandboxed.
func activeType(ct string) bool {
	t, _, _ := mime.ParseMediaType(ct)
	t = strings.ToLower(t)
	return t == "" || strings.Contains(t, "html") || strings.Contains(t, "xml") || strings.Contains(t, "javascript") ||
		strings.Contains(t, "ecmascript") || strings.HasPrefix(t, "multipart/")
}

// getObject streams an object (a range of it) to the browser.
func getObject(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	head := c.r.Method == http.MethodHead
	in := objects.GetInput{Bucket: c.path("bucket"), Key: k, VersionID: c.query("version")}
	if v := c.r.Header.Get("Range"); v != "" {
		in.Range = s3.ParseRange(v)
	}
	rd, err := h.o.Objects.GetObject(c.ctx(), c.id(), in, head)
	if err != nil {
		return nil, 0, err
	}
	if rd.Body != nil {
		defer rd.Body.Close()
	}
	o := rd.Object
	hd := c.w.Header()
	ct := o.Meta.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	hd.Set("Content-Type", ct)
	hd.Set("ETag", o.ETag)
	hd.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	hd.Set("Accept-Ranges", "bytes")
	hd.Set("Content-Length", strconv.FormatInt(rd.Length, 10))
	hd.Set("Cache-Control", "private, no-cache")
	hd.Set("X-Content-Type-Options", "nosniff")
	if o.VersionID != "" {
		hd.Set("X-Version-Id", o.VersionID)
	}
	// An object is the tenant's data, not the console's: whatever it is,
	// it never runs as a page of the console's origin.
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'")
	name := k[strings.LastIndex(k, "/")+1:]
	if c.query("download") != "" || activeType(ct) {
		hd.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(name))
	} else {
		hd.Set("Content-Disposition", "inline; filename*=UTF-8''"+url.PathEscape(name))
	}
	status := http.StatusOK
	if rd.Ranged {
		status = http.StatusPartialContent
		hd.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rd.Start, rd.Start+rd.Length-1, o.Size))
	}
	c.w.WriteHeader(status)
	if !head && rd.Body != nil {
		// Headers are gone: an error now can only cut the body short.
		io.Copy(c.w, rd.Body)
	}
	return rawBody{}, status, nil
}

func deleteObject(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	bypass, _ := strconv.ParseBool(c.r.Header.Get("X-Bypass-Governance"))
	o, err := h.o.Objects.DeleteObject(c.ctx(), c.id(), c.path("bucket"), k, c.query("version"), bypass)
	if bypass { // a caller reaching past an object's protection, as S3 records it
		h.recordS3Object(c, "DeleteObject", http.StatusNoContent, err, "", c.path("bucket"), k, c.query("version"))
	}
	return map[string]any{"version_id": o.VersionID, "delete_marker": o.DeleteMarker}, http.StatusOK, err
}

func deleteObjects(h *Handler, c *call) (any, int, error) {
	var in struct {
		Objects []struct {
			Key       string `json:"key"`
			VersionID string `json:"version_id"`
		} `json:"objects"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if len(in.Objects) == 0 || len(in.Objects) > 1000 {
		return nil, 0, apiError(http.StatusBadRequest, "MalformedJSON", "A batch deletes 1 to 1000 objects")
	}
	targets := make([]objects.DeleteTarget, len(in.Objects))
	for i, o := range in.Objects {
		targets[i] = objects.DeleteTarget{Key: o.Key, VersionID: o.VersionID}
	}
	bypass, _ := strconv.ParseBool(c.r.Header.Get("X-Bypass-Governance"))
	res, err := h.o.Objects.DeleteObjects(c.ctx(), c.id(), c.path("bucket"), targets, bypass)
	if bypass {
		refused := ""
		for _, r := range res {
			if r.Err != nil {
				_, refused, _ = s3.ErrorOf(r.Err)
				break
			}
		}
		h.recordS3Object(c, "DeleteObjects", http.StatusOK, err, refused, c.path("bucket"), "", "")
	}
	if err != nil {
		return nil, 0, err
	}
	type done struct {
		Key          string `json:"key"`
		VersionID    string `json:"version_id,omitempty"`
		DeleteMarker bool   `json:"delete_marker,omitempty"`
	}
	type failed struct {
		Key       string `json:"key"`
		VersionID string `json:"version_id,omitempty"`
		Code      string `json:"code"`
		Message   string `json:"message"`
	}
	out := struct {
		Deleted []done   `json:"deleted"`
		Errors  []failed `json:"errors"`
	}{Deleted: []done{}, Errors: []failed{}}
	for _, r := range res {
		if r.Err != nil {
			_, code, msg := s3.ErrorOf(r.Err)
			out.Errors = append(out.Errors, failed{r.Key, r.VersionID, code, msg})
			continue
		}
		out.Deleted = append(out.Deleted, done{r.Key, r.VersionID, r.DeleteMarker})
	}
	return out, http.StatusOK, nil
}

// restoreVersion copies an earlier version over the current one: a new
// version with its bytes, the earlier one kept, as the S3 console does.
func restoreVersion(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	v := c.query("version")
	if v == "" {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "Name the version to restore with ?version=")
	}
	b := c.path("bucket")
	_, dst, err := h.o.Objects.CopyObject(c.ctx(), c.id(), objects.CopyInput{SrcBucket: b, SrcKey: k, SrcVersion: v, Bucket: b, Key: k})
	return objectOut(dst, false), http.StatusOK, err
}

func getMetadata(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	rd, err := h.o.Objects.GetObject(c.ctx(), c.id(), objects.GetInput{Bucket: c.path("bucket"), Key: k, VersionID: c.query("version")}, true)
	if errors.Is(err, objects.ErrCustomerKeyRequired) {
		return customerKeyed(k, c.query("version")), http.StatusOK, nil
	}
	if err != nil {
		return nil, 0, err
	}
	o := objectOut(rd.Object, true)
	o.Encryption = h.objectEncryption(h.o.Objects.BucketTenant(c.ctx(), c.path("bucket")), rd.Object.Meta.Encryption)
	o.Tags = nil
	// Tags only to who may read them, as GetObjectTagging decides.
	if t, err := h.o.Objects.GetObjectTagging(c.ctx(), c.id(), c.path("bucket"), k, c.query("version")); err == nil {
		o.Tags = t.Meta.Tags
	}
	return o, http.StatusOK, nil
}

// putMetadata replaces an object's metadata by copying it onto itself,
// as S3 does (CopyObject with the REPLACE directive).
func putMetadata(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	var in struct {
		ContentType string            `json:"content_type"`
		Metadata    map[string]string `json:"metadata"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	b := c.path("bucket")
	_, dst, err := h.o.Objects.CopyObject(c.ctx(), c.id(), objects.CopyInput{SrcBucket: b, SrcKey: k, Bucket: b, Key: k,
		ReplaceMeta: true, Meta: catalog.Meta{ContentType: in.ContentType, User: in.Metadata}})
	return objectOut(dst, false), http.StatusOK, err
}

// Tags are tags as JSON.
type Tags struct {
	Tags []TagKV `json:"tags"`
}

// TagKV is one tag.
type TagKV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func tagsOut(m map[string]string) Tags {
	t := Tags{Tags: []TagKV{}}
	for k, v := range m {
		t.Tags = append(t.Tags, TagKV{k, v})
	}
	return t
}

func (t Tags) list() []objects.Tag {
	out := make([]objects.Tag, len(t.Tags))
	for i, kv := range t.Tags {
		out[i] = objects.Tag{Key: kv.Key, Value: kv.Value}
	}
	return out
}

func getObjectTags(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	o, err := h.o.Objects.GetObjectTagging(c.ctx(), c.id(), c.path("bucket"), k, c.query("version"))
	return tagsOut(o.Meta.Tags), http.StatusOK, err
}

func putObjectTags(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	var in Tags
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	_, err = h.o.Objects.PutObjectTagging(c.ctx(), c.id(), c.path("bucket"), k, c.query("version"), in.list())
	return in, http.StatusOK, err
}

func deleteObjectTags(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	_, err = h.o.Objects.DeleteObjectTagging(c.ctx(), c.id(), c.path("bucket"), k, c.query("version"))
	return nil, http.StatusNoContent, err
}

// copyObject copies (or moves: copies, then deletes the source, each
// decided on its own) an object into the bucket of the path.
func copyObject(h *Handler, c *call) (any, int, error) {
	var in struct {
		Key           string `json:"key"`
		SourceBucket  string `json:"source_bucket"`
		SourceKey     string `json:"source_key"`
		SourceVersion string `json:"source_version"`
		Move          bool   `json:"move"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if in.Key == "" || in.SourceKey == "" {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "A copy names key and source_key")
	}
	if in.SourceBucket == "" {
		in.SourceBucket = c.path("bucket")
	}
	_, dst, err := h.o.Objects.CopyObject(c.ctx(), c.id(), objects.CopyInput{SrcBucket: in.SourceBucket, SrcKey: in.SourceKey,
		SrcVersion: in.SourceVersion, Bucket: c.path("bucket"), Key: in.Key})
	if err != nil {
		return nil, 0, err
	}
	if in.Move && !(in.SourceBucket == c.path("bucket") && in.SourceKey == in.Key) {
		if _, err := h.o.Objects.DeleteObject(c.ctx(), c.id(), in.SourceBucket, in.SourceKey, in.SourceVersion, false); err != nil {
			return nil, 0, err
		}
	}
	return objectOut(dst, false), http.StatusOK, nil
}

// Lock is a version's retention and legal hold as GET and PUT
// /buckets/{bucket}/lock take them.
type Lock struct {
	Mode        string     `json:"mode,omitempty"` // GOVERNANCE, COMPLIANCE or "" (none)
	RetainUntil *time.Time `json:"retain_until,omitempty"`
	LegalHold   *bool      `json:"legal_hold,omitempty"`
}

func getLock(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	ctx, id, b, v := c.ctx(), c.id(), c.path("bucket"), c.query("version")
	hold, err := h.o.Objects.GetObjectLegalHold(ctx, id, b, k, v)
	if err != nil {
		return nil, 0, err
	}
	out := Lock{LegalHold: &hold}
	r, err := h.o.Objects.GetObjectRetention(ctx, id, b, k, v)
	switch {
	case errors.Is(err, objects.ErrNoSuchObjectLock):
	case err != nil:
		return nil, 0, err
	default:
		out.Mode, out.RetainUntil = string(r.Mode), &r.Until
	}
	return out, http.StatusOK, nil
}

// putLock changes what the body names: the legal hold, the retention
// (mode with retain_until; an empty mode removes it, with the bypass
// header, as S3 allows for GOVERNANCE only), each by its S3 call.
func putLock(h *Handler, c *call) (any, int, error) {
	k, err := key(c)
	if err != nil {
		return nil, 0, err
	}
	var in struct {
		Lock
		Retention bool `json:"set_retention"` // change the retention too (mode "" removes it)
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	ctx, id, b, v := c.ctx(), c.id(), c.path("bucket"), c.query("version")
	if in.LegalHold != nil {
		err := h.o.Objects.PutObjectLegalHold(ctx, id, b, k, v, *in.LegalHold)
		h.recordS3Object(c, "PutObjectLegalHold", http.StatusOK, err, "", b, k, v)
		if err != nil {
			return nil, 0, err
		}
	}
	if in.Retention {
		r := objectlock.Retention{Mode: objectlock.Mode(in.Mode)}
		if in.RetainUntil != nil {
			r.Until = *in.RetainUntil
		}
		bypass, _ := strconv.ParseBool(c.r.Header.Get("X-Bypass-Governance"))
		err := h.o.Objects.PutObjectRetention(ctx, id, b, k, v, r, bypass)
		h.recordS3Object(c, "PutObjectRetention", http.StatusOK, err, "", b, k, v)
		if err != nil {
			return nil, 0, err
		}
	}
	return getLock(h, c)
}
