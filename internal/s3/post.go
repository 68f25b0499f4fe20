package s3

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3/postpolicy"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

func init() {
	logOperations[OpPostObject] = "REST.POST.OBJECT"
}

// A form upload's fields come before its file, and are read into memory:
// AWS caps them at 20 KB, names and values together. The bytes read
// before the file (the fields with their part headers and boundaries)
// are capped too, so that parts without a name, or long part headers,
// cannot make the node read without end before it knows what to store.
const (
	maxPostFields   = 20 << 10
	maxPostPreamble = 64 << 10
)

var (
	errPostPreData   = &apiError{400, "MaxPostPreDataLengthExceededError", "Your POST request fields preceeding the upload file was too large."}
	errPostMalformed = &apiError{400, "MalformedPOSTRequest", "The body of your POST request is not well-formed multipart/form-data."}
	errPostNoFile    = &apiError{400, "InvalidArgument", "POST requires exactly one file upload per request."}
	errPostTooLarge  = &apiError{400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size"}
	errPostTooSmall  = &apiError{400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size"}
)

// formOnly are the fields of a form upload that are not the stored
// object's headers: the rest are taken as the headers of a PutObject
// (metadata, checksums, storage class; what the honoured table refuses
// on a PutObject is refused here too).
var formOnly = map[string]bool{
	"key": true, "file": true, "policy": true, "acl": true, "tagging": true, "bucket": true,
	"success_action_redirect": true, "redirect": true, "success_action_status": true,
	"x-amz-algorithm": true, "x-amz-credential": true, "x-amz-signature": true, "x-amz-date": true,
	"awsaccesskeyid": true, "signature": true, "x-amz-security-token": true,
}

// preamble caps what is read of a form before its file part.
type preamble struct {
	r        io.Reader
	left     int64
	open     bool // the file part began: no cap but the object's
	exceeded bool
}

func (p *preamble) Read(b []byte) (int, error) {
	if p.open {
		return p.r.Read(b)
	}
	if p.left <= 0 {
		p.exceeded = true
		return 0, errPostPreData
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	n, err := p.r.Read(b)
	p.left -= int64(n)
	return n, err
}

// readForm reads a form's fields (names lower-cased; the first of a name
// counts) up to its file part, which it returns unread with the file's
// name. Fields after the file are never read: AWS ignores them.
func readForm(r *http.Request) (map[string]string, *multipart.Part, string, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, nil, "", errPostMalformed
	}
	pre := &preamble{r: r.Body, left: maxPostPreamble}
	mr := multipart.NewReader(pre, params["boundary"])
	fields := map[string]string{}
	size := 0
	for {
		part, err := mr.NextPart()
		switch {
		case err == io.EOF:
			return nil, nil, "", errPostNoFile
		case pre.exceeded:
			return nil, nil, "", errPostPreData
		case err != nil:
			return nil, nil, "", postReadError(err)
		}
		name := strings.ToLower(part.FormName())
		if name == "file" {
			pre.open = true
			return fields, part, part.FileName(), nil
		}
		v, err := io.ReadAll(io.LimitReader(part, int64(maxPostFields-size)+1))
		switch {
		case pre.exceeded:
			return nil, nil, "", errPostPreData
		case err != nil:
			return nil, nil, "", postReadError(err)
		}
		if size += len(name) + len(v); size > maxPostFields {
			return nil, nil, "", errPostPreData
		}
		if _, dup := fields[name]; !dup && name != "" {
			fields[name] = string(v)
		}
	}
}

// postReadError tells a client that stopped sending (or hung up) from a
// body that is not multipart.
func postReadError(err error) error {
	var be *bodyError
	if errors.As(err, &be) || errors.Is(err, io.ErrUnexpectedEOF) {
		return bodyReadError(err)
	}
	return errPostMalformed
}

// sizedFile streams the file part, holding it to the policy's
// content-length-range as it goes: past the maximum it fails at once,
// so the object is never stored, and at its end below the minimum.
type sizedFile struct {
	r        io.Reader
	n        int64
	min, max int64 // max < 0: no bound but the object's
	err      error
}

func (f *sizedFile) Read(b []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.r.Read(b)
	f.n += int64(n)
	switch {
	case f.max >= 0 && f.n > f.max:
		f.err = errPostTooLarge
		return 0, f.err
	case err == io.EOF && f.n < f.min:
		f.err = errPostTooSmall
		return n, f.err
	case err != nil && err != io.EOF:
		err = postReadError(err)
	}
	return n, err
}

// postObject stores the file of a browser form upload (S3's POST
// Object). Who uploads is in the form, not in headers: a SigV4 or SigV2
// signature of the policy field, whose conditions the form must then
// meet, or nobody (an anonymous upload, which the bucket's policy or ACL
// must allow). The service authorizes s3:PutObject on bucket/key for
// the signer as for any write, before the file is read; the file
// streams into the object, never held whole.
func postObject(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	c.body = &countingReader{r: r.Body}
	r.Body = c.body
	fields, file, filename, err := readForm(r)
	if err != nil {
		return err
	}
	key, ok := fields["key"]
	if !ok {
		return &apiError{400, "InvalidArgument", "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields."}
	}
	key = strings.ReplaceAll(key, "${filename}", filename)
	c.Key = key

	var id *iam.Identity
	token := fields["x-amz-security-token"]
	ak, err := sigv4.VerifyPost(r.Context(), sigv4.PostForm(fields), s.lookup)
	switch {
	case errors.Is(err, sigv4.ErrNoAuth):
	case err != nil:
		return err
	default:
		if _, id, err = s.keys.LookupToken(r.Context(), ak, token); err != nil {
			return tokenError(err)
		}
	}
	file2 := &sizedFile{r: file, max: -1}
	if p, ok := fields["policy"]; ok {
		pol, err := postpolicy.Parse(p)
		if err != nil {
			return policyError(err)
		}
		if err := pol.Check(fields, c.Bucket, time.Now()); err != nil {
			return policyError(err)
		}
		if pol.HasRange {
			file2.min, file2.max = pol.MinSize, pol.MaxSize
		}
	}
	// Its fields read, the request is its signer's (or anonymous): it
	// takes a slot of that budget before anything is stored.
	if err := s.takeSlot(r.Context(), c, id); err != nil {
		return err
	}
	c.id = id
	s.corsHeaders(w, r, c, false)
	if s.sosapiRefusesKey(c.Key) {
		return errSOSAPIReserved
	}
	in, err := postInput(r, c, fields)
	if err != nil {
		return err
	}
	// A form's encryption fields are PutObject's headers.
	fr := formSSERequest(r, fields)
	enc, err := s.writeSSE(fr)
	if err != nil {
		return err
	}
	in.Encrypt = enc.request()
	r = r.WithContext(withSSEConditions(fr).Context())
	in.Payload.Body, in.Payload.Size, err = readAhead(file2, objects.InlineMax)
	if err != nil {
		return err
	}
	in.Event = objects.EventPost
	obj, err := s.svc.PutObject(r.Context(), id, in)
	if file2.err != nil {
		return file2.err // what the service made of the cut, the range's answer
	}
	if err != nil {
		return err
	}
	// What follows the file (its closing boundary, fields AWS ignores)
	// is read, within bounds, so that the connection can carry the
	// browser's next request.
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxPostPreamble))
	return postResponse(s, w, r, c, fields, obj.ETag)
}

