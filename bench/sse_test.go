package bench

// The cost of encryption at rest: the same node, in the same run, PUTs
// and GETs plain objects, SSE-S3 objects and SSE-C objects, and serves
// 1 MiB range GETs from a 1 GiB object of each kind. The figures are
// reported per kind; bench/chart -base plain draws each kind as a ratio
// of plain (the goals: at least 0.95 for 4 KiB, 0.9 for 1 MiB and
// larger and for the ranges).
//
//	go test -run '^$' -bench SSE -benchtime 3s ./bench
//
// Each figure comes with cpu-us/op, the process's CPU per operation
// (clients and node): on a loaded machine the rates of one run drift
// apart more than the CPU each kind costs does, so the ratio of the CPU
// figures is the steadier one (docs/encryption.md, "Speed").
//
// SSE-C goes over plain HTTP here with the node's test-only
// sse_c_over_http (a provider runs it behind TLS); TLS would cost every
// kind alike and measure the TLS stack, not the encryption.

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// sseRounds interleaves the kinds: each is measured this many times, in
// turn with the others, so that a shared machine's drift falls on every
// kind alike (go test -count would run one kind's repetitions in a row).
const sseRounds = 3

// eachKind runs f for every kind, sseRounds times over.
func eachKind(b *testing.B, f func(b *testing.B, name string, h http.Header)) {
	for range sseRounds {
		for _, k := range sseKinds {
			b.Run("target="+k.name, func(b *testing.B) { f(b, k.name, k.header) })
		}
	}
}

// sseKinds are the settings compared, plain first (the base).
var sseKinds = []struct {
	name   string
	header http.Header
}{
	{"plain", nil},
	{"sse-s3", http.Header{"X-Amz-Server-Side-Encryption": {"AES256"}}},
	{"sse-c", ssecHeader(bytes.Repeat([]byte{7}, 32))},
}

func ssecHeader(key []byte) http.Header {
	sum := md5.Sum(key)
	return http.Header{
		"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"},
		"X-Amz-Server-Side-Encryption-Customer-Key":       {base64.StdEncoding.EncodeToString(key)},
		"X-Amz-Server-Side-Encryption-Customer-Key-Md5":   {base64.StdEncoding.EncodeToString(sum[:])},
	}
}

// sseNode is one node for every kind of a benchmark, with an SSE-C
// friendly configuration and a bucket.
func sseNode(b *testing.B) *target {
	srv := nodetest.Start(b, nodetest.Options{Config: func(c *node.Config) { c.SSE.COverHTTP = true }})
	t := newTarget(srv.URL)
	if _, err := t.do(context.Background(), http.MethodPut, "/bench", nil); err != nil {
		b.Fatal(err)
	}
	return t
}

// doH is target.do with extra headers, signed like the SDKs sign them.
func (t *target) doH(ctx context.Context, method, path string, body []byte, h http.Header) (int64, error) {
	return t.doWith(ctx, method, path, body, func(r *http.Request) {
		for k, vs := range h {
			r.Header[k] = vs
		}
	})
}

// fill puts n objects of size bytes of each kind (keys KIND/obj-N).
func fill(b *testing.B, t *target, size, n int) {
	body := bytes.Repeat([]byte("o"), size)
	for _, k := range sseKinds {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		sem := make(chan struct{}, 4)
		for i := range n {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if _, err := t.doH(context.Background(), http.MethodPut, fmt.Sprintf("/bench/%s/obj-%06d", k.name, i), body, k.header); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
}

func benchSSEPut(b *testing.B, size, keys int) {
	t := sseNode(b)
	body := bytes.Repeat([]byte("p"), size)
	eachKind(b, func(b *testing.B, name string, h http.Header) {
		run(b, func(ctx context.Context, i int64) (int64, error) {
			// Large objects overwrite a few keys, so that the disk holds
			// what the collector has not yet freed, not b.N objects.
			key := i
			if keys > 0 {
				key = i % int64(keys)
			}
			_, err := t.doH(ctx, http.MethodPut, fmt.Sprintf("/bench/%s/put-%09d", name, key), body, h)
			return int64(size), err
		})
	})
}

func benchSSEGet(b *testing.B, size, objects int) {
	t := sseNode(b)
	fill(b, t, size, objects)
	eachKind(b, func(b *testing.B, name string, h http.Header) {
		run(b, func(ctx context.Context, i int64) (int64, error) {
			return t.doH(ctx, http.MethodGet, fmt.Sprintf("/bench/%s/obj-%06d", name, i%int64(objects)), nil, h)
		})
	})
}

func BenchmarkSSEPut4KiB(b *testing.B)   { benchSSEPut(b, 4<<10, 0) }
func BenchmarkSSEGet4KiB(b *testing.B)   { benchSSEGet(b, 4<<10, 256) }
func BenchmarkSSEPut1MiB(b *testing.B)   { benchSSEPut(b, 1<<20, 0) }
func BenchmarkSSEGet1MiB(b *testing.B)   { benchSSEGet(b, 1<<20, 64) }
func BenchmarkSSEPut100MiB(b *testing.B) { benchSSEPut(b, 100<<20, 16) }
func BenchmarkSSEGet100MiB(b *testing.B) { benchSSEGet(b, 100<<20, 4) }

// BenchmarkSSERange1MiB: 1 MiB range GETs at random offsets of a 1 GiB
// object of each kind; an encrypted range reads and opens only the
// segments that hold it.
func BenchmarkSSERange1MiB(b *testing.B) {
	const size, span = 1 << 30, 1 << 20
	t := sseNode(b)
	body := bytes.Repeat([]byte("r"), size)
	for _, k := range sseKinds {
		if _, err := t.doH(context.Background(), http.MethodPut, "/bench/"+k.name+"/big", body, k.header); err != nil {
			b.Fatal(err)
		}
	}
	body = nil
	eachKind(b, func(b *testing.B, name string, h http.Header) {
		run(b, func(ctx context.Context, i int64) (int64, error) {
			off := rand.Int64N(size - span)
			return t.doWith(ctx, http.MethodGet, "/bench/"+name+"/big", nil, func(r *http.Request) {
				for k, vs := range h {
					r.Header[k] = vs
				}
				r.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+span-1))
			})
		})
	})
}
