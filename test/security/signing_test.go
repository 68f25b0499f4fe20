package security_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// What is not signed is not honoured and a trailer
// must be what was declared: each attack below is refused, and
// the refused write stored nothing.

// signingNode starts a node with tenant acme's admin and its bucket.
func signingNode(t *testing.T, opt nodetest.Options) (*nodetest.Server, creds) {
	t.Helper()
	srv := start(t, opt)
	u := newUser(t, srv, "acme", "ann", "admin")
	if st, b := do(t, srv, signed(t, srv, u, "PUT", "/acme-sign", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	return srv, u
}

// put stores body under key with a signed request.
func put(t *testing.T, srv *nodetest.Server, c creds, key, body string) {
	t.Helper()
	if st, b := do(t, srv, signed(t, srv, c, "PUT", "/acme-sign/"+key, []byte(body), nil)); st != 200 {
		t.Fatalf("put %s: %d %s", key, st, b)
	}
}

// wantStored asserts what a signed GET of key returns: body, or 404
// NoSuchKey when body is "".
func wantStored(t *testing.T, srv *nodetest.Server, c creds, key, body string) {
	t.Helper()
	st, b := do(t, srv, signed(t, srv, c, "GET", "/acme-sign/"+key, nil, nil))
	if body == "" {
		wantError(t, st, b, 404, "NoSuchKey")
		return
	}
	if st != 200 || string(b) != body {
		t.Fatalf("GET %s: %d %q, want %q", key, st, b, body)
	}
}

// presignPut presigns a PUT of key as boto3 and the SDKs do for an
// upload: UNSIGNED-PAYLOAD, only host signed, valid 5 minutes.
func presignPut(t *testing.T, srv *nodetest.Server, c creds, key string) string {
	t.Helper()
	req, _ := http.NewRequest("PUT", srv.URL+"/acme-sign/"+key+"?X-Amz-Expires=300", nil)
	u, hdr, err := v4.NewSigner().PresignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(hdr) != 1 || hdr.Get("Host") == "" {
		t.Fatalf("presigned URL signs %v, want host only", hdr)
	}
	return u
}

// An x-amz-* header added to a request after it was signed is refused
// before it can act: AWS answers 403 AccessDenied "There were headers
// present in the request which were not signed" and names them in
// HeadersNotSigned.
func TestUnsignedAmzHeaderRefused(t *testing.T) {
	srv, u := signingNode(t, nodetest.Options{})
	req := signed(t, srv, u, "PUT", "/acme-sign/k", []byte("data"), nil)
	req.Header.Set("X-Amz-Acl", "public-read-write")
	req.Header.Set("X-Amz-Meta-Owner", "mallory")
	st, b := do(t, srv, req)
	wantError(t, st, b, 403, "AccessDenied")
	var e struct{ Message, HeadersNotSigned string }
	_ = xml.Unmarshal(b, &e)
	if e.Message != "There were headers present in the request which were not signed" ||
		e.HeadersNotSigned != "x-amz-acl, x-amz-meta-owner" {
		t.Fatalf("error document: %s", b)
	}
	wantStored(t, srv, u, "k", "")
}

// A presigned PUT URL is for the upload it was signed for, nothing else:
// headers that would make it a copy, a metadata replace, an ACL change or
// a tagged write are unsigned (403 AccessDenied), and another method or
// sub-resource changes what was signed (403 SignatureDoesNotMatch).
func TestPresignedPutOnlyUploads(t *testing.T) {
	srv, u := signingNode(t, nodetest.Options{})
	put(t, srv, u, "secret", "the other tenant's data")
	for name, h := range map[string]http.Header{
		"copy":             {"X-Amz-Copy-Source": {"/acme-sign/secret"}},
		"metadata replace": {"X-Amz-Copy-Source": {"/acme-sign/secret"}, "X-Amz-Metadata-Directive": {"REPLACE"}},
		"metadata":         {"X-Amz-Metadata-Directive": {"REPLACE"}, "X-Amz-Meta-Owner": {"mallory"}},
		"acl":              {"X-Amz-Acl": {"public-read"}},
		"grant":            {"X-Amz-Grant-Read": {"uri=\"http://acs.amazonaws.com/groups/global/AllUsers\""}},
		"tagging":          {"X-Amz-Tagging": {"a=b"}},
		"storage class":    {"X-Amz-Storage-Class": {"STANDARD"}},
	} {
		t.Run(name, func(t *testing.T) {
			key := strings.ReplaceAll(name, " ", "-")
			req, _ := http.NewRequest("PUT", presignPut(t, srv, u, key), strings.NewReader(""))
			req.Header = h
			st, b := do(t, srv, req)
			wantError(t, st, b, 403, "AccessDenied")
			wantStored(t, srv, u, key, "")
		})
	}

	// Another method on the same URL: a DELETE of an existing object.
	put(t, srv, u, "kept", "kept")
	req, _ := http.NewRequest("DELETE", presignPut(t, srv, u, "kept"), nil)
	st, b := do(t, srv, req)
	wantError(t, st, b, 403, "SignatureDoesNotMatch")
	wantStored(t, srv, u, "kept", "kept")

	// A sub-resource appended to the URL: a PutObjectAcl or an UploadPart.
	for _, sub := range []string{"acl=", "partNumber=1&uploadId=x"} {
		req, _ = http.NewRequest("PUT", presignPut(t, srv, u, "sub")+"&"+sub, strings.NewReader(""))
		st, b = do(t, srv, req)
		wantError(t, st, b, 403, "SignatureDoesNotMatch")
	}
	wantStored(t, srv, u, "sub", "")

	// The upload it was signed for works, also with x-amz-content-sha256:
	// UNSIGNED-PAYLOAD sent unsigned, the one x-amz-* header S3 lets
	// through unsigned. Any other value of it is the payload hash of the
	// canonical request (as on S3, where a presigner that knows the hash
	// signs it), so it no longer matches the URL's signature.
	body := "uploaded"
	req, _ = http.NewRequest("PUT", presignPut(t, srv, u, "ok"), strings.NewReader(body))
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	if st, b := do(t, srv, req); st != 200 {
		t.Fatalf("presigned upload: %d %s", st, b)
	}
	wantStored(t, srv, u, "ok", body)
	req, _ = http.NewRequest("PUT", presignPut(t, srv, u, "sha"), strings.NewReader(body))
	sum := sha256.Sum256([]byte(body))
	req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
	st, b = do(t, srv, req)
	wantError(t, st, b, 403, "SignatureDoesNotMatch")
	wantStored(t, srv, u, "sha", "")
}

// signV2 returns Signature V2's signature of stringToSign.
func signV2(c creds, stringToSign string) string {
	mac := hmac.New(sha1.New, []byte(c.SecretKey))
	mac.Write([]byte(stringToSign))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// presignV2 is a presigned Signature V2 GET of key expiring at exp.
func presignV2(srv *nodetest.Server, c creds, key string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	sig := signV2(c, "GET\n\n\n"+e+"\n/acme-sign/"+key)
	return srv.URL + "/acme-sign/" + key + "?AWSAccessKeyId=" + c.AccessKey + "&Expires=" + e + "&Signature=" + url.QueryEscape(sig)
}

// Signature V2 signs every x-amz-* header: one added after signing breaks
// the signature, and the copy it asked for is not made.
func TestSignatureV2SignsAmzHeaders(t *testing.T) {
	srv, u := signingNode(t, nodetest.Options{})
	put(t, srv, u, "secret", "data")
	date := time.Now().UTC().Format(http.TimeFormat)
	req, _ := http.NewRequest("PUT", srv.URL+"/acme-sign/copy", nil)
	req.Header.Set("Date", date)
	req.Header.Set("X-Amz-Meta-A", "1")
	req.Header.Set("Authorization", "AWS "+u.AccessKey+":"+signV2(u, "PUT\n\n\n"+date+"\nx-amz-meta-a:1\n/acme-sign/copy"))
	req.Header.Set("X-Amz-Copy-Source", "/acme-sign/secret")
	st, b := do(t, srv, req)
	wantError(t, st, b, 403, "SignatureDoesNotMatch")
	wantStored(t, srv, u, "copy", "")

	// The same request with the header signed is a copy: the check above
	// refused the header, not the request.
	req.Header.Set("Authorization", "AWS "+u.AccessKey+":"+signV2(u,
		"PUT\n\n\n"+date+"\nx-amz-copy-source:/acme-sign/secret\nx-amz-meta-a:1\n/acme-sign/copy"))
	if st, b := do(t, srv, req); st != 200 {
		t.Fatalf("signed copy: %d %s", st, b)
	}
	wantStored(t, srv, u, "copy", "data")
}

// A presigned V2 URL lives at most a week by default, like a V4 URL (S3
// bounds only V4 URLs, at a week; V2 query errors are 403 AccessDenied
// there). sigv2_presign_max_age moves the bound.
func TestPresignedV2MaxAge(t *testing.T) {
	srv, u := signingNode(t, nodetest.Options{})
	put(t, srv, u, "k", "data")
	req, _ := http.NewRequest("GET", presignV2(srv, u, "k", time.Now().Add(8*24*time.Hour)), nil)
	st, b := do(t, srv, req)
	wantError(t, st, b, 403, "AccessDenied")
	req, _ = http.NewRequest("GET", presignV2(srv, u, "k", time.Now().Add(6*24*time.Hour)), nil)
	if st, b := do(t, srv, req); st != 200 || string(b) != "data" {
		t.Fatalf("6-day URL: %d %s", st, b)
	}

	srv, u = signingNode(t, nodetest.Options{Config: func(c *node.Config) { c.PresignV2MaxAge = time.Hour }})
	put(t, srv, u, "k", "data")
	req, _ = http.NewRequest("GET", presignV2(srv, u, "k", time.Now().Add(2*time.Hour)), nil)
	st, b = do(t, srv, req)
	wantError(t, st, b, 403, "AccessDenied")
	req, _ = http.NewRequest("GET", presignV2(srv, u, "k", time.Now().Add(30*time.Minute)), nil)
	if st, b := do(t, srv, req); st != 200 {
		t.Fatalf("30-minute URL under a 1 h bound: %d %s", st, b)
	}
}

// chunkSigner signs aws-chunked chunks and trailers after the seed.
type chunkSigner struct {
	key              []byte
	date, scope, sig string
}

func hmacHex(key []byte, s string) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))
}

