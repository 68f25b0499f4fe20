package target_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// --sse: every object the generator writes is encrypted as asked, and
// reads (SSE-C's with the key) verify; a malformed setting is refused
// before anything is sent.
func TestSSE(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.SSE.COverHTTP = true }})
	ctx := context.Background()
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	for _, sse := range []string{"sse-s3", "sse-kms", "sse-c:" + key} {
		tg, err := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey, SSE: sse})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.CreateBucket(ctx, "bench"); err != nil {
			t.Fatal(err)
		}
		for _, obj := range []struct {
			name string
			put  func() error
		}{
			{"single", func() error { _, err := tg.Put(ctx, "bench", sse+"/single", 100<<10); return err }},
			{"multipart", func() error { _, err := tg.Multipart(ctx, "bench", sse+"/multipart", 6<<20, 5<<20); return err }},
		} {
			if err := obj.put(); err != nil {
				t.Fatalf("%s %s: %v", sse, obj.name, err)
			}
			if _, err := tg.Get(ctx, "bench", sse+"/"+obj.name, -1, true); err != nil {
				t.Fatalf("%s %s: read: %v", sse, obj.name, err)
			}
			// The node says it is encrypted as asked.
			resp, done, err := tg.Do(ctx, target.Request{Method: http.MethodHead, Bucket: "bench", Key: sse + "/" + obj.name, Header: sseCHeader(sse)})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			done()
			got := resp.Header.Get("X-Amz-Server-Side-Encryption")
			if resp.Header.Get("X-Amz-Server-Side-Encryption-Customer-Algorithm") != "" {
				got = "sse-c"
			}
			want := map[string]string{"sse-s3": "AES256", "sse-kms": "aws:kms"}[sse]
			if strings.HasPrefix(sse, "sse-c") {
				want = "sse-c"
			}
			if got != want {
				t.Errorf("%s %s: stored as %q", sse, obj.name, got)
			}
		}
		tg.Close()
	}
	for _, bad := range []string{"sse-x", "sse-c", "sse-c:c2hvcnQ="} {
		if _, err := target.New(target.Config{Endpoints: []string{srv.URL}, SSE: bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// sseCHeader is SSE-C's key headers for a HEAD by hand.
func sseCHeader(sse string) http.Header {
	arg, ok := strings.CutPrefix(sse, "sse-c:")
	if !ok {
		return nil
	}
	k, _ := base64.StdEncoding.DecodeString(arg)
	h := http.Header{}
	h.Set("X-Amz-Server-Side-Encryption-Customer-Algorithm", "AES256")
	h.Set("X-Amz-Server-Side-Encryption-Customer-Key", arg)
	h.Set("X-Amz-Server-Side-Encryption-Customer-Key-Md5", md5b64(k))
	return h
}

func md5b64(b []byte) string {
	s := md5.Sum(b)
	return base64.StdEncoding.EncodeToString(s[:])
}
