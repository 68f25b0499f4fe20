package s3_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// field is one form field, in the order it is sent.
type field struct{ name, value string }

// postForm sends a multipart form upload to url: fields, then the file
// (streamed from file), then after it fields AWS ignores.
func postForm(t *testing.T, srv *nodetest.Server, u string, fields []field, filename string, file io.Reader, after ...field) (*http.Response, []byte) {
	t.Helper()
	return postFormHost(t, srv, u, "", fields, filename, file, after...)
}

// postFormHost is postForm with the Host header given (virtual-hosted
// style), the connection still to srv.
func postFormHost(t *testing.T, srv *nodetest.Server, u, host string, fields []field, filename string, file io.Reader, after ...field) (*http.Response, []byte) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, f := range fields {
			if err := mw.WriteField(f.name, f.value); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		if file != nil {
			fw, err := mw.CreateFormFile("file", filename)
			if err == nil {
				_, err = io.Copy(fw, file)
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		for _, f := range after {
			mw.WriteField(f.name, f.value)
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest("POST", u, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if host != "" {
		req.Host = host
	}
	cl := *srv.Client()
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	pr.CloseWithError(io.EOF)
	return resp, body
}

func errCode(body []byte) (code, msg string) {
	var e struct{ Code, Message string }
	_ = xml.Unmarshal(body, &e)
	return e.Code, e.Message
}

// policyDoc encodes a policy document expiring in d.
func policyDoc(d time.Duration, conditions ...any) string {
	doc, _ := json.Marshal(map[string]any{"expiration": time.Now().Add(d).UTC().Format("2006-01-02T15:04:05.000Z"), "conditions": conditions})
	return base64.StdEncoding.EncodeToString(doc)
}

// v4Fields signs a policy as a SigV4 form does (independently of the
// server's code): the policy's base64 text, HMAC'd with the derived key.
// The policy must name the x-amz-* fields it returns.
func v4Fields(ak, sk string, at time.Time, policy string) []field {
	date := at.UTC().Format("20060102")
	mac := func(k []byte, s string) []byte { h := hmac.New(sha256.New, k); h.Write([]byte(s)); return h.Sum(nil) }
	key := mac(mac(mac(mac([]byte("AWS4"+sk), date), "us-east-1"), "s3"), "aws4_request")
	return []field{
		{"x-amz-algorithm", "AWS4-HMAC-SHA256"},
		{"x-amz-credential", ak + "/" + date + "/us-east-1/s3/aws4_request"},
		{"x-amz-date", at.UTC().Format("20060102T150405Z")},
		{"policy", policy},
		{"x-amz-signature", hex.EncodeToString(mac(key, policy))},
	}
}

// v4Conditions are the conditions a SigV4 form's own fields need.
func v4Conditions(ak string, at time.Time) []any {
	date := at.UTC().Format("20060102")
	return []any{
		map[string]string{"x-amz-algorithm": "AWS4-HMAC-SHA256"},
		map[string]string{"x-amz-credential": ak + "/" + date + "/us-east-1/s3/aws4_request"},
		map[string]string{"x-amz-date": at.UTC().Format("20060102T150405Z")},
	}
}

// signedV4 is a SigV4 form of root's with conditions, expiring in an hour.
func signedV4(conditions ...any) []field {
	now := time.Now()
	p := policyDoc(time.Hour, append(v4Conditions(nodetest.AccessKey, now), conditions...)...)
	return v4Fields(nodetest.AccessKey, nodetest.SecretKey, now, p)
}

// A form signed by aws-sdk-go-v2's PresignPostObject uploads the file:
// 204 by default with the ETag and Location, the object as sent, its
// Content-Type from the form.
func TestPostObjectSigV4BySDK(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	pc := s3.NewPresignClient(c)
	pp, err := pc.PresignPostObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("uploads/${filename}")}, func(o *s3.PresignPostOptions) {
		o.Conditions = []any{
			[]any{"starts-with", "$key", "uploads/"},
			[]any{"starts-with", "$Content-Type", "text/"},
			[]any{"content-length-range", 1, 1 << 20},
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var fields []field
	for k, v := range pp.Values {
		fields = append(fields, field{k, v})
	}
	fields = append(fields, field{"Content-Type", "text/plain"})
	data := []byte("hello from a browser")
	resp, body := postForm(t, srv, pp.URL, fields, "hello.txt", bytes.NewReader(data))
	if resp.StatusCode != 204 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("ETag") != md5hex(data) || !strings.HasSuffix(resp.Header.Get("Location"), "/"+bucket+"/uploads/hello.txt") {
		t.Fatalf("headers: %v", resp.Header)
	}
	if got := get(t, c, bucket, "uploads/hello.txt"); !bytes.Equal(got, data) {
		t.Fatalf("stored %q", got)
	}
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("uploads/hello.txt")})
	if err != nil || aws.ToString(h.ContentType) != "text/plain" {
		t.Fatalf("head: %v %v", h, err)
	}
	// The same form with a Content-Type the policy does not allow.
	fields[len(fields)-1] = field{"Content-Type", "image/png"}
	resp, body = postForm(t, srv, pp.URL, fields, "x.png", bytes.NewReader(data))
	if code, msg := errCode(body); resp.StatusCode != 403 || code != "AccessDenied" || !strings.Contains(msg, `Policy Condition failed: ["starts-with", "$Content-Type", "text/"]`) {
		t.Fatalf("content type: %d %s", resp.StatusCode, body)
	}
}

// Each condition type passes and fails as AWS words it, and a refused
// form stores nothing.
func TestPostObjectConditions(t *testing.T) {
	c, bucket, srv := setup(t)
	u := srv.URL + "/" + bucket
	file := func() io.Reader { return strings.NewReader("content") }
	for _, tc := range []struct {
		name   string
		conds  []any
		fields []field
		status int
		code   string
		msg    string
	}{
		{"eq passes", []any{[]any{"eq", "$key", "a/eq"}}, []field{{"key", "a/eq"}}, 204, "", ""},
		{"eq fails", []any{[]any{"eq", "$key", "a/eq"}}, []field{{"key", "a/other"}}, 403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["eq", "$key", "a/eq"]`},
		{"starts-with passes", []any{[]any{"starts-with", "$key", "a/"}}, []field{{"key", "a/sw"}}, 204, "", ""},
		{"starts-with fails", []any{[]any{"starts-with", "$key", "a/"}}, []field{{"key", "b/sw"}}, 403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "a/"]`},
		{"starts-with empty allows any", []any{[]any{"starts-with", "$key", ""}, []any{"starts-with", "$x-amz-meta-note", ""}}, []field{{"key", "any/key"}, {"x-amz-meta-note", "anything"}}, 204, "", ""},
		{"exact object form passes", []any{map[string]string{"bucket": bucket}, map[string]string{"key": "a/exact"}}, []field{{"key", "a/exact"}}, 204, "", ""},
		{"exact bucket fails", []any{map[string]string{"bucket": "another"}, map[string]string{"key": "a/exact2"}}, []field{{"key", "a/exact2"}}, 403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "another"]`},
		{"extra field", []any{map[string]string{"key": "a/extra"}}, []field{{"key", "a/extra"}, {"x-amz-meta-color", "red"}, {"Cache-Control", "no-cache"}}, 403, "AccessDenied", "Invalid according to Policy: Extra input fields: cache-control, x-amz-meta-color"},
		{"x-ignore- needs no condition", []any{map[string]string{"key": "a/ignored"}}, []field{{"key", "a/ignored"}, {"x-ignore-tracking", "1"}}, 204, "", ""},
		{"field named by condition but absent", []any{map[string]string{"key": "a/absent"}, map[string]string{"acl": "private"}}, []field{{"key", "a/absent"}}, 403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["eq", "$acl", "private"]`},
		{"unknown condition", []any{[]any{"matches", "$key", ".*"}}, []field{{"key", "a/x"}}, 400, "InvalidPolicyDocument", "Invalid Policy: Unknown condition type: matches"},
	} {
		fields := append(signedV4(tc.conds...), tc.fields...)
		resp, body := postForm(t, srv, u, fields, "f.txt", file())
		code, msg := errCode(body)
		if resp.StatusCode != tc.status || code != tc.code || msg != tc.msg {
			t.Errorf("%s: %d %s %q, want %d %s %q", tc.name, resp.StatusCode, code, msg, tc.status, tc.code, tc.msg)
		}
	}
	// Expired, whatever else it says.
	now := time.Now()
	p := policyDoc(-time.Minute, append(v4Conditions(nodetest.AccessKey, now), map[string]string{"key": "a/late"})...)
	resp, body := postForm(t, srv, u, append(v4Fields(nodetest.AccessKey, nodetest.SecretKey, now, p), field{"key", "a/late"}), "f", file())
	if code, msg := errCode(body); resp.StatusCode != 403 || code != "AccessDenied" || msg != "Invalid according to Policy: Policy expired." {
		t.Errorf("expired: %d %s", resp.StatusCode, body)
	}
	// A policy changed after signing, and a wrong secret.
	fields := append(signedV4(map[string]string{"key": "a/tampered"}), field{"key", "a/tampered"})
	fields[3].value = policyDoc(time.Hour, map[string]string{"key": "a/tampered"})
	resp, body = postForm(t, srv, u, fields, "f", file())
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "SignatureDoesNotMatch" {
		t.Errorf("tampered: %d %s", resp.StatusCode, body)
	}
	p = policyDoc(time.Hour, append(v4Conditions(nodetest.AccessKey, now), map[string]string{"key": "a/wrong"})...)
	resp, body = postForm(t, srv, u, append(v4Fields(nodetest.AccessKey, "not-the-secret", now, p), field{"key", "a/wrong"}), "f", file())
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "SignatureDoesNotMatch" {
		t.Errorf("wrong secret: %d %s", resp.StatusCode, body)
	}
	p = policyDoc(time.Hour, append(v4Conditions("AKIDUNKNOWN", now), map[string]string{"key": "a/who"})...)
	resp, body = postForm(t, srv, u, append(v4Fields("AKIDUNKNOWN", "x", now, p), field{"key", "a/who"}), "f", file())
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "InvalidAccessKeyId" {
		t.Errorf("unknown key: %d %s", resp.StatusCode, body)
	}
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	if got := strings.Join(keys, " "); got != "a/eq a/exact a/ignored a/sw any/key" {
		t.Fatalf("stored: %s", got)
	}
}

// content-length-range is held while the file streams: one byte over
// is 400 EntityTooLarge, one under 400 EntityTooSmall, and neither is
// stored; the bounds themselves pass.
func TestPostObjectSizeRange(t *testing.T) {
	c, bucket, srv := setup(t)
	u := srv.URL + "/" + bucket
	for _, tc := range []struct {
		min, max, size int
		status         int
		code           string
	}{
		{10, 100, 10, 204, ""},
		{10, 100, 100, 204, ""},
		{10, 100, 101, 400, "EntityTooLarge"},
		{10, 100, 9, 400, "EntityTooSmall"},
		{0, 0, 0, 204, ""},
		{0, 0, 1, 400, "EntityTooLarge"},
		// Past the part the handler reads ahead (32 KiB): the cut comes
		// from inside the object service's write.
		{1, 100 << 10, 100<<10 + 1, 400, "EntityTooLarge"},
		{200 << 10, 300 << 10, 100 << 10, 400, "EntityTooSmall"},
		{1, 100 << 10, 100 << 10, 204, ""},
	} {
		key := fmt.Sprintf("r/%d-%d-%d", tc.min, tc.max, tc.size)
		fields := append(signedV4(map[string]string{"key": key}, []any{"content-length-range", tc.min, tc.max}), field{"key", key})
		data := randBytes(tc.size, uint64(tc.size))
		resp, body := postForm(t, srv, u, fields, "f", bytes.NewReader(data))
		code, _ := errCode(body)
		if resp.StatusCode != tc.status || code != tc.code {
			t.Errorf("%+v: %d %s", tc, resp.StatusCode, body)
			continue
		}
		_, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
		if stored := err == nil; stored != (tc.status == 204) {
			t.Errorf("%+v: stored %v (%v)", tc, stored, err)
		}
		if tc.status == 204 && !bytes.Equal(get(t, c, bucket, key), data) {
			t.Errorf("%+v: content differs", tc)
		}
	}
}

// A SigV2 form (AWSAccessKeyId, signature = base64 HMAC-SHA1 of the
// policy) uploads too; success_action_status 201 answers AWS's
// PostResponse document.
func TestPostObjectSigV2(t *testing.T) {
	c, bucket, srv := setup(t)
	p := policyDoc(time.Hour, map[string]string{"bucket": bucket}, []any{"starts-with", "$key", "v2/"},
		map[string]string{"success_action_status": "201"}, map[string]string{"acl": "private"}, []any{"starts-with", "$x-amz-meta-owner", ""})
	mac := hmac.New(sha1.New, []byte(nodetest.SecretKey))
	mac.Write([]byte(p))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	fields := []field{{"AWSAccessKeyId", nodetest.AccessKey}, {"key", "v2/${filename}"}, {"Policy", p}, {"Signature", sig},
		{"success_action_status", "201"}, {"acl", "private"}, {"x-amz-meta-owner", "alice"}}
	data := []byte("signed the old way")
	resp, body := postForm(t, srv, srv.URL+"/"+bucket, fields, "old.txt", bytes.NewReader(data))
	if resp.StatusCode != 201 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	var pr struct {
		XMLName                     xml.Name `xml:"PostResponse"`
		Location, Bucket, Key, ETag string
	}
	if err := xml.Unmarshal(body, &pr); err != nil || pr.Bucket != bucket || pr.Key != "v2/old.txt" || pr.ETag != md5hex(data) ||
		pr.Location != srv.URL+"/"+bucket+"/v2/old.txt" || resp.Header.Get("Location") != pr.Location {
		t.Fatalf("PostResponse: %+v %v (%s)", pr, err, body)
	}
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("v2/old.txt")})
	if err != nil || h.Metadata["owner"] != "alice" || aws.ToString(h.ContentType) != "binary/octet-stream" {
		t.Fatalf("head: %+v %v", h, err)
	}
	// A wrong signature.
	fields[3].value = base64.StdEncoding.EncodeToString(make([]byte, 20))
	resp, body = postForm(t, srv, srv.URL+"/"+bucket, fields, "old.txt", bytes.NewReader(data))
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "SignatureDoesNotMatch" {
		t.Fatalf("bad signature: %d %s", resp.StatusCode, body)
	}
	// A policy without a signature is refused as AWS words it.
	resp, body = postForm(t, srv, srv.URL+"/"+bucket, []field{{"key", "v2/x"}, {"policy", p}}, "x", strings.NewReader("x"))
	if code, msg := errCode(body); resp.StatusCode != 400 || code != "InvalidArgument" || !strings.Contains(msg, "AWSAccessKeyId") {
		t.Fatalf("unsigned policy: %d %s", resp.StatusCode, body)
	}
}