// policyError maps a policy check's failure to its S3 answer.
func policyError(err error) error {
	var pe *postpolicy.Error
	if errors.As(err, &pe) {
		return &apiError{pe.Status, pe.Code, pe.Message}
	}
	return err
}

// readAhead reads up to n bytes of a file whose size nobody declared: a
// small file then has a known size (and is kept inline, as a PUT of it
// would be); a larger one streams on from where the read stopped.
func readAhead(f io.Reader, n int) (io.Reader, int64, error) {
	buf := make([]byte, n+1)
	got, err := io.ReadFull(f, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return bytes.NewReader(buf[:got]), int64(got), nil
	case err != nil:
		return nil, 0, err
	}
	return io.MultiReader(bytes.NewReader(buf), f), -1, nil
}

// postInput is the PutObject a form stands for: its fields other than
// the form's own, taken as the headers of a PutObject (and held to the
// honoured table as those headers would be), and acl as x-amz-acl.
func postInput(r *http.Request, c *call, fields map[string]string) (objects.PutInput, error) {
	h := http.Header{}
	for k, v := range fields {
		if !formOnly[k] && !strings.HasPrefix(k, "x-ignore-") {
			h[textproto.CanonicalMIMEHeaderKey(k)] = []string{v}
		}
	}
	if v := fields["acl"]; v != "" {
		h.Set("x-amz-acl", v)
	}
	hr := &http.Request{Method: http.MethodPut, Header: h, URL: &url.URL{}}
	if err := honour(hr, &call{Route: Route{Op: OpPutObject, Bucket: c.Bucket, Key: c.Key}, id: c.id}); err != nil {
		return objects.PutInput{}, err
	}
	algos, declared, err := checksumRequest(h)
	if err != nil {
		return objects.PutInput{}, err
	}
	sc, err := storageClass(h)
	if err != nil {
		return objects.PutInput{}, err
	}
	acl, err := aclHeaders(hr)
	if err != nil {
		return objects.PutInput{}, err
	}
	meta := metaFromHeaders(h)
	if meta.ContentType == "" {
		meta.ContentType = "binary/octet-stream"
	}
	if meta.Tags, err = formTags(fields); err != nil {
		return objects.PutInput{}, err
	}
	lock, err := lockRequest(h)
	if err != nil {
		return objects.PutInput{}, err
	}
	if lock != nil && !hasIntegrity(hr) {
		return objects.PutInput{}, errIntegrityRequired
	}
	return objects.PutInput{Bucket: c.Bucket, Key: c.Key, Meta: meta, StorageClass: sc, ACL: acl, Lock: lock,
		Payload: objects.Payload{ContentMD5: h.Get("Content-MD5"), Algorithms: algos,
			Expected: func() map[string]string { return declared }}}, nil
}

