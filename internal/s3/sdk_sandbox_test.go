package s3_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// objectAnswers fetches key of bucket every way a browser or a client
// can have it answered, and returns each way's response headers: GET and
// HEAD signed in headers, presigned GET and HEAD, a presigned GET with a
// response-content-type override (text/html, and image/png), a version
// by id, a range, and an anonymous GET (the object is public-read).
func objectAnswers(t *testing.T, srv *nodetest.Server, c *s3.Client, bucket, key, version string) map[string]http.Header {
	t.Helper()
	ctx := context.Background()
	out := map[string]http.Header{}
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	g.Body.Close()
	out["GET"] = rawHeader(g.ResultMetadata)
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	out["HEAD"] = rawHeader(h.ResultMetadata)
	gv, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, VersionId: &version, Range: aws.String("bytes=0-3")})
	if err != nil {
		t.Fatalf("get %s version %s: %v", key, version, err)
	}
	gv.Body.Close()
	out["GET version, range"] = rawHeader(gv.ResultMetadata)

	ps := s3.NewPresignClient(c)
	fetch := func(name, method, u string) {
		t.Helper()
		req, _ := http.NewRequest(method, u, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", name, resp.StatusCode)
		}
		out[name] = resp.Header
	}
	pg, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatal(err)
	}
	fetch("presigned GET", "GET", pg.URL)
	ph, err := ps.PresignHeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatal(err)
	}
	fetch("presigned HEAD", "HEAD", ph.URL)
	for _, ct := range []string{"text/html", "image/png"} {
		po, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key, ResponseContentType: aws.String(ct)})
		if err != nil {
			t.Fatal(err)
		}
		fetch("presigned GET as "+ct, "GET", po.URL)
	}
	fetch("anonymous GET", "GET", srv.URL+"/"+bucket+"/"+key)
	return out
}

// TestObjectAnswersSandboxActiveContent: every answer of an object (GET,
// HEAD, presigned, a version, a range, public) carries
// X-Content-Type-Options: nosniff, and one whose Content-Type a browser
// renders actively (HTML, SVG, text, no type) carries
// Content-Security-Policy: sandbox, so a tenant's page never runs script
// with an origin of the node; passive types (images but SVG, PDF, media,
// octet-stream) are left as AWS sends them. A response-content-type
// override decides by the type the browser gets, either way.
func TestObjectAnswersSandboxActiveContent(t *testing.T) {
	const bucket = "pages"
	c, srv := nodeWithBucket(t, nodetest.Options{TLS: true, Config: func(c *node.Config) { c.BucketDefaults = node.BucketDefaultsLegacy }}, bucket)
	ctx := context.Background()
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, ct string
		active  bool
	}{
		{"page.html", "text/html; charset=utf-8", true},
		{"pic.svg", "image/svg+xml", true},
		{"note.txt", "text/plain", true},
		{"doc.xhtml", "application/xhtml+xml", true},
		{"data.xml", "Application/XML", true},
		{"odd", "not a type", true},
		{"photo.png", "image/png", false},
		{"paper.pdf", "application/pdf", false},
		{"clip.mp4", "video/mp4", false},
		{"blob.bin", "application/octet-stream", false},
	} {
		put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(tc.key), ContentType: aws.String(tc.ct),
			Body: strings.NewReader("<html><script>parent.x=1</script></html>"), ACL: types.ObjectCannedACLPublicRead})
		if err != nil {
			t.Fatalf("put %s: %v", tc.key, err)
		}
		for way, h := range objectAnswers(t, srv, c, bucket, tc.key, *put.VersionId) {
			if h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s: X-Content-Type-Options %q, want nosniff", way, tc.key, h.Get("X-Content-Type-Options"))
			}
			active := tc.active
			switch {
			case strings.HasSuffix(way, "text/html"):
				active = true
			case strings.HasSuffix(way, "image/png"):
				active = false
			}
			if got := h.Get("Content-Security-Policy"); active && got != "sandbox" || !active && got != "" {
				t.Errorf("%s %s (%s): Content-Security-Policy %q, want sandbox=%v", way, tc.key, h.Get("Content-Type"), got, active)
			}
		}
	}
	// Stored with no type, an object is answered binary/octet-stream,
	// which is on no passive list: sandboxed too.
	resp, err := srv.Client().Do(untypedPut(t, c, bucket, "untyped"))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("untyped put: %v %v", resp, err)
	}
	resp.Body.Close()
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("untyped")})
	if err != nil {
		t.Fatal(err)
	}
	g.Body.Close()
	if h := rawHeader(g.ResultMetadata); h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("untyped object: %v", h)
	}
}

// untypedPut is a presigned PUT of key with no Content-Type at all (the
// SDK would send one).
func untypedPut(t *testing.T, c *s3.Client, bucket, key string) *http.Request {
	t.Helper()
	p, err := s3.NewPresignClient(c).PresignPutObject(context.Background(), &s3.PutObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("PUT", p.URL, strings.NewReader("<svg onload=alert(1)>"))
	req.Header.Del("Content-Type")
	return req
}

// TestObjectAnswersUnsandboxed: with sandbox_active_objects: false (a
// console on a host name of its own) a page is answered as AWS answers
// it, with no policy; nosniff stays.
func TestObjectAnswersUnsandboxed(t *testing.T) {
	off := false
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true, Config: func(c *node.Config) { c.SandboxActiveObjects = &off }}, "pages")
	ctx := context.Background()
	put(t, c, "pages", "page.html", []byte("<script>1</script>"))
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("pages"), Key: aws.String("page.html"), ResponseContentType: aws.String("text/html")})
	if err != nil {
		t.Fatal(err)
	}
	g.Body.Close()
	if h := rawHeader(g.ResultMetadata); h.Get("Content-Security-Policy") != "" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Type") != "text/html" {
		t.Errorf("unsandboxed page: %v", h)
	}
}
