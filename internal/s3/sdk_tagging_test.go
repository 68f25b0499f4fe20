package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func tagSet(kv ...string) []types.Tag {
	out := make([]types.Tag, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

// tagsString is a tag set as "k=v,k=v" in the order given.
func tagsString(ts []types.Tag) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(aws.ToString(t.Key) + "=" + aws.ToString(t.Value))
	}
	return b.String()
}

func objectTags(t *testing.T, c *s3.Client, bucket, key string) string {
	t.Helper()
	out, err := c.GetObjectTagging(context.Background(), &s3.GetObjectTaggingInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("GetObjectTagging %s: %v", key, err)
	}
	return tagsString(out.TagSet)
}

func putTags(c *s3.Client, bucket, key string, ts []types.Tag) error {
	_, err := c.PutObjectTagging(context.Background(), &s3.PutObjectTaggingInput{Bucket: &bucket, Key: &key, Tagging: &types.Tagging{TagSet: ts}})
	return err
}

// tagCount is the x-amz-tagging-count HEAD answers, 0 when absent.
func tagCount(t *testing.T, c *s3.Client, bucket, key string) int32 {
	t.Helper()
	h, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("HEAD %s: %v", key, err)
	}
	return aws.ToInt32(h.TagCount)
}

// Put/Get/DeleteObjectTagging on the null version, as AWS: tags come
// back in key order, an untagged object has an empty TagSet, an empty
// set removes them, and the object's bytes and metadata stay.
func TestObjectTagging(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	put(t, c, bucket, "k", []byte("tagged data"))
	if got := objectTags(t, c, bucket, "k"); got != "" {
		t.Fatalf("untagged object: %q", got)
	}
	if err := putTags(c, bucket, "k", tagSet("Project", "blue", "Größe", "ü ß", "empty", "", "a:b/c=d+e-f@g_h.i", "x")); err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "k"); got != "Größe=ü ß,Project=blue,a:b/c=d+e-f@g_h.i=x,empty=" {
		t.Fatalf("tags = %q", got)
	}
	if n := tagCount(t, c, bucket, "k"); n != 4 {
		t.Fatalf("x-amz-tagging-count = %d", n)
	}
	if string(get(t, c, bucket, "k")) != "tagged data" {
		t.Fatal("tagging changed the bytes")
	}
	// The null version by name; an unversioned bucket names no version.
	out, err := c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &bucket, Key: aws.String("k"), VersionId: aws.String("null")})
	if err != nil || len(out.TagSet) != 4 || out.VersionId != nil {
		t.Fatalf("GetObjectTagging of the null version: %+v, %v", out, err)
	}
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &bucket, Key: aws.String("k"), VersionId: aws.String("v-none")})
	wantCode(t, err, "NoSuchVersion")
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &bucket, Key: aws.String("k"), VersionId: aws.String("bad id!")})
	wantCode(t, err, "InvalidArgument")
	if err := putTags(c, bucket, "k", tagSet()); err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "k"); got != "" {
		t.Fatalf("after an empty set: %q", got)
	}
	if n := tagCount(t, c, bucket, "k"); n != 0 {
		t.Fatalf("x-amz-tagging-count of an untagged object = %d", n)
	}
	if err := putTags(c, bucket, "k", tagSet("a", "1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: &bucket, Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "k"); got != "" {
		t.Fatalf("after DeleteObjectTagging: %q", got)
	}
	wantCode(t, putTags(c, bucket, "missing", tagSet("a", "1")), "NoSuchKey")
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: &bucket, Key: aws.String("missing")})
	wantCode(t, err, "NoSuchKey")
	_, err = c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: &bucket, Key: aws.String("missing")})
	wantCode(t, err, "NoSuchKey")
	_, err = c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("no-bucket"), Key: aws.String("k")})
	wantCode(t, err, "NoSuchBucket")
	// Writing the object again drops its tags, as AWS.
	if err := putTags(c, bucket, "k", tagSet("a", "1")); err != nil {
		t.Fatal(err)
	}
	put(t, c, bucket, "k", []byte("again"))
	if got := objectTags(t, c, bucket, "k"); got != "" {
		t.Fatalf("a new write kept %q", got)
	}
}

