package s3_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node/nodetest"
	s3srv "github.com/ostiumio/ostium/internal/s3"
)

// The fuzz targets of the request surface. Each asserts an invariant
// for any input: no panic, and no 5xx-class answer to what a client
// sent (501 NotImplemented excepted: it is AWS's answer for a feature
// not offered). Seeds live in testdata/fuzz/<target>; run one with
//   go test ./internal/s3 -run '^$' -fuzz '^FuzzParseRoute$' -fuzztime 20s

// clientError reports whether status is an answer to a client's
// request that is not the server's failure.
func clientError(status int) bool {
	return status == 0 || status == 501 || status >= 400 && status < 500
}

// FuzzParseRoute routes any method, host and target, and applies the
// honoured table to any header: a route is an operation with a handler,
// or a refusal with a client's status.
func FuzzParseRoute(f *testing.F) {
	for _, s := range []struct{ method, host, target, header string }{
		{"GET", "localhost", "/", ""},
		{"PUT", "b.s3.example.com", "/k/ey?acl", "x-amz-acl: private"},
		{"POST", "localhost", "/api/v1/s3/b?delete", ""},
		{"PUT", "localhost", "/b/k?partNumber=1&uploadId=x", "x-amz-copy-source: /b/src"},
		{"GET", "localhost", "/b/k?versionId=null&response-content-type=a", ""},
		{"PUT", "localhost", "/b/k", "x-amz-storage-class: GLACIER"},
		{"DELETE", "[::1]:9000", "/b?policy", ""},
		{"HEAD", "b.s3.example.com:443", "/", "x-amz-server-side-encryption-customer-key: a"},
	} {
		f.Add(s.method, s.host, s.target, s.header, false)
	}
	f.Fuzz(func(t *testing.T, method, host, target, header string, anonymous bool) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return // net/http answers 400 before any handler
		}
		req := &http.Request{Method: method, Host: host, URL: u, Header: http.Header{}}
		for _, line := range strings.Split(header, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
		op, status, code := s3srv.ParseRoute(req, []string{"s3.example.com"}, anonymous)
		if !clientError(status) {
			t.Fatalf("%s %s %q: %d %s", method, target, header, status, code)
		}
		if status == 0 && op == "Unknown" {
			t.Fatalf("%s %s: routed to no operation", method, target)
		}
	})
}

// FuzzXMLDocuments feeds any body (and digest headers) to every
// document decoder the endpoint has: each answers with a client's error
// or decodes, and never panics.
func FuzzXMLDocuments(f *testing.F) {
	for i, doc := range []string{
		"<Delete><Object><Key>a</Key><VersionId>null</VersionId></Object><Quiet>true</Quiet></Delete>",
		`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"e"</ETag></Part></CompleteMultipartUpload>`,
		`<AccessControlPolicy><AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Group"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>`,
		"<OwnershipControls><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>",
		"<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlockConfiguration>",
		"<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>",
		`{"Version":"2012-10-17","Statement":[]}`,
		"<Delete><Object><Key>a</Key></Obj",
		"<!DOCTYPE x [<!ENTITY a \"aaaa\">]><Delete><Object><Key>&a;</Key></Object></Delete>",
	} {
		f.Add(uint8(i), []byte(doc), "", false)
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte, md5 string, chunked bool) {
		op := s3srv.DocumentOps[int(which)%len(s3srv.DocumentOps)]
		h := http.Header{}
		if md5 != "" {
			h.Set("Content-Md5", md5)
		}
		status, code := s3srv.DecodeDocument(op, body, h, chunked)
		if !clientError(status) {
			t.Fatalf("%s %q: %d %s", op, body, status, code)
		}
	})
}

var getSizes = []int{0, 1, 1000, 40 << 10} // empty, inline, a blob