// success_action_redirect answers 303 to it with bucket, key and etag;
// success_action_status 200 and 204 answer empty; another value, 204.
func TestPostObjectRedirectAndStatus(t *testing.T) {
	_, bucket, srv := setup(t)
	u := srv.URL + "/" + bucket
	data := []byte("x")
	redirect := "https://app.example/done?from=upload"
	fields := append(signedV4(map[string]string{"key": "s/redirect"}, map[string]string{"success_action_redirect": redirect}),
		field{"key", "s/redirect"}, field{"success_action_redirect", redirect})
	resp, body := postForm(t, srv, u, fields, "f", bytes.NewReader(data))
	if resp.StatusCode != 303 {
		t.Fatalf("redirect: %d %s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Host != "app.example" || loc.Path != "/done" || loc.Query().Get("from") != "upload" ||
		loc.Query().Get("bucket") != bucket || loc.Query().Get("key") != "s/redirect" || loc.Query().Get("etag") != md5hex(data) {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	for status, want := range map[string]int{"200": 200, "201": 201, "204": 204, "302": 204, "": 204} {
		key := "s/status-" + status
		conds := []any{map[string]string{"key": key}}
		fields := []field{{"key", key}}
		if status != "" {
			conds = append(conds, map[string]string{"success_action_status": status})
			fields = append(fields, field{"success_action_status", status})
		}
		resp, body := postForm(t, srv, u, append(signedV4(conds...), fields...), "f", bytes.NewReader(data))
		if resp.StatusCode != want || want != 201 && len(body) != 0 || resp.Header.Get("ETag") != md5hex(data) {
			t.Errorf("status %q: %d %s", status, resp.StatusCode, body)
		}
	}
}

// A form with no signature is anonymous: refused unless the bucket's
// policy lets anyone write that key, decided per object as any write.
func TestPostObjectAnonymous(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	u := srv.URL + "/" + bucket
	resp, body := postForm(t, srv, u, []field{{"key", "drop/a"}}, "f", strings.NewReader("x"))
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "AccessDenied" {
		t.Fatalf("anonymous, no policy: %d %s", resp.StatusCode, body)
	}
	if _, err := c.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, c, bucket, `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::`+bucket+`/drop/*"}]}`); err != nil {
		t.Fatal(err)
	}
	if resp, body := postForm(t, srv, u, []field{{"key", "drop/a"}}, "f", strings.NewReader("x")); resp.StatusCode != 204 {
		t.Fatalf("anonymous, allowed: %d %s", resp.StatusCode, body)
	}
	resp, body = postForm(t, srv, u, []field{{"key", "private/a"}}, "f", strings.NewReader("x"))
	if code, _ := errCode(body); resp.StatusCode != 403 || code != "AccessDenied" {
		t.Fatalf("anonymous, other key: %d %s", resp.StatusCode, body)
	}
	if got := get(t, c, bucket, "drop/a"); string(got) != "x" {
		t.Fatalf("stored %q", got)
	}
}

// Malformed forms get AWS's 400s, never a 500, and store nothing.
func TestPostObjectBadForms(t *testing.T) {
	c, bucket, srv := setup(t)
	u := srv.URL + "/" + bucket
	big := strings.Repeat("v", 21<<10)
	for _, tc := range []struct {
		name   string
		fields []field
		file   io.Reader
		status int
		code   string
	}{
		{"no file", []field{{"key", "b/x"}}, nil, 400, "InvalidArgument"},
		{"no key", nil, strings.NewReader("x"), 400, "InvalidArgument"},
		{"fields over 20 KB", []field{{"key", "b/x"}, {"x-ignore-pad", big}}, strings.NewReader("x"), 400, "MaxPostPreDataLengthExceededError"},
		{"many fields over 20 KB", func() []field {
			f := []field{{"key", "b/x"}}
			for i := 0; i < 30; i++ {
				f = append(f, field{fmt.Sprintf("x-ignore-%d", i), strings.Repeat("v", 1000)})
			}
			return f
		}(), strings.NewReader("x"), 400, "MaxPostPreDataLengthExceededError"},
		{"dual-layer encryption refused as on PUT", []field{{"key", "b/x"}, {"x-amz-server-side-encryption", "aws:kms:dsse"}}, strings.NewReader("x"), 501, "NotImplemented"},
		{"bad encryption refused as on PUT", []field{{"key", "b/x"}, {"x-amz-server-side-encryption", "AES128"}}, strings.NewReader("x"), 400, "InvalidArgument"},
		{"object lock without a digest", []field{{"key", "b/x"}, {"x-amz-object-lock-legal-hold", "ON"}}, strings.NewReader("x"), 400, "InvalidRequest"},
		{"tagging not a document", []field{{"key", "b/x"}, {"tagging", "k=v"}}, strings.NewReader("x"), 400, "MalformedXML"},
		{"tagging over S3's limits", []field{{"key", "b/x"}, {"tagging", "<Tagging><TagSet><Tag><Key>aws:k</Key><Value>v</Value></Tag></TagSet></Tagging>"}}, strings.NewReader("x"), 400, "InvalidTag"},
		{"bad storage class", []field{{"key", "b/x"}, {"x-amz-storage-class", "FAST"}}, strings.NewReader("x"), 400, "InvalidStorageClass"},
	} {
		// Root signs, with a policy covering whatever the form says.
		conds := []any{}
		for _, f := range tc.fields {
			conds = append(conds, []any{"starts-with", "$" + f.name, ""})
		}
		resp, body := postForm(t, srv, u, append(signedV4(conds...), tc.fields...), "f", tc.file)
		if code, _ := errCode(body); resp.StatusCode != tc.status || code != tc.code {
			t.Errorf("%s: %d %s", tc.name, resp.StatusCode, body)
		}
	}
	// Not multipart at all, though it says so.
	req, _ := http.NewRequest("POST", u, strings.NewReader("key=x"))
	req.Header.Set("Content-Type", "multipart/form-data")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if code, _ := errCode(body); resp.StatusCode != 400 || code != "MalformedPOSTRequest" {
		t.Errorf("no boundary: %d %s", resp.StatusCode, body)
	}
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &bucket})
	if err != nil || len(out.Contents) != 0 {
		t.Fatalf("stored: %v %v", out.Contents, err)
	}
}