// AWS's limits on object tags, each with AWS's answer: 10 tags (an
// eleventh is BadRequest, as S3 answers it), keys of 1 to 128 and
// values of up to 256 characters counted in UTF-16 (a character beyond
// the BMP counts twice), letters, numbers, spaces and _ . : / = + - @
// only, unique keys, no aws: keys. Nothing is stored when refused.
func TestObjectTagLimits(t *testing.T) {
	c, bucket, srv := setup(t)
	put(t, c, bucket, "k", []byte("x"))
	if err := putTags(c, bucket, "k", tagSet("keep", "me")); err != nil {
		t.Fatal(err)
	}
	var ten, eleven []string
	for i := 0; i < 11; i++ {
		kv := []string{fmt.Sprintf("k%02d", i), "v"}
		if i < 10 {
			ten = append(ten, kv...)
		}
		eleven = append(eleven, kv...)
	}
	astral := "\U00010400" // a letter of two UTF-16 code units
	for _, tc := range []struct {
		name string
		tags []types.Tag
		code string
	}{
		{"ten tags", tagSet(ten...), ""},
		{"eleven tags", tagSet(eleven...), "BadRequest"},
		{"key of 128", tagSet(strings.Repeat("k", 128), "v"), ""},
		{"key of 129", tagSet(strings.Repeat("k", 129), "v"), "InvalidTag"},
		{"key of 64 astral characters", tagSet(strings.Repeat(astral, 64), "v"), ""},
		{"key of 65 astral characters", tagSet(strings.Repeat(astral, 65), "v"), "InvalidTag"},
		{"value of 256", tagSet("k", strings.Repeat("é", 256)), ""},
		{"value of 257", tagSet("k", strings.Repeat("v", 257)), "InvalidTag"},
		{"empty key", tagSet("", "v"), "InvalidTag"},
		{"key with !", tagSet("a!", "v"), "InvalidTag"},
		{"value with *", tagSet("a", "v*"), "InvalidTag"},
		{"aws: key", tagSet("aws:cloudformation:stack", "v"), "InvalidTag"},
		{"AWS: key", tagSet("AWS:x", "v"), "InvalidTag"},
		{"duplicate keys", tagSet("a", "1", "a", "2"), "InvalidTag"},
	} {
		err := putTags(c, bucket, "k", tc.tags)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if apiCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	if got := objectTags(t, c, bucket, "k"); got != "k="+strings.Repeat("é", 256) {
		t.Fatalf("tags after the refusals: %q", got)
	}
	// A document that is not a tag set.
	for _, doc := range []string{
		`<Tagging></Tagging>`,
		`<Other><TagSet></TagSet></Other>`,
		`<Tagging><TagSet><Tag><Value>v</Value></Tag></TagSet></Tagging>`,
		`<Tagging><TagSet><Tag><Key>k</Key></Tag></TagSet></Tagging>`,
		`<Tagging><TagSet>`,
	} {
		resp, err := srv.Client().Do(signedRequest(t, srv, "PUT", "/"+bucket+"/k?tagging", []byte(doc), nil))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: status %d", doc, resp.StatusCode)
		}
	}
}

// x-amz-tagging on PutObject: a URL query ("+" a space, a key without
// "=" the empty value), held to the same limits; a header that is not a
// query of unique keys is InvalidArgument, as AWS answers; GET and HEAD
// count the tags.
func TestObjectTaggingHeader(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	putTagged := func(key, tagging string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader([]byte("data")), Tagging: &tagging})
		return err
	}
	if err := putTagged("k", "b=x+y%2Bz&a=1&c&d="); err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "k"); got != "a=1,b=x y+z,c=,d=" {
		t.Fatalf("tags = %q", got)
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("k")})
	if err != nil {
		t.Fatal(err)
	}
	out.Body.Close()
	if aws.ToInt32(out.TagCount) != 4 {
		t.Fatalf("GET x-amz-tagging-count = %v", out.TagCount)
	}
	if n := tagCount(t, c, bucket, "k"); n != 4 {
		t.Fatalf("HEAD x-amz-tagging-count = %d", n)
	}
	var eleven []string
	for i := 0; i < 11; i++ {
		eleven = append(eleven, fmt.Sprintf("k%d=v", i))
	}
	for tagging, code := range map[string]string{
		"a=1&a=2":                            "InvalidArgument",
		"TagSet=[{Key=string,Value=string}]": "InvalidArgument",
		"a=%zz":                              "InvalidArgument",
		strings.Join(eleven, "&"):            "BadRequest",
		"aws:x=1":                            "InvalidTag",
		"a=" + url.QueryEscape("v*"):         "InvalidTag",
		strings.Repeat("k", 129) + "=v":      "InvalidTag",
	} {
		wantCode(t, putTagged("refused", tagging), code)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("refused")}); apiCode(err) != "NotFound" {
		t.Fatalf("a refused write stored its object: %v", err)
	}
	if err := putTagged("untagged", ""); err != nil {
		t.Fatal(err)
	}
	if n := tagCount(t, c, bucket, "untagged"); n != 0 {
		t.Fatalf("count of an untagged object: %d", n)
	}
}