// fuzzNode starts a node for a GET target, with bucket "fuzz" holding an
// object of each of getSizes ("o<size>"), and returns their ETags.
func fuzzNode(f *testing.F) (*nodetest.Server, map[int]string) {
	srv := nodetest.Start(f, nodetest.Options{})
	c := client(f, srv, srv.URL, false)
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("fuzz")}); err != nil {
		f.Fatal(err)
	}
	etags := map[int]string{}
	for _, n := range getSizes {
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("fuzz"),
			Key: aws.String("o" + strconv.Itoa(n)), Body: strings.NewReader(strings.Repeat("x", n))})
		if err != nil {
			f.Fatal(err)
		}
		etags[n] = *out.ETag
	}
	return srv, etags
}

// fuzzGet sends a root-signed GET of the object of size n with h.
func fuzzGet(t testing.TB, srv *nodetest.Server, n int, h http.Header) (*http.Response, []byte) {
	req := signedRequest(t, srv, "GET", "/fuzz/o"+strconv.Itoa(n), nil, h)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	return resp, body
}

// FuzzRangeGet: any Range header on objects of several sizes is served
// whole (200), in part (206, with a Content-Range inside the object and
// the body it names) or refused as unsatisfiable (416).
func FuzzRangeGet(f *testing.F) {
	for _, r := range []string{"bytes=0-0", "bytes=-1", "bytes=5-", "bytes=0-99999999", "bytes=-0", "bytes=1-0",
		"bytes=0-1,3-4", "bytes= 2-3", "items=0-1", "bytes=99999999999999999999-", "bytes=-9223372036854775808"} {
		f.Add(r, uint8(2))
	}
	srv, _ := fuzzNode(f)
	f.Fuzz(func(t *testing.T, rng string, which uint8) {
		if !validHeaderValue(rng) {
			return
		}
		n := getSizes[int(which)%len(getSizes)]
		resp, body := fuzzGet(t, srv, n, http.Header{"Range": {rng}})
		switch resp.StatusCode {
		case 200:
			if len(body) != n {
				t.Fatalf("%q: 200 with %d bytes of %d", rng, len(body), n)
			}
		case 206:
			cr := resp.Header.Get("Content-Range")
			var first, last, size int
			if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &first, &last, &size); err != nil {
				t.Fatalf("%q: Content-Range %q", rng, cr)
			}
			if size != n || first < 0 || last < first || last >= n || len(body) != last-first+1 {
				t.Fatalf("%q on %d bytes: Content-Range %q, %d bytes", rng, n, cr, len(body))
			}
		case 416:
		default:
			t.Fatalf("%q on %d bytes: %d %s", rng, n, resp.StatusCode, body)
		}
	})
}

// FuzzConditionalGet: any If-* headers get 200, 304 or 412, and the
// object's own ETag in If-Match always passes.
func FuzzConditionalGet(f *testing.F) {
	f.Add(`"x"`, "", "", "", false)
	f.Add("*", "*", "Mon, 02 Jan 2006 15:04:05 GMT", "", true)
	f.Add("", `W/"x", "y"`, "", "Sun, 06 Nov 1994 08:49:37 GMT", false)
	f.Add("", "", "garbage", "Mon, 02 Jan 3006 15:04:05 GMT", true)
	srv, etags := fuzzNode(f)
	f.Fuzz(func(t *testing.T, ifMatch, ifNoneMatch, ims, ius string, ownETag bool) {
		h := http.Header{}
		for k, v := range map[string]string{"If-Match": ifMatch, "If-None-Match": ifNoneMatch, "If-Modified-Since": ims, "If-Unmodified-Since": ius} {
			if !validHeaderValue(v) {
				return
			}
			if v != "" {
				h.Set(k, v)
			}
		}
		if ownETag {
			h.Set("If-Match", etags[1000])
		}
		resp, body := fuzzGet(t, srv, 1000, h)
		switch resp.StatusCode {
		case 200, 304:
		case 412:
			if ownETag {
				t.Fatalf("own ETag refused: %v", h)
			}
		default:
			t.Fatalf("%v: %d %s", h, resp.StatusCode, body)
		}
	})
}

// validHeaderValue reports whether net/http would send v as a header
// value at all.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
			return false
		}
	}
	return strings.TrimSpace(v) == v
}
