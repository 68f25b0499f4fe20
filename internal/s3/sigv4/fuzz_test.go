package sigv4

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"
)

// The fuzz targets of the request-authentication layer. Each asserts a
// property, not only the absence of a panic. Seeds are realistic requests
// (testdata/fuzz/<target>/ holds them and what fuzzing found); run one
// with go test -run=^$ -fuzz=FuzzX -fuzztime=30s ./internal/s3/sigv4/.

// printable keeps what a client can put in a header value: HTTP forbids
// control characters but HTAB, and net/http drops leading and trailing
// blanks.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// token is a header name's or a method's alphabet.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// FuzzCanonicalRequest: whatever the method, path, query and x-amz-*
// header a client signs with the AWS SDK's own signer, Verify accepts the
// request as sent; a change to the signed header's value fails it with
// SignatureDoesNotMatch, and an x-amz-* header added unsigned with
// AccessDenied. The canonical request is built independently of the SDK,
// so any disagreement on escaping, sorting or value trimming shows here.
func FuzzCanonicalRequest(f *testing.F) {
	f.Add("PUT", "/bucket/photos/2024/puppy.jpg", "tagging", "", "x-id", "PutObject", "x-amz-meta-color", "  blue   and  green ")
	f.Add("GET", "/bucket", "list-type", "2", "prefix", "a b/ü", "x-amz-meta-x", "v")
	f.Add("POST", "/bucket/key with spaces/€", "uploadId", "2~abc", "partNumber", "7", "x-amz-acl", "private")
	f.Add("DELETE", "/b/a+b=c&d;e", "versionId", "3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY+MTRCxf3vjVBH40Nr8X8gdRQBpUMLUo", "", "", "x-amz-meta-tab", "a\tb")
	f.Add("HEAD", "/", "", "", "", "", "x-amz-request-payer", "requester")
	f.Add("PUT", "/b/k", "", "", "", "", "note", "tab\t  then spaces")
	f.Fuzz(func(t *testing.T, method, path, k1, v1, k2, v2, hname, hvalue string) {
		method = strings.ToUpper(method)
		if !token(method) || !token(hname) || !printable(hvalue) || len(path) > 1024 {
			return
		}
		hname = "x-amz-meta-" + strings.ToLower(hname)
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		q := url.Values{}
		if k1 != "" {
			q.Set(k1, v1)
		}
		if k2 != "" && k2 != k1 {
			q.Set(k2, v2)
		}
		if q.Has("X-Amz-Signature") || q.Has("X-Amz-Credential") || q.Has("X-Amz-Algorithm") || q.Has("AWSAccessKeyId") || q.Has("Signature") {
			return // a presigned or V2 query: another verifier
		}
		u := &url.URL{Scheme: "http", Host: "s3.example.com", Path: path, RawPath: EscapePath(path), RawQuery: q.Encode()}
		req, err := http.NewRequest(method, u.String(), nil)
		if err != nil {
			return
		}
		req.Header.Set(hname, hvalue)
		req.Header.Set("X-Amz-Content-Sha256", unsignedPayload)
		at := time.Now()
		if err := signer().SignHTTP(context.Background(), creds, req, unsignedPayload, "s3", "us-east-1", at); err != nil {
			t.Fatal(err)
		}
		sr := httptest.NewRequest(method, "http://s3.example.com/", nil)
		sr.URL, sr.Host, sr.Header = req.URL, "s3.example.com", req.Header.Clone()
		// The server sees the URL as parsed from the request line.
		if sr.URL, err = url.ParseRequestURI(req.URL.RequestURI()); err != nil {
			return
		}
		if _, err := Verify(context.Background(), sr, lookup, Options{}); err != nil {
			t.Fatalf("SDK-signed %s %s?%s with %s: %q refused: %v", method, sr.URL.EscapedPath(), sr.URL.RawQuery, hname, hvalue, err)
		}
		sr.Header.Set(hname, hvalue+"x")
		_, err = Verify(context.Background(), sr, lookup, Options{})
		wantCode(t, err, "SignatureDoesNotMatch")
		sr.Header.Set(hname, hvalue)
		sr.Header.Set("X-Amz-Copy-Source", "/other/key")
		_, err = Verify(context.Background(), sr, lookup, Options{})
		wantCode(t, err, "AccessDenied")
	})
}