// x-amz-tagging-directive on CopyObject: COPY (the default) keeps the
// source's tags whatever x-amz-tagging says, REPLACE takes the header's
// (none when it is absent), anything else is InvalidArgument.
func TestCopyTaggingDirective(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("src"), Body: bytes.NewReader([]byte("data")), Tagging: aws.String("a=1&b=2")}); err != nil {
		t.Fatal(err)
	}
	cp := func(key string, directive types.TaggingDirective, tagging string) error {
		in := &s3.CopyObjectInput{Bucket: &bucket, Key: &key, CopySource: aws.String(bucket + "/src"), TaggingDirective: directive}
		if tagging != "-" {
			in.Tagging = &tagging
		}
		_, err := c.CopyObject(ctx, in)
		return err
	}
	for _, tc := range []struct {
		key, directive, tagging, want string
	}{
		{"default", "", "-", "a=1,b=2"},
		{"copy", "COPY", "c=3", "a=1,b=2"},
		{"replace", "REPLACE", "c=3", "c=3"},
		{"replace-none", "REPLACE", "-", ""},
	} {
		if err := cp(tc.key, types.TaggingDirective(tc.directive), tc.tagging); err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		if got := objectTags(t, c, bucket, tc.key); got != tc.want {
			t.Errorf("%s: tags %q, want %q", tc.key, got, tc.want)
		}
	}
	wantCode(t, cp("bad", "MOVE", "-"), "InvalidArgument")
	wantCode(t, cp("bad", "REPLACE", "aws:x=1"), "InvalidTag")
	// Retagging an object by copying it onto itself with new metadata.
	_, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: &bucket, Key: aws.String("src"), CopySource: aws.String(bucket + "/src"),
		MetadataDirective: types.MetadataDirectiveReplace, TaggingDirective: types.TaggingDirectiveReplace, Tagging: aws.String("z=26")})
	if err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "src"); got != "z=26" {
		t.Fatalf("self copy: %q", got)
	}
}

// x-amz-tagging on CreateMultipartUpload: the completed object carries
// the upload's tags.
func TestMultipartTagging(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	_, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), Tagging: aws.String("aws:x=1")})
	wantCode(t, err, "InvalidTag")
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), Tagging: aws.String("stage=raw&team=data")})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader([]byte("part one"))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := objectTags(t, c, bucket, "mp"); got != "stage=raw,team=data" {
		t.Fatalf("completed object's tags: %q", got)
	}
	if n := tagCount(t, c, bucket, "mp"); n != 2 {
		t.Fatalf("x-amz-tagging-count = %d", n)
	}
}

