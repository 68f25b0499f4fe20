package security_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// tally counts a client's answers: successes, SlowDowns with a
// Retry-After, and anything else.
type tally struct {
	inner                 http.RoundTripper
	ok, slow, bare, other atomic.Int64
	counting              atomic.Bool
}

func (c *tally) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.inner.RoundTrip(r)
	if err != nil || !c.counting.Load() {
		return resp, err
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		c.ok.Add(1)
	case resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") != "":
		c.slow.Add(1)
	case resp.StatusCode == http.StatusServiceUnavailable:
		c.bare.Add(1)
	default:
		c.other.Add(1)
	}
	return resp, err
}

// A tenant sold 20 requests a second gets about that much, through one
// node or spread over three, and SlowDown with Retry-After beyond it (as
// AWS throttles); a neighbour without a limit is never refused meanwhile.
// The margins are wide for a shared machine: bench/ measures the rate
// itself.
func TestTenantRequestRate(t *testing.T) {
	for _, nodes := range []int{1, 3} {
		t.Run(map[int]string{1: "one node", 3: "three nodes"}[nodes], func(t *testing.T) {
			first := start(t, nodetest.Options{})
			servers := []*nodetest.Server{first}
			for range nodes - 1 {
				servers = append(servers, nodetest.StartPeer(t, first, nodetest.Options{}))
			}
			ctx := context.Background()
			slow, quick := newUser(t, first, "slow", "u", "admin"), newUser(t, first, "quick", "u", "admin")
			const limit, seconds = 20, 4
			if err := adminClient(first).Do(ctx, "PUT", "/tenants/slow/quotas", admin.Quota{RequestsPerSec: limit}, nil); err != nil {
				t.Fatal(err)
			}
			clients := func(c creds, tl *tally) []*s3.Client {
				var out []*s3.Client
				for _, srv := range servers {
					out = append(out, s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
						Credentials: credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, ""),
						HTTPClient:  &http.Client{Transport: tl}, RetryMaxAttempts: 1}))
				}
				return out
			}
			slowT, quickT := &tally{inner: http.DefaultTransport}, &tally{inner: http.DefaultTransport}
			slowC, quickC := clients(slow, slowT), clients(quick, quickT)
			for _, c := range []*s3.Client{slowC[0], quickC[0]} {
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("b-" + map[*s3.Client]string{slowC[0]: "slow", quickC[0]: "quick"}[c])}); err == nil {
						break
					} else if time.Now().After(deadline) {
						t.Fatal(err)
					}
				}
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			run := func(cs []*s3.Client, bucket string, workers int) {
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						c := cs[w%len(cs)]
						for !stop.Load() {
							c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
						}
					}()
				}
			}
			run(slowC, "b-slow", 6)
			run(quickC, "b-quick", 2)
			time.Sleep(2 * time.Second) // the limit reaches every node, the shares settle
			slowT.counting.Store(true)
			quickT.counting.Store(true)
			time.Sleep(seconds * time.Second)
			slowT.counting.Store(false)
			quickT.counting.Store(false)
			stop.Store(true)
			wg.Wait()
			got := slowT.ok.Load()
			t.Logf("%d node(s): the limited tenant had %d successes in %d s (limit %d/s), %d SlowDowns; its neighbour %d successes",
				nodes, got, seconds, limit, slowT.slow.Load(), quickT.ok.Load())
			if got < limit*seconds*6/10 || got > limit*seconds*14/10 {
				t.Errorf("the limited tenant had %d successes in %d s, want about %d", got, seconds, limit*seconds)
			}
			if slowT.slow.Load() == 0 || slowT.bare.Load() > 0 || slowT.other.Load() > 0 {
				t.Errorf("the limited tenant's refusals: %d SlowDown with Retry-After, %d without, %d other",
					slowT.slow.Load(), slowT.bare.Load(), slowT.other.Load())
			}
			// The provider sees the refusals.
			resp, err := http.Get(first.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := regexp.MustCompile(`s3_unavailable_total\{reason="rate_limited"\} ([0-9.e+]+)`).FindSubmatch(page); m == nil || string(m[1]) == "0" {
				t.Errorf("/metrics counts no rate-limited request: %q", m)
			}
			if quickT.slow.Load()+quickT.bare.Load()+quickT.other.Load() > 0 || quickT.ok.Load() < got {
				t.Errorf("the neighbour was refused %d times and served %d", quickT.slow.Load()+quickT.bare.Load()+quickT.other.Load(), quickT.ok.Load())
			}
		})
	}
}

// A tenant's bandwidth is paced, not refused: an upload and a download of
// 512 KiB at 128 KiB/s each take at least the three seconds and more the
// limit allows them (after its first tenth of a second's burst), and
// arrive whole.
func TestTenantBandwidth(t *testing.T) {
	srv := start(t, nodetest.Options{})
	ctx := context.Background()
	c := newUser(t, srv, "paced", "u", "admin")
	const rate, size = 128 << 10, 512 << 10
	if err := adminClient(srv).Do(ctx, "PUT", "/tenants/paced/quotas", admin.Quota{BytesInPerSec: rate, BytesOutPerSec: rate}, nil); err != nil {
		t.Fatal(err)
	}
	cl := sdk(srv, c)
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("paced")}); err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	began := time.Now()
	if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("paced"), Key: aws.String("k"), Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
	up := time.Since(began)
	began = time.Now()
	out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("paced"), Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(out.Body)
	out.Body.Close()
	down := time.Since(began)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	t.Logf("512 KiB at 128 KiB/s: up %v, down %v", up.Round(time.Millisecond), down.Round(time.Millisecond))
	if least := 3 * time.Second; up < least || down < least {
		t.Errorf("up %v, down %v: faster than the bandwidth allows (at least %v)", up, down, least)
	}
}