// A 50 MiB file streams into the object: the node's heap grows by far
// less than the file while it is uploaded (invariant 4), and the object
// is whole. Fields after the file are ignored, as AWS.
func TestPostObjectStreamsLargeFile(t *testing.T) {
	c, bucket, srv := setup(t)
	const size = 50 << 20
	gen := func() io.Reader { return io.LimitReader(&pattern{}, size) }
	want := md5.New()
	io.Copy(want, gen())
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	fields := append(signedV4(map[string]string{"key": "big"}, []any{"content-length-range", 0, size}), field{"key", "big"})
	resp, body := postForm(t, srv, srv.URL+"/"+bucket, fields, "big.bin", gen(), field{"x-amz-meta-after", "ignored"})
	close(stop)
	<-done
	if resp.StatusCode != 204 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	if etag := `"` + hex.EncodeToString(want.Sum(nil)) + `"`; resp.Header.Get("ETag") != etag {
		t.Fatalf("ETag %s, want %s", resp.Header.Get("ETag"), etag)
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("heap in use grew by %d KiB at most while 50 MiB streamed", grew>>10)
	if grew > 16<<20 {
		t.Fatalf("heap grew by %d MiB for a 50 MiB upload", grew>>20)
	}
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("big")})
	if err != nil || aws.ToInt64(h.ContentLength) != size || len(h.Metadata) != 0 {
		t.Fatalf("head: %+v %v", h, err)
	}
}