func hmacRaw(key []byte, s string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return h.Sum(nil)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (c *chunkSigner) chunk(data []byte) string {
	c.sig = hmacHex(c.key, "AWS4-HMAC-SHA256-PAYLOAD\n"+c.date+"\n"+c.scope+"\n"+c.sig+"\n"+sha256Hex(nil)+"\n"+sha256Hex(data))
	return c.sig
}

func (c *chunkSigner) trailer(lines string) string {
	return hmacHex(c.key, "AWS4-HMAC-SHA256-TRAILER\n"+c.date+"\n"+c.scope+"\n"+c.sig+"\n"+sha256Hex([]byte(lines)))
}

// streamingPut builds a PUT of key with an aws-chunked body of n decoded
// bytes, payload as x-amz-content-sha256 and x-amz-trailer declared,
// signed by the SDK's signer; body makes the body from the chunk signer
// (nil for unsigned payloads).
func streamingPut(t *testing.T, srv *nodetest.Server, c creds, key, payload, declared string, n int, body func(*chunkSigner) []byte) *http.Request {
	t.Helper()
	req, _ := http.NewRequest("PUT", srv.URL+"/acme-sign/"+key, nil)
	req.Header.Set("Content-Encoding", "aws-chunked")
	req.Header.Set("X-Amz-Content-Sha256", payload)
	req.Header.Set("X-Amz-Decoded-Content-Length", strconv.Itoa(n))
	req.Header.Set("X-Amz-Trailer", declared)
	now := time.Now().UTC()
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, payload, "s3", "us-east-1", now); err != nil {
		t.Fatal(err)
	}
	authz := req.Header.Get("Authorization")
	seed := authz[strings.LastIndex(authz, "Signature=")+len("Signature="):]
	day := now.Format("20060102")
	key4 := hmacRaw(hmacRaw(hmacRaw(hmacRaw([]byte("AWS4"+c.SecretKey), day), "us-east-1"), "s3"), "aws4_request")
	var cs *chunkSigner
	if strings.HasPrefix(payload, "STREAMING-AWS4-HMAC-SHA256") {
		cs = &chunkSigner{key: key4, date: now.Format("20060102T150405Z"), scope: day + "/us-east-1/s3/aws4_request", sig: seed}
	}
	b := body(cs)
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	return req
}

