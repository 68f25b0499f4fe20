package s3_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/kms/kmstest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestKMSOutage: with tenant keys on a real KMIP server, the server
// frozen mid-run makes SSE writes and reads answer 503 with Retry-After
// (nothing stored, no wrong bytes), and once it is back every object
// written before reads as it was.
func TestKMSOutage(t *testing.T) {
	kmip := kmstest.StartKMIP(t)
	const bucket = "kms-outage"
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true, Config: func(cfg *node.Config) {
		cfg.KMS = node.KMSConfig{Type: "kmip", KMIPConfig: kmip.Config}
	}}, bucket)
	ctx := context.Background()
	// One attempt per call: the SDK's retries would multiply the wait
	// this test bounds.
	once := func(o *s3.Options) { o.RetryMaxAttempts = 1 }
	put := func(key string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Body: bytes.NewReader([]byte("before " + key)), ServerSideEncryption: types.ServerSideEncryptionAes256}, once)
		return err
	}
	for _, k := range []string{"a", "b"} {
		if err := put(k); err != nil {
			t.Fatal(err)
		}
	}

	kmip.Pause()
	for _, call := range []struct {
		name string
		do   func() error
	}{
		{"put", func() error { return put("during") }},
		{"get", func() error {
			_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("a")}, once)
			return err
		}},
	} {
		start := time.Now()
		err := call.do()
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusServiceUnavailable || re.Response.Header.Get("Retry-After") == "" {
			t.Errorf("%s with the KMS frozen: %v, want 503 with Retry-After", call.name, err)
		}
		// The KMIP timeout is 2 s a call; a loaded machine gets slack,
		// a call waiting on the frozen server for good does not.
		if waited := time.Since(start); waited > 10*time.Second {
			t.Errorf("%s with the KMS frozen took %v: calls to it must be bounded", call.name, waited)
		}
	}
	kmip.Resume()

	// Nothing of the refused write was stored, and everything before reads.
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("during")}); apiCode(err) != "NotFound" {
		t.Errorf("the write refused in the outage: %v, want NotFound", err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		err := readBack(ctx, c, bucket, "a", []byte("before a"))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the KMS came back: %v", err)
		}
	}
	if err := readBack(ctx, c, bucket, "b", []byte("before b")); err != nil {
		t.Fatal(err)
	}
	if err := put("after"); err != nil {
		t.Fatal(err)
	}
}