// pattern is an endless, cheap, not constant stream.
type pattern struct{ n uint32 }

func (p *pattern) Read(b []byte) (int, error) {
	for i := range b {
		p.n = p.n*1664525 + 1013904223
		b[i] = byte(p.n >> 24)
	}
	return len(b), nil
}

// While anonymous requests hold every anonymous slot, a preflight and an
// anonymous form upload are told to slow down (a preflight is an
// anonymous request), but a signed form upload is served: it reads its
// fields, as others' headers are read, before it takes a slot, and
// takes its signer's.
func TestPostObjectSlots(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{Config: func(c *node.Config) { c.MaxRequests = 20 }}, "slots") // anonymous: 2
	ctx := context.Background()
	if _, err := c.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: aws.String("slots")}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, c, "slots", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::slots/drop/*"}]}`); err != nil {
		t.Fatal(err)
	}
	if err := putCors(c, "slots", types.CORSRule{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"POST"}}); err != nil {
		t.Fatal(err)
	}
	// Two anonymous PUTs whose bodies stop after a byte hold both slots.
	for i := range 2 {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.CloseWithError(io.ErrClosedPipe) })
		req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/slots/drop/stall-%d", srv.URL, i), pr)
		req.ContentLength = 1 << 20
		cl := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		go func() {
			if resp, err := cl.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		go pw.Write([]byte{'x'})
	}
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := srv.Node.S3.Load(); n != 2; n, _ = srv.Node.S3.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, body := options(t, srv, "/slots/drop/k", map[string]string{"Origin": "https://a.example", "Access-Control-Request-Method": "POST"})
	if code, _ := errCode([]byte(body)); resp.StatusCode != 503 || code != "SlowDown" {
		t.Errorf("preflight: %d %s", resp.StatusCode, body)
	}
	r, b := postForm(t, srv, srv.URL+"/slots", []field{{"key", "drop/anon"}}, "f", strings.NewReader("x"))
	if code, _ := errCode(b); r.StatusCode != 503 || code != "SlowDown" {
		t.Errorf("anonymous form: %d %s", r.StatusCode, b)
	}
	fields := append(signedV4(map[string]string{"key": "drop/signed"}), field{"key", "drop/signed"})
	if r, b := postForm(t, srv, srv.URL+"/slots", fields, "f", strings.NewReader("x")); r.StatusCode != 204 {
		t.Errorf("signed form: %d %s", r.StatusCode, b)
	}
}

// x-amz-checksum-* fields are verified as the PutObject headers they
// stand for: a right one is stored and returned, a wrong one is 400
// BadDigest and nothing is stored.
func TestPostObjectChecksumFields(t *testing.T) {
	c, bucket, srv := setup(t)
	data := []byte("checksummed form upload")
	sum := sha256.Sum256(data)
	good := base64.StdEncoding.EncodeToString(sum[:])
	for _, tc := range []struct {
		key, value string
		status     int
	}{{"ck/good", good, 204}, {"ck/bad", base64.StdEncoding.EncodeToString(make([]byte, 32)), 400}} {
		fields := append(signedV4(map[string]string{"key": tc.key}, []any{"starts-with", "$x-amz-checksum-sha256", ""}),
			field{"key", tc.key}, field{"x-amz-checksum-sha256", tc.value})
		resp, body := postForm(t, srv, srv.URL+"/"+bucket, fields, "f", bytes.NewReader(data))
		if code, _ := errCode(body); resp.StatusCode != tc.status || tc.status == 400 && code != "BadDigest" {
			t.Fatalf("%s: %d %s", tc.key, resp.StatusCode, body)
		}
	}
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("ck/good"), ChecksumMode: "ENABLED"})
	if err != nil || aws.ToString(h.ChecksumSHA256) != good {
		t.Fatalf("head: %v %v", h, err)
	}
	if _, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("ck/bad")}); err == nil {
		t.Fatal("a form with a wrong checksum stored its file")
	}
}

// Forms are accepted wherever the endpoint answers: under /api/v1/s3 and
// virtual-hosted, and the Location they answer names the object there.
func TestPostObjectAddressing(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true, Domains: []string{"example.com"}})
	c := client(t, srv, srv.URL, false)
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("forms")}); err != nil {
		t.Fatal(err)
	}
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	for _, tc := range []struct{ url, host, key, loc string }{
		{srv.URL + "/api/v1/s3/forms", "", "a/root", srv.URL + "/api/v1/s3/forms/a/root"},
		{srv.URL + "/", "forms.example.com" + port, "a/virtual host", "https://forms.example.com" + port + "/a/virtual%20host"},
	} {
		fields := append(signedV4(map[string]string{"key": tc.key}, map[string]string{"success_action_status": "201"}),
			field{"key", tc.key}, field{"success_action_status", "201"})
		resp, body := postFormHost(t, srv, tc.url, tc.host, fields, "f", strings.NewReader("x"))
		if resp.StatusCode != 201 || resp.Header.Get("Location") != tc.loc {
			t.Errorf("%s %s: %d %q %s", tc.url, tc.host, resp.StatusCode, resp.Header.Get("Location"), body)
		}
		if got := get(t, c, "forms", tc.key); string(got) != "x" {
			t.Errorf("%s: stored %q", tc.key, got)
		}
	}
}

// TestPostObjectTagging: a form's tagging field is a <Tagging> document,
// as AWS's form takes it, and the object carries its tags.
func TestPostObjectTagging(t *testing.T) {
	c, bucket, srv := setup(t)
	doc := "<Tagging><TagSet><Tag><Key>team</Key><Value>blue</Value></Tag></TagSet></Tagging>"
	fields := append(signedV4(map[string]string{"key": "tagged"}, map[string]string{"tagging": doc}),
		field{"key", "tagged"}, field{"tagging", doc})
	resp, body := postForm(t, srv, srv.URL+"/"+bucket, fields, "f", strings.NewReader("x"))
	if resp.StatusCode != 204 {
		t.Fatalf("POST: %d %s", resp.StatusCode, body)
	}
	out, err := c.GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: &bucket, Key: aws.String("tagged")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.TagSet) != 1 || *out.TagSet[0].Key != "team" || *out.TagSet[0].Value != "blue" {
		t.Errorf("tags = %+v", out.TagSet)
	}
}
