package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// onPlatform starts an S3 platform (an Ostium node on local disk) and a
// gateway node storing on it, with n objects of size bytes written
// through the gateway and as many written to the platform directly. It
// returns targets for the platform itself (the ceiling), the platform
// behind a bare TCP relay (one extra hop that does nothing, the floor of
// any gateway's cost) and the gateway.
// The gateway keeps no object in its catalog (inline_max 0): every
// request reaches the platform, which is what these benchmarks measure.
func onPlatform(b *testing.B, size, n int) (direct, hop, gateway *target) {
	remote := nodetest.Start(b, nodetest.Options{})
	noInline := int64(0)
	gw := nodetest.Start(b, nodetest.Options{Config: func(c *node.Config) {
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"p": {Type: platform.TypeS3, InlineMax: &noInline, S3: s3blob.Config{Endpoint: remote.URL, AccessKey: nodetest.AccessKey,
				SecretKey: nodetest.SecretKey, PathStyle: true, Bucket: "ostium-gateway", ETagIsMD5: true}},
		}
		c.DefaultPlatform = "p"
	}})
	body := bytes.Repeat([]byte("o"), size)
	ctx := context.Background()
	for _, t := range []*target{newTarget(remote.URL), newTarget(gw.URL)} {
		if _, err := t.do(ctx, http.MethodPut, "/bench", nil); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			if _, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/obj-%06d", i), body); err != nil {
				b.Fatal(err)
			}
		}
	}
	return newTarget(remote.URL), newTarget(relay(b, remote.Listener.Addr().String())), newTarget(gw.URL)
}

// relay forwards TCP connections to addr and returns its URL. Go copies
// between TCP connections with splice(2), so the relay's cost is that of
// the hop itself: what a gateway's extra copies cost on this machine.
func relay(b *testing.B, addr string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				p, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer p.Close()
				go func() { io.Copy(p, c); p.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, p)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// getBench and putBench run GETs of objects of size bytes, and PUTs of
// them, against the platform directly (target=ceiling) and through a
// gateway storing on it (target=ostium), in one run; target=hop is the
// platform behind a relay.
func getBench(b *testing.B, size, objects int) {
	get := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			return t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%int64(objects)), nil)
		}
	}
	direct, hop, gateway := onPlatform(b, size, objects)
	compare(b, get(direct), get(hop), get(gateway))
}

func putBench(b *testing.B, size int) {
	body := bytes.Repeat([]byte("p"), size)
	put := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			_, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/put-%09d", i%64), body)
			return int64(len(body)), err
		}
	}
	direct, hop, gateway := onPlatform(b, 0, 0)
	compare(b, put(direct), put(hop), put(gateway))
}

func compare(b *testing.B, direct, hop, gateway func(context.Context, int64) (int64, error)) {
	b.Run("target=ceiling", func(b *testing.B) { run(b, direct) })
	b.Run("target=hop", func(b *testing.B) { run(b, hop) })
	b.Run("target=ostium", func(b *testing.B) { run(b, gateway) })
}

// BenchmarkGet4KiBPlatform and BenchmarkPut4KiBPlatform: small objects,
// where the gateway's cost per request shows.
func BenchmarkGet4KiBPlatform(b *testing.B) { getBench(b, 4<<10, 256) }
func BenchmarkPut4KiBPlatform(b *testing.B) { putBench(b, 4<<10) }

// BenchmarkGet10MiBPlatform and BenchmarkPut10MiBPlatform: large
// objects, where the gateway's cost per byte shows.
func BenchmarkGet10MiBPlatform(b *testing.B) { getBench(b, 10<<20, 16) }
func BenchmarkPut10MiBPlatform(b *testing.B) { putBench(b, 10<<20) }