// FuzzStringToSignV2: Signature V2's string to sign starts with the
// method, Content-MD5, Content-Type and date lines and ends with the
// resource; its x-amz-* lines are sorted, lower case, one per name, with
// trimmed values; it does not depend on how a name is spelt and does not
// change the request; a request signed over it verifies, and one with an
// x-amz-* header added does not.
func FuzzStringToSignV2(f *testing.F) {
	f.Add("PUT", "application/x-download", "X-Amz-Meta-ReviewedBy", " joe@example.com", "x-amz-meta-reviewedby", "jane@example.com ", "/static.example.com/db-backup.dat.gz", "")
	f.Add("GET", "", "X-Amz-Date", "Tue, 27 Mar 2007 21:20:26 +0000", "Content-Type", "text/plain", "/johnsmith/photos/puppy.jpg", "acl&versionId=3")
	f.Add("DELETE", "", "x-amz-acl", "public-read", "X-AMZ-ACL", "private", "/bucket/", "delete")
	f.Add("POST", "text/xml", "X-Amz-Security-Token", "AQoDYXdzEPT//////////wEXAMPLE", "x-amz-meta-a", "", "/b/k", "uploads&prefix=ignored")
	f.Fuzz(func(t *testing.T, method, ctype, n1, v1, n2, v2, resource, rawQuery string) {
		if !token(method) || !token(n1) || !token(n2) || !printable(ctype) || !printable(v1) || !printable(v2) {
			return
		}
		q, err := url.ParseQuery(rawQuery)
		if err != nil || q.Has("AWSAccessKeyId") || q.Has("Signature") || q.Has("X-Amz-Algorithm") || q.Has("X-Amz-Credential") || q.Has("X-Amz-Signature") {
			return
		}
		date := time.Now().UTC().Format(http.TimeFormat)
		build := func(lower bool) *http.Request {
			r := httptest.NewRequest("GET", "http://s3.example.com/", nil)
			r.Method, r.URL.RawQuery = method, rawQuery
			r.Header.Set("Date", date)
			if ctype != "" {
				r.Header.Set("Content-Type", ctype)
			}
			for _, h := range [][2]string{{n1, v1}, {n2, v2}} {
				name := h[0]
				if lower && strings.HasPrefix(strings.ToLower(name), "x-amz-") {
					name = strings.ToLower(name)
				}
				r.Header[name] = append(r.Header[name], h[1])
			}
			return r
		}
		r := build(false)
		before := r.Header.Clone()
		sts := stringToSignV2(r, date, resource)
		if !equalHeaders(before, r.Header) {
			t.Fatalf("string to sign rewrote the headers: %v, was %v", r.Header, before)
		}
		for i := 0; i < 4; i++ { // map order differs from run to run
			if again := stringToSignV2(build(false), date, resource); again != sts {
				t.Fatalf("string to sign not deterministic:\n%q\n%q", sts, again)
			}
		}
		// One name spelt two ways joins its values in key order, so
		// compare spellings only when the two names differ or agree.
		if n1 == n2 || !strings.EqualFold(n1, n2) {
			if other := stringToSignV2(build(true), date, resource); other != sts {
				t.Fatalf("string to sign depends on header spelling:\n%q\n%q", sts, other)
			}
		}
		head := method + "\n" + r.Header.Get("Content-Md5") + "\n" + r.Header.Get("Content-Type") + "\n" + date + "\n"
		if !strings.HasPrefix(sts, head) || !strings.HasSuffix(sts, resource+subResourcesV2(q)) {
			t.Fatalf("string to sign %q: not method, md5, type, date ... resource", sts)
		}
		amz := strings.TrimSuffix(strings.TrimPrefix(sts, head), resource+subResourcesV2(q))
		var names []string
		for _, line := range strings.SplitAfter(amz, "\n") {
			if line == "" {
				continue
			}
			name, value, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ":")
			if !ok || !strings.HasPrefix(name, "x-amz-") || name != strings.ToLower(name) {
				t.Fatalf("x-amz-* line %q in %q", line, sts)
			}
			for _, part := range strings.Split(value, ",") {
				if part != strings.TrimSpace(part) && !strings.Contains(v1+v2, ",") {
					t.Fatalf("untrimmed value %q in %q", value, sts)
				}
			}
			names = append(names, name)
		}
		if !sort.StringsAreSorted(names) || hasDuplicate(names) {
			t.Fatalf("x-amz-* names %v: not sorted or repeated", names)
		}

		// Signed over that string, the request verifies; with one more
		// x-amz-* header it does not.
		mac := hmac.New(sha1.New, []byte(testSecret))
		mac.Write([]byte(sts))
		r.Header.Set("Authorization", "AWS "+testAK+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		opt := Options{V2Resource: resource}
		if strings.Count(resource, "/") == 1 {
			return // a bucket's resource is tried also with a trailing slash
		}
		if r.Header.Get("X-Amz-Date") != "" {
			return // then the Date line is empty: covered by the unit tests
		}
		if _, err := Verify(context.Background(), r, lookup, opt); err != nil {
			t.Fatalf("request signed over %q refused: %v", sts, err)
		}
		r.Header.Set("X-Amz-Copy-Source", "/b/k")
		_, err = Verify(context.Background(), r, lookup, opt)
		wantCode(t, err, "SignatureDoesNotMatch")
	})
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb := b[k]
		if len(va) != len(vb) {
			return false
		}
		for i := range va {
			if va[i] != vb[i] {
				return false
			}
		}
	}
	return true
}

