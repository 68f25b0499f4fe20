package s3_test

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// TestListEncodingURL pins what encoding-type=url returns, as AWS: form
// encoding with "/" left alone in Key, CommonPrefixes, Prefix, Delimiter,
// V1's Marker and NextMarker and V2's StartAfter; V2's continuation
// tokens are opaque and never encoded. botocore decodes every one of those
// but V1's Prefix, so an encoded "/" reached boto3 users as "%2F".
func TestListEncodingURL(t *testing.T) {
	c, bucket, srv := setup(t)
	for _, k := range []string{"foo/a b", "foo/a+b", "foo/sub/x", "foo/100%", "zz"} {
		put(t, c, bucket, k, []byte(k))
	}
	type entry struct {
		Key string `xml:"Key"`
	}
	type result struct {
		Prefix, Delimiter, Marker, NextMarker, StartAfter string
		ContinuationToken, NextContinuationToken          string
		EncodingType                                      string
		Contents                                          []entry
		CommonPrefixes                                    []struct{ Prefix string }
	}
	list := func(q url.Values) result {
		t.Helper()
		status, code, body := send(t, srv, signedRequest(t, srv, "GET", "/"+bucket+"?"+q.Encode(), nil, nil))
		if status != http.StatusOK {
			t.Fatalf("list %v: %d %s", q, status, code)
		}
		var r result
		if err := xml.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	keys := func(r result) (out []string) {
		for _, e := range r.Contents {
			out = append(out, e.Key)
		}
		for _, p := range r.CommonPrefixes {
			out = append(out, "cp:"+p.Prefix)
		}
		return out
	}

	// V1, as boto3's list_objects(Prefix="foo/", Delimiter="/") sends it.
	r := list(url.Values{"prefix": {"foo/"}, "delimiter": {"/"}, "encoding-type": {"url"}, "marker": {"foo/100%"}, "max-keys": {"2"}})
	if r.Prefix != "foo/" || r.Delimiter != "/" || r.Marker != "foo/100%25" || r.EncodingType != "url" {
		t.Fatalf("V1 echoes: %+v", r)
	}
	if got, want := keys(r), []string{"foo/a+b", "foo/a%2Bb"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("V1 keys %q, want %q", got, want)
	}
	if r.NextMarker != "foo/a%2Bb" {
		t.Fatalf("V1 NextMarker %q", r.NextMarker)
	}
	r = list(url.Values{"prefix": {"foo/"}, "delimiter": {"/"}, "encoding-type": {"url"}, "marker": {"foo/a+b"}})
	if got, want := keys(r), []string{"cp:foo/sub/"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("V1 common prefixes %q, want %q", got, want)
	}

	// V2: StartAfter encoded; the token comes back as given.
	r = list(url.Values{"list-type": {"2"}, "prefix": {"foo/"}, "encoding-type": {"url"}, "start-after": {"foo/a b"}, "max-keys": {"1"}})
	if r.Prefix != "foo/" || r.StartAfter != "foo/a+b" || !reflect.DeepEqual(keys(r), []string{"foo/a%2Bb"}) {
		t.Fatalf("V2: %+v", r)
	}
	tok := r.NextContinuationToken
	r = list(url.Values{"list-type": {"2"}, "prefix": {"foo/"}, "encoding-type": {"url"}, "continuation-token": {tok}})
	if r.ContinuationToken != tok || !reflect.DeepEqual(keys(r), []string{"foo/sub/x"}) {
		t.Fatalf("V2 next page: %+v", r)
	}

	// The SDK hands the encoded values through; decoding gives the keys.
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("foo/"), EncodingType: types.EncodingTypeUrl})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range out.Contents {
		k, err := url.QueryUnescape(*o.Key)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k)
	}
	if want := []string{"foo/100%", "foo/a b", "foo/a+b", "foo/sub/x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded keys %q, want %q", got, want)
	}
}

var _ = errors.As
var _ smithy.APIError
var _ = strings.Contains