// Put/Get/DeleteBucketTagging, as AWS: a bucket without tags is 404
// NoSuchTagSet, tags come back as put, at most 50 with unique keys and
// none of aws:.
func TestBucketTagging(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	get := func() ([]types.Tag, error) {
		out, err := c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: &bucket})
		if err != nil {
			return nil, err
		}
		return out.TagSet, nil
	}
	putB := func(ts []types.Tag) error {
		_, err := c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: &bucket, Tagging: &types.Tagging{TagSet: ts}})
		return err
	}
	_, err := get()
	wantCode(t, err, "NoSuchTagSet")
	if err := putB(tagSet("cost-center", "42", "Owner", "ops team")); err != nil {
		t.Fatal(err)
	}
	if ts, err := get(); err != nil || tagsString(ts) != "cost-center=42,Owner=ops team" {
		t.Fatalf("GetBucketTagging = %q, %v", tagsString(ts), err)
	}
	var fifty, fiftyOne []string
	for i := 0; i < 51; i++ {
		kv := []string{fmt.Sprintf("k%02d", i), "v"}
		if i < 50 {
			fifty = append(fifty, kv...)
		}
		fiftyOne = append(fiftyOne, kv...)
	}
	wantCode(t, putB(tagSet(fiftyOne...)), "InvalidTag")
	wantCode(t, putB(tagSet("aws:createdBy", "x")), "InvalidTag")
	wantCode(t, putB(tagSet("a", "1", "a", "2")), "InvalidTag")
	wantCode(t, putB(tagSet(strings.Repeat("k", 129), "v")), "InvalidTag")
	if ts, _ := get(); len(ts) != 2 {
		t.Fatalf("a refused PutBucketTagging changed the tags: %q", tagsString(ts))
	}
	if err := putB(tagSet(fifty...)); err != nil {
		t.Fatal(err)
	}
	if ts, _ := get(); len(ts) != 50 {
		t.Fatalf("%d tags of 50", len(ts))
	}
	if _, err := c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = get()
	wantCode(t, err, "NoSuchTagSet")
	_, err = c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("no-such-bucket")})
	wantCode(t, err, "NoSuchBucket")
}

