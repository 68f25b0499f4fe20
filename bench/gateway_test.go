// Package bench measures the gateway against a ceiling taken in the same
// run: a bare net/http server on loopback that answers the same signed
// requests without storing anything. Figures are reported as ops/s and
// MiB/s next to that ceiling, and as a ratio of it, because the machines
// are shared and absolute numbers drift from run to run.
//
//	go test -run '^$' -bench . -benchtime 5s ./bench
//
// bench/run.sh runs this and draws the chart.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// clients is the number of concurrent clients the targets in
// bench/README.md are set for.
const clients = 16

// target is an S3 endpoint with a client that signs like the SDKs do.
type target struct {
	url    string
	http   *http.Client
	signer *v4.Signer
	creds  aws.Credentials
}

func newTarget(url string) *target {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}
	return &target{
		url: url, http: &http.Client{Transport: tr}, signer: v4.NewSigner(),
		creds: aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey},
	}
}

// do sends one signed request and drains the response, returning the bytes
// read.
func (t *target) do(ctx context.Context, method, path string, body []byte) (int64, error) {
	return t.doWith(ctx, method, path, body, nil)
}

// doWith is do with the request adjusted by set (headers) before it is
// signed.
func (t *target) doWith(ctx context.Context, method, path string, body []byte, set func(*http.Request)) (int64, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("x-amz-content-sha256", "UNSIGNED-PAYLOAD")
	if set != nil {
		set(req)
	}
	if err := t.signer.SignHTTP(ctx, t.creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now()); err != nil {
		return 0, err
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return n, err
	}
	if resp.StatusCode/100 != 2 {
		return n, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return n, nil
}

// ceiling is the fastest an S3 server could answer on this machine through
// the same client: net/http that discards uploads and serves from memory.
func ceiling(b *testing.B, size int) *target {
	payload := bytes.Repeat([]byte("x"), size)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut:
			io.Copy(io.Discard, r.Body)
			w.Header().Set("ETag", `"0"`)
		case http.MethodGet:
			w.Header().Set("Content-Length", fmt.Sprint(size))
			w.Write(payload)
		}
	}))
	b.Cleanup(srv.Close)
	return newTarget(srv.URL)
}

// ostium starts a node on embedded defaults (SQLite, local disk: the same
// durable write path as `ostium serve`) with a bucket of n objects of size
// bytes.
func ostium(b *testing.B, size, n int) *target {
	srv := nodetest.Start(b, nodetest.Options{})
	t := newTarget(srv.URL)
	ctx := context.Background()
	if _, err := t.do(ctx, http.MethodPut, "/bench", nil); err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("o"), size)
	for i := range n {
		if _, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/obj-%06d", i), body); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// run drives op from 16 goroutines and reports ops/s and MiB/s.
func run(b *testing.B, op func(ctx context.Context, i int64) (int64, error)) {
	var seq, bytesMoved atomic.Int64
	ctx := context.Background()
	b.SetParallelism((clients + 1) / 2) // GOMAXPROCS is 2 on the target machine
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n, err := op(ctx, seq.Add(1))
			if err != nil {
				b.Error(err)
				return
			}
			bytesMoved.Add(n)
		}
	})
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)/secs, "ops/s")
	// The CPU time the process (clients and node together) spent per
	// operation: on a machine shared with other work a rate moves with
	// the others' load, while this moves far less, so that it compares
	// targets of one run when their rates cannot.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
	}
	if bytesMoved.Load() > 0 {
		b.ReportMetric(float64(bytesMoved.Load())/secs/(1<<20), "MiB/s")
	}
}

func BenchmarkPut4KiB(b *testing.B) {
	body := bytes.Repeat([]byte("p"), 4<<10)
	put := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			_, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/put-%09d", i), body)
			return 0, err
		}
	}
	// Targets are set up once by the parent: sub-benchmarks run several
	// times while the framework finds b.N.
	ceil, ost := put(ceiling(b, 0)), put(ostium(b, 0, 0))
	b.Run("target=ceiling", func(b *testing.B) { run(b, ceil) })
	b.Run("target=ostium", func(b *testing.B) { run(b, ost) })
}

func benchGet(b *testing.B, size int) {
	const objects = 256
	get := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			return t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%objects), nil)
		}
	}
	ceil, ost := get(ceiling(b, size)), get(ostium(b, size, objects))
	b.Run("target=ceiling", func(b *testing.B) { run(b, ceil) })
	b.Run("target=ostium", func(b *testing.B) { run(b, ost) })
}

func BenchmarkGet4KiB(b *testing.B) { benchGet(b, 4<<10) }
func BenchmarkGet1MiB(b *testing.B) { benchGet(b, 1<<20) }

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
