package s3blob_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/blobtest"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
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

// moto is moto's S3 server, an S3 endpoint that is not Ostium.
func moto(t *testing.T) platform {
	return platform{testenv.Moto(t), "testing", "testing"}
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

// A platform that cannot be reached (nothing listens at its port, its
// name does not resolve) is reported as unavailable, by Check and by
// every operation, at the first attempt: the default 5 retries with
// backoff would hold each request for half a minute on a failure that
// does not heal within it. The error says what failed, not "context
// deadline exceeded" nor the SDK's chain.
func TestUnreachablePlatform(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	for _, tc := range []struct{ endpoint, want string }{
		{"http://" + addr, "connection refused"},
		{"http://platform.invalid", "lookup platform.invalid"}, // .invalid never resolves (RFC 2606)
	} {
		s := fresh(t, platform{tc.endpoint, "k", "s"}, s3blob.LayoutShared, func(c *s3blob.Config) { c.Retries = 5 })
		ctx := context.Background()
		check := func(op string, err error) {
			t.Helper()
			var retried *retry.MaxAttemptsError
			switch {
			case !errors.Is(err, blob.ErrUnavailable):
				t.Errorf("%s on %s: %v, want ErrUnavailable", op, tc.endpoint, err)
			case errors.As(err, &retried):
				t.Errorf("%s on %s: retried %d times: %v", op, tc.endpoint, retried.Attempt, err)
			case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "deadline") || len(err.Error()) > 200:
				t.Errorf("%s on %s: %q, want a short message saying %q", op, tc.endpoint, err, tc.want)
			}
		}
		check("Check", s.(*s3blob.Store).Check(ctx))
		_, err := s.Put(ctx, blob.NewID(), bytes.NewReader([]byte("x")), 1)
		check("Put", err)
		_, err = s.Get(ctx, blob.NewID(), 0, -1)
		check("Get", err)
	}
}

// A platform that takes the connection and never answers fails a request
// after its timeout, once: retrying would hold it for the timeout again
// for every retry.
func TestSilentPlatform(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var conns sync.WaitGroup
	stop := make(chan struct{})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conns.Add(1)
			go func() { // read the request, answer nothing
				defer conns.Done()
				defer c.Close()
				go io.Copy(io.Discard, c)
				<-stop
			}()
		}
	}()
	t.Cleanup(func() { l.Close(); close(stop); conns.Wait() })
	s := fresh(t, platform{"http://" + l.Addr().String(), "k", "s"}, s3blob.LayoutShared, func(c *s3blob.Config) {
		c.Retries, c.Timeout = 5, time.Second
	})
	_, err = s.Get(context.Background(), blob.NewID(), 0, -1)
	if !errors.Is(err, blob.ErrUnavailable) || !strings.Contains(err.Error(), "no answer within 1s (timeout)") {
		t.Errorf("Get from a silent platform: %v, want ErrUnavailable saying it did not answer within 1s", err)
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("the silent platform was asked %d times, want once", n)
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

// flaky is a proxy in front of a platform that answers 503 SlowDown to
// every other request and records the headers of what it forwards.
type flaky struct {
	next    http.Handler
	mu      sync.Mutex
	n       int
	headers []http.Header
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.n++
	throttle := f.n%2 == 1
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	if throttle {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
		return
	}
	f.next.ServeHTTP(w, r)
}

// Throttling is retried (with the SDK's backoff and jitter) until the
// platform takes the request; with retries off it surfaces as
// ErrUnavailable. Requests carry no checksum trailers and no aws-chunked
// encoding, which older platforms refuse.
func TestRetriesThrottlingWithoutTrailers(t *testing.T) {
	p := ostium(t)
	target, _ := url.Parse(p.endpoint)
	f := &flaky{next: httputil.NewSingleHostReverseProxy(target)}
	front := httptest.NewServer(f)
	defer front.Close()
	ctx := context.Background()

	s := fresh(t, platform{front.URL, p.accessKey, p.secretKey}, s3blob.LayoutShared, func(c *s3blob.Config) { c.Retries, c.Bucket = 3, "throttled" })
	data := bytes.Repeat([]byte("r"), 100_000)
	id := blob.NewID()
	if _, err := s.Put(ctx, id, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put through a throttling platform: %v", err)
	}
	rc, err := s.Get(ctx, id, 0, -1)
	if err != nil {
		t.Fatalf("Get through a throttling platform: %v", err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Fatal("contents differ")
	}
	f.mu.Lock()
	for _, h := range f.headers {
		if h.Get("X-Amz-Trailer") != "" || strings.Contains(h.Get("Content-Encoding"), "aws-chunked") || h.Get("X-Amz-Checksum-Crc32") != "" {
			t.Errorf("a request carried checksum trailers or headers: %v", h)
		}
	}
	f.mu.Unlock()

	none := fresh(t, platform{front.URL, p.accessKey, p.secretKey}, s3blob.LayoutShared, func(c *s3blob.Config) { c.Retries, c.Bucket = -1, "throttled" })
	var failed bool
	for range 2 { // one of two requests is throttled
		if _, err := none.Get(ctx, id, 0, -1); err != nil {
			failed = true
			if !errors.Is(err, blob.ErrUnavailable) {
				t.Errorf("throttled without retries: %v, want ErrUnavailable", err)
			}
		}
	}
	if !failed {
		t.Error("no request was throttled")
	}
}

// A platform behind TLS with a private CA is reached through ca_file, and
// through an HTTP proxy when one is configured.
func TestCustomCAAndProxy(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	var proxied atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An HTTPS target goes through CONNECT: tunnel it.
		proxied.Add(1)
		dst, err := net.Dial("tcp", r.Host)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		src, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			dst.Close()
			return
		}
		// What the client sent after its CONNECT may already sit in the
		// server's buffer: it goes first.
		go func() { io.Copy(dst, buf); dst.Close() }()
		go func() { io.Copy(src, dst); src.Close() }()
	}))
	defer proxy.Close()
	ctx := context.Background()
	for _, via := range []string{"", proxy.URL} {
		s := fresh(t, platform{srv.URL, nodetest.AccessKey, nodetest.SecretKey}, s3blob.LayoutShared, func(c *s3blob.Config) {
			c.CAFile, c.Proxy = ca, via
		})
		id := blob.NewID()
		if _, err := s.Put(ctx, id, strings.NewReader("tls"), 3); err != nil {
			t.Fatalf("Put over TLS (proxy %q): %v", via, err)
		}
	}
	if proxied.Load() == 0 {
		t.Error("the proxy saw no request")
	}
	s := fresh(t, platform{srv.URL, nodetest.AccessKey, nodetest.SecretKey}, s3blob.LayoutShared, nil)
	if _, err := s.Put(ctx, blob.NewID(), strings.NewReader("x"), 1); err == nil {
		t.Error("a platform with an unknown CA was trusted")
	}
}

// A body of unknown length larger than a buffered part goes up in parts.
func TestUnknownLengthInParts(t *testing.T) {
	s := fresh(t, ostium(t), s3blob.LayoutShared, nil)
	data := bytes.Repeat([]byte("0123456789abcdef"), (20<<20)/16+5)
	id := blob.NewID()
	ctx := context.Background()
	if n, err := s.Put(ctx, id, io.MultiReader(bytes.NewReader(data)), -1); err != nil || n != int64(len(data)) {
		t.Fatalf("Put = %d, %v", n, err)
	}
	rc, err := s.Get(ctx, id, int64(len(data))-10, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data[len(data)-10:]) {
		t.Fatalf("tail = %q", got)
	}
}
