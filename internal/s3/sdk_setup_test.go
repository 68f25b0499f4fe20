package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// client returns an aws-sdk-go-v2 client of srv with the SDK's defaults
// (checksums on), path style unless virtual is set. Every host name dials
// the test server, so bucket.domain works without DNS.
func client(t testing.TB, srv *nodetest.Server, endpoint string, virtual bool, creds ...string) *s3.Client {
	t.Helper()
	ak, sk := nodetest.AccessKey, nodetest.SecretKey
	if len(creds) == 2 {
		ak, sk = creds[0], creds[1]
	}
	tr := srv.Client().Transport.(*http.Transport).Clone()
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: !virtual,
		Credentials:  credentials.NewStaticCredentialsProvider(ak, sk, ""),
		HTTPClient:   &http.Client{Transport: tr},
		// What config.LoadDefaultConfig sets, and so what SDK users get:
		// CRC32 on every upload, sent as an aws-chunked trailer over TLS.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenSupported,
	})
}

// setup starts a TLS node (so the SDK streams aws-chunked with trailing
// checksums, as it does against AWS) and returns a client and a bucket.
func setup(t *testing.T) (*s3.Client, string, *nodetest.Server) {
	t.Helper()
	const bucket = "test-bucket"
	c, srv := nodeWithBucket(t, nodetest.Options{TLS: true}, bucket)
	return c, bucket, srv
}

// nodeWithBucket starts a node with opt and returns a client of it, with
// bucket created.
func nodeWithBucket(t *testing.T, opt nodetest.Options, bucket string) (*s3.Client, *nodetest.Server) {
	t.Helper()
	srv := nodetest.Start(t, opt)
	c := client(t, srv, srv.URL, false)
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return c, srv
}

// apiCode returns the S3 error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := apiCode(err); got != code {
		t.Fatalf("want error %s, got %v", code, err)
	}
}

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return `"` + hex.EncodeToString(s[:]) + `"`
}

func put(t *testing.T, c *s3.Client, bucket, key string, data []byte) *s3.PutObjectOutput {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return out
}

func get(t *testing.T, c *s3.Client, bucket, key string) []byte {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return b
}

// writeSignedPut writes the head of a root-signed PUT of size bytes
// (UNSIGNED-PAYLOAD, with header's fields too) to conn, for tests that
// send the body themselves: in part, late, or after a 100 Continue.
func writeSignedPut(t *testing.T, conn net.Conn, srv *nodetest.Server, path string, size int, header http.Header) {
	t.Helper()
	req, _ := http.NewRequest("PUT", srv.URL+path, nil)
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	creds := aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", path, req.Host, size)
	for k, vs := range req.Header {
		fmt.Fprintf(conn, "%s: %s\r\n", k, vs[0])
	}
	conn.Write([]byte("\r\n"))
}
