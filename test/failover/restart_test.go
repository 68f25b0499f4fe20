// Package failover tests a node through the loss and return of its
// PostgreSQL catalog: real servers, stopped and killed.
package failover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// answers counts the statuses a client met, and 503s without
// Retry-After.
type answers struct {
	inner   http.RoundTripper
	mu      sync.Mutex
	status  map[int]int
	noRetry int
}

func (a *answers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.inner.RoundTrip(r)
	if err == nil {
		a.mu.Lock()
		a.status[resp.StatusCode]++
		if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
			a.noRetry++
		}
		a.mu.Unlock()
	}
	return resp, err
}

// counts is a copy of the statuses met so far.
func (a *answers) counts() map[int]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.status)
}

func client(url string, rt http.RoundTripper, attempts int) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(url), UsePathStyle: true,
		Credentials:      credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, ""),
		HTTPClient:       &http.Client{Transport: rt, Timeout: 30 * time.Second},
		RetryMaxAttempts: attempts,
	})
}

// ready asks a node's readiness check.
func ready(url string) int {
	resp, err := http.Get(url + "/health/ready")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// load is a steady stream of writes from 8 clients that do not retry,
// so that every answer the node gives is seen.
type load struct {
	seen   *answers
	urls   []string // the nodes' (or their balancer's)
	mu     sync.Mutex
	acked  map[string][]byte
	others []error
	stop   atomic.Bool
	last   atomic.Int64 // unix nanos of the latest success
	wg     sync.WaitGroup
}

// startLoad writes through urls, the workers spread over them.
func startLoad(t *testing.T, urls ...string) *load {
	t.Helper()
	ctx := context.Background()
	l := &load{urls: urls, seen: &answers{inner: http.DefaultTransport, status: map[int]int{}}, acked: map[string][]byte{}}
	if _, err := client(urls[0], l.seen, 1).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	for w := range 8 {
		l.wg.Add(1)
		raw := client(urls[w%len(urls)], l.seen, 1)
		go func() {
			defer l.wg.Done()
			for i := 0; !l.stop.Load(); i++ {
				key, body := fmt.Sprintf("w%d/%06d", w, i), []byte(fmt.Sprintf("body of w%d/%d", w, i))
				_, err := raw.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String(key), Body: bytes.NewReader(body)})
				var re *smithyhttp.ResponseError
				switch {
				case err == nil:
					l.mu.Lock()
					l.acked[key] = body
					l.mu.Unlock()
					l.last.Store(time.Now().UnixNano())
				case errors.As(err, &re) && re.HTTPStatusCode() == http.StatusServiceUnavailable:
					time.Sleep(50 * time.Millisecond)
				default:
					l.mu.Lock()
					l.others = append(l.others, err)
					l.mu.Unlock()
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(time.Second)
	return l
}

// serving waits for a write that succeeded after since, and tells how
// long after since it came.
func (l *load) serving(t *testing.T, since time.Time, within time.Duration) time.Duration {
	t.Helper()
	for l.last.Load() < since.UnixNano() {
		if time.Since(since) > within {
			t.Fatalf("no write succeeded within %v; answers %v", within, l.seen.counts())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Unix(0, l.last.Load()).Sub(since)
}

// finish stops the load and checks what the clients met: 200s and 503s
// with Retry-After only, a ready node, and every acknowledged write there.
func (l *load) finish(t *testing.T) {
	t.Helper()
	time.Sleep(time.Second)
	l.stop.Store(true)
	l.wg.Wait()
	if len(l.others) > 0 {
		t.Errorf("%d answers other than 200 and 503, the first: %v", len(l.others), l.others[0])
	}
	if l.seen.status[http.StatusInternalServerError] > 0 || l.seen.noRetry > 0 {
		t.Errorf("answers %v; 503s without Retry-After: %d", l.seen.counts(), l.seen.noRetry)
	}
	for _, u := range l.urls {
		if code := ready(u); code != http.StatusOK {
			t.Errorf("/health/ready of %s = %d after the catalog came back", u, code)
		}
	}
	reader := client(l.urls[0], http.DefaultTransport, 5)
	for key, body := range l.acked {
		out, err := reader.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("bkt"), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("acknowledged %s: %v", key, err)
		}
		got, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if !bytes.Equal(got, body) {
			t.Fatalf("acknowledged %s reads %q", key, got)
		}
	}
}

// Under a steady load of writes, the catalog's server is restarted
// (sessions ended) or killed and started again. While it is away clients
// get 503 with Retry-After, never a 500 (an SDK retries those); the
// readiness check says so; the node serves again soon after the server
// is back, with no restart of its own; and every write it acknowledged
// is there afterwards.
func TestCatalogLostAndBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(t *testing.T, pg *testenv.PGServer, srv *nodetest.Server)
	}{
		{"restart", func(t *testing.T, pg *testenv.PGServer, srv *nodetest.Server) { pg.Restart("fast") }},
		{"kill", func(t *testing.T, pg *testenv.PGServer, srv *nodetest.Server) {
			pg.Kill()
			// The balancer's check drains the node while its catalog
			// is away (it caches its answer for a second).
			deadline := time.Now().Add(5 * time.Second)
			for ready(srv.URL) != http.StatusServiceUnavailable {
				if time.Now().After(deadline) {
					t.Error("/health/ready said ready with the catalog down")
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			pg.Start()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg := testenv.PrivatePostgres(t)
			srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.Catalog = pg.URL() }})
			l := startLoad(t, srv.URL)
			tc.fault(t, pg, srv)
			back := time.Now()
			pg.WaitReady(30 * time.Second)
			recovered := l.serving(t, back, 10*time.Second)
			l.finish(t)
			t.Logf("%s: answers %v, %d writes acknowledged and read back, serving %v after the catalog's return",
				tc.name, l.seen.counts(), len(l.acked), recovered.Round(time.Millisecond))
		})
	}
}
