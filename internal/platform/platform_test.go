package platform_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/platform"
)

// closedPort is an address nothing listens at.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A platform that cannot be reached fails a request with an error that
// names it, its endpoint and what failed, with the default retries; its
// health check, once it has failed enough times in a row, logs the same
// and then fails its requests without asking it.
func TestUnreachablePlatformNamed(t *testing.T) {
	endpoint := "http://" + closedPort(t)
	set, err := platform.Open(map[string]platform.Spec{
		"ceph-a": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: endpoint, AccessKey: "k", SecretKey: "s", PathStyle: true, Bucket: "ostium"}},
		"local":  {Type: platform.TypeFS, Path: t.TempDir()},
	}, "local", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	ctx := context.Background()
	want := "platform ceph-a (" + endpoint + "): "
	id := set.NewID("ceph-a", "acme")
	_, err = set.Get(ctx, id, 0, -1)
	if !errors.Is(err, blob.ErrUnavailable) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ": connection refused") {
		t.Fatalf("Get: %v, want ErrUnavailable as %q...: connection refused", err, want)
	}
	if _, err := set.Put(ctx, id, strings.NewReader("x"), 1); !errors.Is(err, blob.ErrUnavailable) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Put: %v, want ErrUnavailable as %q...", err, want)
	}
	// A missing blob on a reachable platform is no failure to decorate.
	if _, err := set.Get(ctx, set.NewID("local", ""), 0, -1); !errors.Is(err, blob.ErrNotFound) || strings.Contains(err.Error(), "platform local") {
		t.Fatalf("Get of a missing blob: %v, want ErrNotFound as it is", err)
	}

	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	for range 3 {
		set.CheckOnce(ctx)
	}
	if err := set.Health()["ceph-a"]; err == nil {
		t.Fatal("ceph-a is reported healthy after three failed checks")
	}
	line := logs.String()
	for _, w := range []string{"platform unavailable", "platform=ceph-a", "endpoint=" + endpoint, "connection refused"} {
		if !strings.Contains(line, w) {
			t.Errorf("log %q lacks %q", line, w)
		}
	}
	if strings.Contains(line, "deadline") || strings.Contains(line, "exceeded maximum") {
		t.Errorf("log %q tells of retries or deadlines, not what failed", line)
	}
	_, err = set.Get(ctx, id, 0, -1)
	if !errors.Is(err, blob.ErrUnavailable) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Get from a platform marked down: %v, want ErrUnavailable as %q...", err, want)
	}
}
