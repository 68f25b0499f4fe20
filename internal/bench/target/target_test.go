package target_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Against a real node, over both addressing styles and two endpoints:
// what Put writes, Get verifies byte for byte.
func TestAgainstANode(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Domains: []string{"s3.test"}})
	ctx := context.Background()
	for _, virtual := range []bool{false, true} {
		t.Run(fmt.Sprintf("virtual=%v", virtual), func(t *testing.T) {
			endpoints := []string{srv.URL, srv.URL + "/api/v1/s3"}
			if virtual {
				// bench.s3.test:PORT, dialled to the node's address.
				endpoints = []string{"http://s3.test" + srv.URL[strings.LastIndexByte(srv.URL, ':'):]}
			}
			addr := srv.Listener.Addr().String()
			tg, err := target.New(target.Config{Endpoints: endpoints, VirtualHost: virtual,
				AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey, LeastOutstanding: true,
				Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, network, addr)
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if err := tg.CreateBucket(ctx, "bench"); err != nil {
				t.Fatal(err)
			}
			if err := tg.CreateBucket(ctx, "bench"); err != nil {
				t.Fatalf("creating an owned bucket again: %v", err)
			}
			for _, size := range []int64{0, 1, 4096, 3 << 20} {
				key := fmt.Sprintf("dir/obj %d", size)
				if res, err := tg.Put(ctx, "bench", key, size); err != nil || res.Bytes != size {
					t.Fatalf("put %d: %v %+v", size, err, res)
				}
				if res, err := tg.Get(ctx, "bench", key, size, true); err != nil || res.Bytes != size || res.TTFB <= 0 {
					t.Fatalf("get %d: %v %+v", size, err, res)
				}
			}
			// Verification catches an object that is not what its name says.
			if _, err := tg.Get(ctx, "bench", "dir/obj 4096", 4095, true); err == nil {
				t.Fatal("a wrong size verified")
			}
			// A multipart upload of three parts reads back as one object.
			if res, err := tg.Multipart(ctx, "bench", "mp", 12<<20, 5<<20); err != nil || res.Bytes != 12<<20 {
				t.Fatalf("multipart: %v %+v", err, res)
			}
			if _, err := tg.Get(ctx, "bench", "mp", -1, true); err != nil {
				t.Fatalf("multipart object does not verify: %v", err)
			}
			if _, err := tg.Delete(ctx, "bench", "mp"); err != nil {
				t.Fatal(err)
			}
			if _, err := tg.Head(ctx, "bench", "dir/obj 1"); err != nil {
				t.Fatal(err)
			}
			if _, err := tg.List(ctx, "bench", "dir/"); err != nil {
				t.Fatal(err)
			}
			for _, size := range []int64{0, 1, 4096, 3 << 20} {
				if _, err := tg.Delete(ctx, "bench", fmt.Sprintf("dir/obj %d", size)); err != nil {
					t.Fatal(err)
				}
			}
			_, err = tg.Get(ctx, "bench", "dir/obj 1", 1, false)
			var se *target.Error
			if !errors.As(err, &se) || se.Code != "NoSuchKey" {
				t.Fatalf("get after delete: %v", err)
			}
			if err := tg.DeleteBucket(ctx, "bench"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
