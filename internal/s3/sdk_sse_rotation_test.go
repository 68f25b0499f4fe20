package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/objects"
)

// TestSSERotationUnderLoad: the bucket's key is rotated again and again
// while clients write and read SSE-S3 objects and the re-wrap job runs.
// No write or read fails for it, every acknowledged object reads back as
// written, and in the end every stored data key is wrapped by the newest
// version of the key (so older versions could go), with no object's bytes
// written again.
func TestSSERotationUnderLoad(t *testing.T) {
	const bucket = "rotating"
	c, srv := nodeWithBucket(t, nodetest.Options{TLS: true, Config: func(cfg *node.Config) {
		cfg.KMS.RewrapInterval = 50 * time.Millisecond
	}}, bucket)
	ctx := context.Background()
	body := func(key string) []byte { return bytes.Repeat([]byte(key+";"), 3000) } // ~30 KiB: inline and blob sizes both
	var (
		mu    sync.Mutex
		acked []string
		fails []error
	)
	fail := func(err error) { mu.Lock(); fails = append(fails, err); mu.Unlock() }
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("w%d/%04d", w, i)
				data := body(key)
				if i%3 == 0 {
					data = append(data, bytes.Repeat([]byte{'x'}, 70<<10)...) // past the inline size
				}
				_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data),
					ServerSideEncryption: types.ServerSideEncryptionAes256})
				if err != nil {
					fail(fmt.Errorf("put %s: %w", key, err))
					return
				}
				mu.Lock()
				acked = append(acked, key)
				var read string
				if len(acked) > 1 {
					read = acked[(i*7)%len(acked)]
				}
				mu.Unlock()
				if read != "" {
					if err := readBack(ctx, c, bucket, read, body(read)); err != nil {
						fail(err)
						return
					}
				}
			}
		}(w)
	}
	// The provider's buckets are wrapped by the provider's own key.
	keyID, err := srv.Node.KMS.DefaultKey(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 5; r++ {
		time.Sleep(150 * time.Millisecond)
		if _, err := srv.Node.KMS.RotateKey(ctx, "", keyID); err != nil {
			t.Fatalf("rotation %d: %v", r, err)
		}
	}
	time.Sleep(150 * time.Millisecond)
	close(stop)
	wg.Wait()
	if len(fails) > 0 {
		t.Fatalf("%d failures under rotation, first: %v", len(fails), fails[0])
	}
	if len(acked) < 20 {
		t.Fatalf("only %d writes in the test: no load", len(acked))
	}
	for _, key := range acked {
		if err := readBack(ctx, c, bucket, key, body(key)); err != nil {
			t.Fatal(err)
		}
	}
	// The job re-wraps every stored key under the newest version.
	rw := srv.Node.KMS.(kms.Rewrapper)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		stale := 0
		for _, key := range acked {
			o, err := srv.Node.Catalog.GetObject(ctx, bucket, key, "")
			if err != nil {
				t.Fatal(err)
			}
			enc := o.Meta.Encryption
			if enc == nil {
				t.Fatalf("%s is stored in the clear", key)
			}
			if _, changed, err := rw.Rewrap(ctx, "", enc.KeyID, enc.WrappedKey, objects.KeyContext(bucket, key, enc)); err != nil {
				t.Fatalf("%s: its stored key does not open: %v", key, err)
			} else if changed {
				stale++
			}
		}
		if stale == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d stored keys not re-wrapped under the newest version after 30 s", stale, len(acked))
		}
	}
}

// readBack reads key and checks it begins with want (objects past the
// inline size carry padding after it) and says it is SSE-S3.
func readBack(ctx context.Context, c *s3.Client, bucket, key string, want []byte) error {
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("get %s: %w", key, err)
	}
	defer out.Body.Close()
	got, err := io.ReadAll(out.Body)
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	if !bytes.HasPrefix(got, want) || out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
		return fmt.Errorf("%s read back wrong (%d bytes, %q)", key, len(got), out.ServerSideEncryption)
	}
	return nil
}
