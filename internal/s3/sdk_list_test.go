package s3_test

import (
	"context"
	"net/url"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// keys in UTF-8 byte order, the order S3 lists in.
var listKeys = []string{
	"a", "a b", "a+b", "a/1", "a/2", "a/b/c", "b", "c/x", "c/y/z", "z", "~", "é", "ö/1", "日本",
}

func fill(t *testing.T, c *s3.Client, bucket string) {
	for _, k := range listKeys {
		put(t, c, bucket, k, []byte(k))
	}
}

func TestListObjectsV2(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	fill(t, c, bucket)
	// Paging one key at a time walks every key in byte order.
	var got []string
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, MaxKeys: aws.Int32(1)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			got = append(got, *o.Key)
		}
	}
	if !reflect.DeepEqual(got, listKeys) {
		t.Fatalf("keys\n got %q\nwant %q", got, listKeys)
	}

	// Delimiter with paging: common prefixes count once and are not
	// repeated across pages.
	var keys, prefixes []string
	p = s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Delimiter: aws.String("/"), MaxKeys: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(page.Contents) + len(page.CommonPrefixes); n > 2 || int32(n) != *page.KeyCount {
			t.Fatalf("page of %d entries, KeyCount %d", n, *page.KeyCount)
		}
		for _, o := range page.Contents {
			keys = append(keys, *o.Key)
		}
		for _, cp := range page.CommonPrefixes {
			prefixes = append(prefixes, *cp.Prefix)
		}
	}
	wantKeys := []string{"a", "a b", "a+b", "b", "z", "~", "é", "日本"}
	wantPrefixes := []string{"a/", "c/", "ö/"}
	if !reflect.DeepEqual(keys, wantKeys) || !reflect.DeepEqual(prefixes, wantPrefixes) {
		t.Fatalf("delimited: keys %q prefixes %q", keys, prefixes)
	}

	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("a/"), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 2 || len(out.CommonPrefixes) != 1 || *out.CommonPrefixes[0].Prefix != "a/b/" {
		t.Fatalf("prefix a/: %+v", out)
	}
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, StartAfter: aws.String("z"), FetchOwner: aws.Bool(true)})
	if err != nil || len(out.Contents) != 4 || out.Contents[0].Owner == nil || *out.Contents[0].Key != "~" {
		t.Fatalf("start-after z: %v %+v", err, out.Contents)
	}
	out, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("a "), EncodingType: types.EncodingTypeUrl})
	if err != nil || len(out.Contents) != 1 {
		t.Fatalf("encoding-type=url: %v %+v", err, out)
	}
	if k, _ := url.QueryUnescape(*out.Contents[0].Key); k != "a b" {
		t.Fatalf("url-encoded key %q", *out.Contents[0].Key)
	}
	_, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("missing-bucket")})
	wantCode(t, err, "NoSuchBucket")
}

func TestListObjectsV1(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	fill(t, c, bucket)
	var got []string
	marker := ""
	for {
		out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: &bucket, Marker: &marker, MaxKeys: aws.Int32(3)})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			got = append(got, *o.Key)
		}
		if !*out.IsTruncated {
			break
		}
		marker = got[len(got)-1]
	}
	if !reflect.DeepEqual(got, listKeys) {
		t.Fatalf("V1 keys %q", got)
	}
	out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: &bucket, Delimiter: aws.String("/"), MaxKeys: aws.Int32(4)})
	if err != nil || !*out.IsTruncated || out.NextMarker == nil || *out.NextMarker != "a/" {
		t.Fatalf("V1 NextMarker with delimiter: %v %+v", err, out)
	}
}

func TestListObjectVersions(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	fill(t, c, bucket)
	var got []string
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: &bucket, MaxKeys: aws.Int32(5)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Versions {
			if *v.VersionId != "null" || !*v.IsLatest {
				t.Fatalf("unversioned bucket shows version %q latest %v", *v.VersionId, *v.IsLatest)
			}
			got = append(got, *v.Key)
		}
	}
	if !reflect.DeepEqual(got, listKeys) {
		t.Fatalf("versions %q", got)
	}
}
