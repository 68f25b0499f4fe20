package s3blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/blobtest"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// platform is a real S3 server the suite runs against.
type platform struct {
	endpoint, accessKey, secretKey string
}

// ostium starts another Ostium node (local disk) on loopback.
func ostium(t *testing.T) platform {
	srv := nodetest.Start(t, nodetest.Options{})
	return platform{srv.URL, nodetest.AccessKey, nodetest.SecretKey}
}

// moto starts moto's S3 server (PyPI: moto[server]) on loopback. CI
// installs it; elsewhere the test is skipped when it is missing.
func moto(t *testing.T) platform {
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("moto_server is not installed (pip install 'moto[server]')")
		}
		t.Skip("moto_server not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("moto_server did not start")
		}
	}
	return platform{"http://" + addr, "testing", "testing"}
}

func fresh(t *testing.T, p platform, layout string, tune func(*s3blob.Config)) blob.Store {
	var b [4]byte
	rand.Read(b[:])
	cfg := s3blob.Config{Endpoint: p.endpoint, AccessKey: p.accessKey, SecretKey: p.secretKey, PathStyle: true,
		Layout: layout, Bucket: "blobs-" + hex.EncodeToString(b[:]), Retries: 1}
	if tune != nil {
		tune(&cfg)
	}
	s, err := s3blob.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The conformance suite on two independent S3 servers, in both layouts,
// with multipart from 5 MiB so that LargeBlob and UnknownSize write parts.
func TestConformance(t *testing.T) {
	for name, start := range map[string]func(*testing.T) platform{"ostium": ostium, "moto": moto} {
		t.Run(name, func(t *testing.T) {
			p := start(t)
			for _, layout := range []string{s3blob.LayoutShared, s3blob.LayoutBucketPerTenant} {
				t.Run(layout, func(t *testing.T) {
					blobtest.Run(t, func(t *testing.T) blob.Store {
						return fresh(t, p, layout, func(c *s3blob.Config) { c.MultipartThreshold, c.PartSize = 5<<20, 5<<20 })
					})
				})
			}
		})
	}
}

// A platform that cannot be reached is reported as unavailable, by Check
// and by every operation, after the configured retries.
func TestUnreachablePlatform(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	s := fresh(t, platform{"http://" + addr, "k", "s"}, s3blob.LayoutShared, func(c *s3blob.Config) { c.Timeout = time.Second })
	ctx := context.Background()
	if err := s.(*s3blob.Store).Check(ctx); !errors.Is(err, blob.ErrUnavailable) {
		t.Errorf("Check: %v, want ErrUnavailable", err)
	}
	if _, err := s.Put(ctx, blob.NewID(), bytes.NewReader([]byte("x")), 1); !errors.Is(err, blob.ErrUnavailable) {
		t.Errorf("Put: %v, want ErrUnavailable", err)
	}
	if _, err := s.Get(ctx, blob.NewID(), 0, -1); !errors.Is(err, blob.ErrUnavailable) {
		t.Errorf("Get: %v, want ErrUnavailable", err)
	}
}

// Prepare makes a tenant's bucket at onboarding in the per-tenant layout;
// the blobs land there.
func TestBucketPerTenant(t *testing.T) {
	p := ostium(t)
	s := fresh(t, p, s3blob.LayoutBucketPerTenant, nil).(*s3blob.Store)
	ctx := context.Background()
	if err := s.Prepare(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	id := "acme/" + blob.NewID()
	if _, err := s.Put(ctx, id, bytes.NewReader([]byte("hello")), 5); err != nil {
		t.Fatal(err)
	}
	rc, err := s.Get(ctx, id, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "ell" {
		t.Fatalf("range read %q", got)
	}
}