// formTags reads the tagging field: a <Tagging> document, as AWS's form
// takes it, not the header's query string.
func formTags(fields map[string]string) (map[string]string, error) {
	v, ok := fields["tagging"]
	if !ok {
		return nil, nil
	}
	var doc taggingIn
	if err := xml.Unmarshal([]byte(v), &doc); err != nil {
		return nil, errMalformedXML
	}
	tags, err := doc.tags()
	if err != nil {
		return nil, err
	}
	return objects.ValidTags(tags, objects.MaxObjectTags)
}

// postResult is the document of success_action_status 201.
type postResult struct {
	XMLName  xml.Name `xml:"PostResponse"`
	Location string
	Bucket   string
	Key      string
	ETag     string
}

// postResponse answers a stored upload as AWS: a 303 to
// success_action_redirect (or the older redirect) with bucket, key and
// etag in its query, when that is an absolute URL; else the status of
// success_action_status, 200 or 204 empty, 201 with a PostResponse
// document; 204 by default.
func postResponse(s *Server, w http.ResponseWriter, r *http.Request, c *call, fields map[string]string, etag string) error {
	h := w.Header()
	h.Set("ETag", etag)
	loc := objectURL(s, r, c)
	h.Set("Location", loc)
	redirect, ok := fields["success_action_redirect"]
	if !ok {
		redirect = fields["redirect"]
	}
	if u, err := url.Parse(redirect); redirect != "" && err == nil && u.IsAbs() && u.Host != "" {
		q := u.Query()
		q.Set("bucket", c.Bucket)
		q.Set("key", c.Key)
		q.Set("etag", etag)
		u.RawQuery = q.Encode()
		h.Set("Location", u.String())
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	switch fields["success_action_status"] {
	case "200":
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
	case "201":
		writeXML(w, http.StatusCreated, postResult{Location: loc, Bucket: c.Bucket, Key: c.Key, ETag: etag})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
	return nil
}

// objectURL is where the stored object is, as the client reached this
// endpoint: its scheme and host, path style.
func objectURL(s *Server, r *http.Request, c *call) string {
	scheme := "http"
	if s.secure(r) {
		scheme = "https"
	}
	path := c.Root + "/" + c.Bucket + "/" + c.Key
	if c.VirtualHost {
		path = c.Root + "/" + c.Key
	}
	return scheme + "://" + r.Host + (&url.URL{Path: path}).EscapedPath()
}
