package s3_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// A GET of an object whose platform stopped listening is answered 503
// ServiceUnavailable with Retry-After at the first attempt (with the
// default retries, not after half a minute of them), and the request
// log says which platform failed, where, and how.
func TestGetFromUnreachablePlatform(t *testing.T) {
	ctx := context.Background()
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	remote := nodetest.Start(t, nodetest.Options{})
	gw := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Log.Requests = "info"
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"ceph-a": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: remote.URL, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey,
				PathStyle: true, Bucket: "ostium"}},
		}
		c.DefaultPlatform = "ceph-a"
	}})
	c := s3.New(client(t, gw, gw.URL, false).Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("photos")}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "photos", "a", randBytes(1<<20, 1)) // past the inline limit: on the platform
	remote.Close()                                // nothing listens at its port now

	_, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("photos"), Key: aws.String("a")})
	wantUnavailable(t, err)
	var line map[string]any
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"request"`) && strings.Contains(l, `"status":503`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	msg, _ := line["err"].(string)
	if !strings.Contains(msg, "platform ceph-a ("+remote.URL+")") || !strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "deadline") || strings.Contains(msg, "exceeded maximum") {
		t.Errorf("the 503's request log says %q, want the platform's name, endpoint and \"connection refused\"", msg)
	}
}