// chunks frames data as aws-chunked in 64 KiB chunks (signed when cs is
// not nil) through the zero-size chunk's header line.
func chunks(cs *chunkSigner, data []byte) []byte {
	var b bytes.Buffer
	for {
		n := min(64<<10, len(data))
		c := data[:n]
		data = data[n:]
		fmt.Fprintf(&b, "%x", n)
		if cs != nil {
			b.WriteString(";chunk-signature=" + cs.chunk(c))
		}
		b.WriteString("\r\n")
		if n == 0 {
			return b.Bytes()
		}
		b.Write(c)
		b.WriteString("\r\n")
	}
}

func crc32c(data []byte) string {
	v := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	return base64.StdEncoding.EncodeToString([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// A trailer must be what x-amz-trailer declared: missing, or a checksum
// of another algorithm, the upload gets 400 MalformedTrailerError (what
// S3 answers) and stores nothing; a malformed trailer is 400 too, never
// 403. minio-go's signed-trailer framing, which `mc cp --checksum` sends
// (trailer lines end with a bare LF, then CRLF, then the trailer
// signature: pkg/signer/request-signature-streaming.go), is accepted and
// its checksum checked.
func TestTrailers(t *testing.T) {
	srv, u := signingNode(t, nodetest.Options{})
	data := bytes.Repeat([]byte("trailer "), 9000) // 72000 bytes: two chunks
	const signedTrail, unsignedTrail = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "STREAMING-UNSIGNED-PAYLOAD-TRAILER"

	minioGo := func(trailerLines string) func(*chunkSigner) []byte {
		return func(cs *chunkSigner) []byte {
			b := chunks(cs, data)
			return append(b, trailerLines+"\r\nx-amz-trailer-signature:"+cs.trailer(trailerLines)+"\r\n\r\n"...)
		}
	}
	st, b := do(t, srv, streamingPut(t, srv, u, "mc", signedTrail, "x-amz-checksum-crc32c", len(data),
		minioGo("x-amz-checksum-crc32c:"+crc32c(data)+"\n")))
	if st != 200 {
		t.Fatalf("minio-go framing: %d %s", st, b)
	}
	wantStored(t, srv, u, "mc", string(data))

	for name, tc := range map[string]struct {
		payload, declared string
		body              func(*chunkSigner) []byte
		code              string
	}{
		"wrong checksum, minio-go framing": {signedTrail, "x-amz-checksum-crc32c",
			minioGo("x-amz-checksum-crc32c:" + crc32c([]byte("other")) + "\n"), "BadDigest"},
		"other algorithm, minio-go framing": {signedTrail, "x-amz-checksum-crc32",
			minioGo("x-amz-checksum-crc32c:" + crc32c(data) + "\n"), "MalformedTrailerError"},
		"missing, signed": {signedTrail, "x-amz-checksum-crc32c",
			minioGo(""), "MalformedTrailerError"},
		"missing, unsigned": {unsignedTrail, "x-amz-checksum-crc32c",
			func(*chunkSigner) []byte { return append(chunks(nil, data), "\r\n"...) }, "MalformedTrailerError"},
		"other algorithm, unsigned": {unsignedTrail, "x-amz-checksum-sha256",
			func(*chunkSigner) []byte {
				return append(chunks(nil, data), "x-amz-checksum-crc32c:"+crc32c(data)+"\r\n\r\n"...)
			}, "MalformedTrailerError"},
		"malformed line": {unsignedTrail, "x-amz-checksum-crc32c",
			func(*chunkSigner) []byte { return append(chunks(nil, data), "x-amz-checksum-crc32c\r\n\r\n"...) }, "MalformedTrailerError"},
	} {
		t.Run(name, func(t *testing.T) {
			key := strings.ReplaceAll(strings.ReplaceAll(name, " ", "-"), ",", "")
			st, b := do(t, srv, streamingPut(t, srv, u, key, tc.payload, tc.declared, len(data), tc.body))
			wantError(t, st, b, 400, tc.code)
			wantStored(t, srv, u, key, "")
		})
	}
}