func hasDuplicate(sorted []string) bool {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return true
		}
	}
	return false
}

// FuzzChunkedRoundTrip: a stream the encoder builds (as the SDKs and
// minio-go frame it: signed or not, with a trailer in either framing)
// decodes back to the same bytes and trailer; a signed stream with any
// one byte changed either fails or still decodes to the same bytes and
// trailer (a hex digit's or a trailer name's case), never to others.
func FuzzChunkedRoundTrip(f *testing.F) {
	f.Add([]byte("hello world"), uint16(4), byte(0), uint16(0))
	f.Add(bytes.Repeat([]byte("a"), 3000), uint16(1024), byte(1), uint16(17))
	f.Add([]byte("{\"k\":\"v\"}\r\n0\r\n"), uint16(5), byte(2), uint16(40))
	f.Add([]byte{}, uint16(8), byte(3), uint16(3))
	f.Add(bytes.Repeat([]byte("xyz\n"), 100), uint16(64), byte(4), uint16(200))
	f.Fuzz(func(t *testing.T, data []byte, size uint16, mode byte, flip uint16) {
		if size == 0 || len(data) > 8<<10 || len(data)/int(size) > 256 {
			return // bounded, so each input takes milliseconds
		}
		signed := mode&1 == 1
		framing := (mode >> 1) % 3 // 0: no trailer, 1: AWS trailer framing, 2: minio-go's
		if framing == 2 && !signed {
			framing = 1 // minio-go signs its trailers
		}
		payload, declared := streamingSigned, ""
		switch {
		case framing > 0 && signed:
			payload, declared = streamingSignedTrail, "x-amz-checksum-crc32c"
		case framing > 0:
			payload, declared = streamingUnsignedTail, "x-amz-checksum-crc32c"
		case !signed:
			payload = streamingUnsignedTail
		}
		r, cs := seedRequest(t, payload, declared, len(data))
		if !signed {
			cs = nil
		}
		value := crc32cOf(data)
		var body []byte
		switch framing {
		case 0:
			body = append(encodeChunks(cs, data, int(size)), "\r\n"...)
		case 1:
			body = append(encodeChunks(cs, data, int(size)), "x-amz-checksum-crc32c:"+value+"\r\n"...)
			if signed {
				body = append(body, "x-amz-trailer-signature:"+cs.trailer("x-amz-checksum-crc32c:"+value+"\n")+"\r\n"...)
			}
			body = append(body, "\r\n"...)
		case 2:
			body = minioGoBody(cs, data, int(size), "x-amz-checksum-crc32c", value, false)
		}
		decode := func(body []byte) ([]byte, string, error) {
			rr := r.Clone(context.Background())
			rr.Body = io.NopCloser(bytes.NewReader(body))
			a, err := Verify(context.Background(), rr, lookup, Options{})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			got, err := io.ReadAll(a.Body)
			if int64(len(got)) > int64(len(body)) || int64(len(got)) > a.DecodedLength {
				t.Fatalf("decoded %d bytes from %d, %d declared", len(got), len(body), a.DecodedLength)
			}
			var tr string
			if err == nil && a.Trailer != nil {
				tr = a.Trailer().Get("x-amz-checksum-crc32c")
			}
			return got, tr, err
		}
		got, tr, err := decode(body)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip of %d bytes in %d-byte chunks (mode %d): %d bytes, %v", len(data), size, mode, len(got), err)
		}
		if framing > 0 && tr != value {
			t.Fatalf("trailer %q, want %q", tr, value)
		}
		if !signed {
			return
		}
		changed := bytes.Clone(body)
		i := int(flip) % len(changed)
		changed[i] ^= 1 << (flip >> 13)
		got2, tr2, err := decode(changed)
		if err == nil && (!bytes.Equal(got2, data) || tr2 != tr) {
			t.Fatalf("byte %d of a signed stream changed (%q to %q), yet it decoded to other bytes or trailer", i, body[i], changed[i])
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an S3 error", err)
		}
	})
}
