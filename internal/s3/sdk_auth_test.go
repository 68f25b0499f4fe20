package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func TestAddressingStyles(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true, Domains: []string{"example.com"}})
	ctx := context.Background()
	path := client(t, srv, srv.URL, false)
	if _, err := path.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("styles")}); err != nil {
		t.Fatal(err)
	}
	put(t, path, "styles", "k/one", []byte("via /"))

	// The same bucket under the API root.
	root := client(t, srv, srv.URL+"/api/v1/s3", false)
	if got := get(t, root, "styles", "k/one"); string(got) != "via /" {
		t.Fatalf("under /api/v1/s3: %q", got)
	}
	put(t, root, "styles", "k/two", []byte("via root"))

	// Virtual-hosted style: styles.example.com (the test certificate's
	// wildcard name).
	port := srv.URL[strings.LastIndexByte(srv.URL, ':'):]
	vh := client(t, srv, "https://example.com"+port, true)
	if got := get(t, vh, "styles", "k/two"); string(got) != "via root" {
		t.Fatalf("virtual-hosted: %q", got)
	}
	out, err := vh.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("styles")})
	if err != nil || len(out.Contents) != 2 {
		t.Fatalf("virtual-hosted list: %v %+v", err, out)
	}
}

// Over plain HTTP the SDK signs the payload hash instead of streaming.
func TestPlainHTTP(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{}, "plain")
	data := randBytes(300_000, 5)
	put(t, c, "plain", "k", data)
	if !bytes.Equal(get(t, c, "plain", "k"), data) {
		t.Fatal("round trip over HTTP differs")
	}
}

func TestAuthErrors(t *testing.T) {
	_, bucket, srv := setup(t)
	ctx := context.Background()

	bad := client(t, srv, srv.URL, false, nodetest.AccessKey, "wrong-secret")
	_, err := bad.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
	wantCode(t, err, "SignatureDoesNotMatch")

	unknown := client(t, srv, srv.URL, false, "AKIDUNKNOWN000000000", "x")
	_, err = unknown.ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "InvalidAccessKeyId")

	// Anonymous requests are refused until ACLs and policies open them.
	resp, err := srv.Client().Get(srv.URL + "/" + bucket)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "<Code>AccessDenied</Code>") || resp.Header.Get("x-amz-request-id") == "" {
		t.Fatalf("anonymous: %d %s", resp.StatusCode, body)
	}

	// A request signed 20 minutes ago is outside AWS's 15-minute window.
	req, _ := http.NewRequest("GET", srv.URL+"/"+bucket, nil)
	req.Header.Set("x-amz-content-sha256", "UNSIGNED-PAYLOAD")
	signer := v4.NewSigner()
	err = signer.SignHTTP(ctx, aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey},
		req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now().Add(-20*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(body), "RequestTimeTooSkewed") {
		t.Fatalf("skewed: %d %s", resp.StatusCode, body)
	}

	// Unknown method on a bucket.
	req, _ = http.NewRequest("PATCH", srv.URL+"/"+bucket, nil)
	signer.SignHTTP(ctx, aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey},
		req, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "s3", "us-east-1", time.Now())
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("PATCH: %d, want 405 MethodNotAllowed", resp.StatusCode)
	}
}

func TestPresigned(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	ps := s3.NewPresignClient(c)
	putReq, err := ps.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("pre signed")}, s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(putReq.Method, putReq.URL, strings.NewReader("presigned body"))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("presigned PUT: %d", resp.StatusCode)
	}
	getReq, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("pre signed"),
		ResponseContentType: aws.String("text/x-override")}, s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err = srv.Client().Get(getReq.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "presigned body" || resp.Header.Get("Content-Type") != "text/x-override" {
		t.Fatalf("presigned GET: %d %q %q", resp.StatusCode, body, resp.Header.Get("Content-Type"))
	}
	// Tampering with the URL breaks the signature.
	resp, err = srv.Client().Get(strings.Replace(getReq.URL, "pre%20signed", "other", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("tampered presigned URL: %d", resp.StatusCode)
	}
}

// A body shorter than its Content-Length, or with a wrong Content-MD5, is
// refused and leaves nothing behind.
func TestBadBodies(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("md5"), Body: strings.NewReader("hello"),
		ContentMD5: aws.String("XUFAKrxLKna5cZ2REBfFkg==")}) // MD5 of "hello" is XUFAKrxLKna5cZ2REBfFkg==
	if err != nil {
		t.Fatalf("correct Content-MD5 refused: %v", err)
	}
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("md5bad"), Body: strings.NewReader("hellO"),
		ContentMD5: aws.String("XUFAKrxLKna5cZ2REBfFkg==")})
	wantCode(t, err, "BadDigest")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("md5bad"), Body: strings.NewReader("hello"),
		ContentMD5: aws.String("not-base64!")})
	wantCode(t, err, "InvalidDigest")
	_, err = c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("md5bad")})
	if err == nil {
		t.Fatal("refused object is visible")
	}

	// A payload whose signed SHA-256 does not match.
	req, _ := http.NewRequest("PUT", srv.URL+"/"+bucket+"/sha", strings.NewReader("actual body"))
	req.Header.Set("x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey},
		req, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "s3", "us-east-1", time.Now())
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(body), "XAmzContentSHA256Mismatch") {
		t.Fatalf("sha mismatch: %d %s", resp.StatusCode, body)
	}
}