// The tag condition keys of a bucket policy over real requests:
// s3:ExistingObjectTag/<key> lets another tenant read only the objects
// tagged so (and see their tag count only with s3:GetObjectTagging);
// s3:RequestObjectTag/<key> and s3:RequestObjectTagKeys hold what a
// write or PutObjectTagging may set; a write with x-amz-tagging needs
// s3:PutObjectTagging too, as on AWS; and a deny on the tags of
// PutObjectTagging's document is decided once the document is read.
func TestTagConditions(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, carl := ten.clients["bob"], ten.clients["carl"]
	const b = "acme-bob"
	policy := func(statements string) {
		t.Helper()
		if err := putPolicy(t, bob, b, `{"Version":"2012-10-17","Statement":[`+statements+`]}`); err != nil {
			t.Fatal(err)
		}
	}
	putTagged := func(c *s3.Client, key, tagging string) error {
		in := &s3.PutObjectInput{Bucket: aws.String(b), Key: &key, Body: bytes.NewReader([]byte("data of " + key))}
		if tagging != "" {
			in.Tagging = &tagging
		}
		_, err := c.PutObject(ctx, in)
		return err
	}
	read := func(c *s3.Client, key string) (*s3.GetObjectOutput, error) {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b), Key: &key})
		if err == nil {
			out.Body.Close()
		}
		return out, err
	}
	for key, tagging := range map[string]string{"public": "Class=public&Team=web", "private": "Class=private", "untagged": ""} {
		if err := putTagged(bob, key, tagging); err != nil {
			t.Fatal(err)
		}
	}

	// s3:ExistingObjectTag/<key>.
	policy(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"StringEquals":{"s3:ExistingObjectTag/Class":"public"}}}`)
	out, err := read(carl, "public")
	if err != nil {
		t.Fatalf("carl reads the public-tagged object: %v", err)
	}
	if out.TagCount != nil {
		t.Fatalf("carl, who may not read tags, is told their count: %d", *out.TagCount)
	}
	for _, key := range []string{"private", "untagged", "absent"} {
		_, err := read(carl, key)
		wantCode(t, err, "AccessDenied")
	}
	if out, err := read(bob, "public"); err != nil || aws.ToInt32(out.TagCount) != 2 {
		t.Fatalf("owner's read: %v, count %v", err, out)
	}
	// Retagged, the object is no longer readable to carl.
	if err := putTags(bob, b, "public", tagSet("Class", "internal")); err != nil {
		t.Fatal(err)
	}
	_, err = read(carl, "public")
	wantCode(t, err, "AccessDenied")
	// The same key gives GetObjectTagging, and the count with it.
	policy(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":["s3:GetObject","s3:GetObjectTagging"],"Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"StringEquals":{"s3:ExistingObjectTag/Class":"private"}}}`)
	if out, err := read(carl, "private"); err != nil || aws.ToInt32(out.TagCount) != 1 {
		t.Fatalf("carl reads private: %v, %+v", err, out)
	}
	if got := objectTags(t, carl, b, "private"); got != "Class=private" {
		t.Fatalf("carl's GetObjectTagging: %q", got)
	}
	_, err = carl.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(b), Key: aws.String("public")})
	wantCode(t, err, "AccessDenied")
	// Naming a version, even "null", is s3:GetObjectVersionTagging, as AWS.
	_, err = carl.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(b), Key: aws.String("private"), VersionId: aws.String("null")})
	wantCode(t, err, "AccessDenied")
	policy(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":["s3:GetObject","s3:GetObjectVersionTagging"],"Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"StringEquals":{"s3:ExistingObjectTag/Class":"private"}}}`)
	if _, err := carl.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(b), Key: aws.String("private"), VersionId: aws.String("null")}); err != nil {
		t.Fatalf("GetObjectTagging of a version with s3:GetObjectVersionTagging: %v", err)
	}
	// A copy source is read as GetObject reads it, tags included.
	_, err = carl.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("copy"), CopySource: aws.String(b + "/private")})
	if err != nil {
		t.Fatalf("carl copies the private-tagged object: %v", err)
	}
	if got := objectTags(t, carl, "beta-carl", "copy"); got != "Class=private" {
		t.Fatalf("the copy's tags: %q", got)
	}
	_, err = carl.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String("copy2"), CopySource: aws.String(b + "/public")})
	wantCode(t, err, "AccessDenied")

	// s3:RequestObjectTag/<key> and s3:RequestObjectTagKeys.
	policy(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":["s3:PutObject","s3:PutObjectTagging"],"Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"StringEquals":{"s3:RequestObjectTag/Project":"blue"},"ForAllValues:StringEquals":{"s3:RequestObjectTagKeys":["Project","Owner"]}}}`)
	for tagging, code := range map[string]string{
		"Project=blue":           "",
		"Project=blue&Owner=cy":  "",
		"Project=red":            "AccessDenied",
		"Project=blue&Cost=1":    "AccessDenied",
		"Owner=cy":               "AccessDenied",
		"":                       "AccessDenied",
		"Project=blue&aws:bad=1": "InvalidTag",
	} {
		if got := apiCode(putTagged(carl, "by-carl", tagging)); got != code {
			t.Errorf("carl writes with tags %q: %q, want %q", tagging, got, code)
		}
	}
	wantCode(t, putTags(carl, b, "by-carl", tagSet("Project", "blue", "Owner", "carl")), "")
	wantCode(t, putTags(carl, b, "by-carl", tagSet("Project", "green")), "AccessDenied")
	_, err = carl.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(b), Key: aws.String("by-carl"), VersionId: aws.String("null"),
		Tagging: &types.Tagging{TagSet: tagSet("Project", "blue")}})
	wantCode(t, err, "AccessDenied") // s3:PutObjectVersionTagging is not granted
	wantCode(t, putTags(carl, b, "by-carl", tagSet("Project", "blue", "Cost", "1")), "AccessDenied")
	if got := objectTags(t, bob, b, "by-carl"); got != "Owner=carl,Project=blue" {
		t.Fatalf("by-carl's tags: %q", got)
	}

	// A write with tags needs s3:PutObjectTagging besides s3:PutObject.
	policy(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:root"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::acme-bob/*"}`)
	if err := putTagged(carl, "plain", ""); err != nil {
		t.Fatalf("carl's untagged write: %v", err)
	}
	wantCode(t, putTagged(carl, "plain", "Project=blue"), "AccessDenied")
	_, err = carl.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(b), Key: aws.String("mp"), Tagging: aws.String("a=1")})
	wantCode(t, err, "AccessDenied")
	_, err = carl.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String(b), Key: aws.String("copy"), CopySource: aws.String("beta-carl/k"),
		TaggingDirective: types.TaggingDirectiveReplace, Tagging: aws.String("a=1")})
	wantCode(t, err, "AccessDenied")

	// A deny on the document's tags binds even the owner, once the
	// document is read: the tags it allows pass.
	policy(`{"Effect":"Deny","Principal":"*","Action":"s3:PutObjectTagging","Resource":"arn:aws:s3:::acme-bob/*",
		"Condition":{"StringNotEquals":{"s3:RequestObjectTag/Class":["public","private"]}}}`)
	wantCode(t, putTags(bob, b, "untagged", tagSet("Class", "secret")), "AccessDenied")
	wantCode(t, putTags(bob, b, "untagged", tagSet("Team", "web")), "AccessDenied")
	if err := putTags(bob, b, "untagged", tagSet("Class", "public")); err != nil {
		t.Fatalf("owner's allowed tags: %v", err)
	}
	wantCode(t, putTagged(bob, "other", "Class=secret"), "AccessDenied")
	if err := putTagged(bob, "other", "Class=private"); err != nil {
		t.Fatalf("owner's write with allowed tags: %v", err)
	}
	if _, err := bob.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String(b)}); err != nil {
		t.Fatal(err)
	}
}

// Tagging is a tenant's own business: another tenant can neither read
// nor change an object's or a bucket's tags without a grant, and a
// read-only application credential cannot change them.
func TestTaggingIsolation(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	carl, ro := ten.clients["carl"], ten.clients["app-ro"]
	if err := putTags(ten.clients["bob"], "acme-bob", "k", tagSet("a", "1")); err != nil {
		t.Fatal(err)
	}
	_, err := carl.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String("acme-bob"), Key: aws.String("k")})
	wantCode(t, err, "AccessDenied")
	wantCode(t, putTags(carl, "acme-bob", "k", tagSet("a", "2")), "AccessDenied")
	_, err = carl.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String("acme-bob"), Key: aws.String("k")})
	wantCode(t, err, "AccessDenied")
	_, err = carl.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String("acme-bob"), Tagging: &types.Tagging{TagSet: tagSet("a", "1")}})
	wantCode(t, err, "AccessDenied")
	_, err = carl.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "AccessDenied")
	if got := objectTags(t, ro, "acme-bob", "k"); got != "a=1" {
		t.Fatalf("read-only credential reads tags: %q", got)
	}
	wantCode(t, putTags(ro, "acme-bob", "k", tagSet("a", "3")), "AccessDenied")
	if got := objectTags(t, ten.clients["ann"], "acme-bob", "k"); got != "a=1" {
		t.Fatalf("tags after the refusals: %q", got)
	}
	// An anonymous PutObjectTagging is refused before its document is read.
	req, _ := http.NewRequest("PUT", ten.srv.URL+"/acme-bob/k?tagging", strings.NewReader(`<Tagging><TagSet></TagSet></Tagging>`))
	resp, err := ten.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("anonymous PutObjectTagging: %d", resp.StatusCode)
	}
}

// A presigned PUT sets tags: from the x-amz-tagging header it signed
// (aws-sdk-go-v2's presigner), or from the query parameter other
// presigners hoist the header into, which the signature covers as it
// covers the whole query.
func TestPresignedTagging(t *testing.T) {
	c, bucket, srv := setup(t)
	ctx := context.Background()
	pre, err := s3.NewPresignClient(c).PresignPutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("by-header"), Tagging: aws.String("a=1")})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(pre.Method, pre.URL, strings.NewReader("x"))
	for k, vs := range pre.SignedHeader {
		if !strings.EqualFold(k, "host") {
			req.Header[k] = vs
		}
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("presigned PUT with its tagging header: %d", resp.StatusCode)
	}
	if got := objectTags(t, c, bucket, "by-header"); got != "a=1" {
		t.Fatalf("tags by header: %q", got)
	}

	u := srv.URL + "/" + bucket + "/by-query?X-Amz-Expires=300&x-amz-tagging=" + url.QueryEscape("b=2&c=x y")
	req, _ = http.NewRequest("PUT", u, nil)
	creds := aws.Credentials{AccessKeyID: nodetest.AccessKey, SecretAccessKey: nodetest.SecretKey}
	signed, _, err := v4.NewSigner().PresignHTTP(ctx, creds, req, "UNSIGNED-PAYLOAD", "s3", "us-east-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req, _ = http.NewRequest("PUT", signed, strings.NewReader("y"))
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("presigned PUT with x-amz-tagging in its query: %d %q", resp.StatusCode, b)
	}
	if got := objectTags(t, c, bucket, "by-query"); got != "b=2,c=x y" {
		t.Fatalf("tags by query: %q", got)
	}
	// The hoisted tags are signed: changing them breaks the signature.
	req, _ = http.NewRequest("PUT", strings.Replace(signed, "b%3D2", "b%3D3", 1), strings.NewReader("z"))
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("tampered tags: %d", resp.StatusCode)
	}
}
