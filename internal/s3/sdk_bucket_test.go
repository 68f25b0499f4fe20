package s3_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestBuckets(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()

	// As AWS in us-east-1: creating a bucket you own again is
	// BucketAlreadyOwnedByYou.
	_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	wantCode(t, err, "BucketAlreadyOwnedByYou")

	for _, bad := range []string{"ab", "UPPER", "a..b", "-abc", "192.168.1.1", "xn--abc", "abc-s3alias", "has_underscore"} {
		_, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bad)})
		wantCode(t, err, "InvalidBucketName")
	}

	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("head bucket: %v", err)
	}
	_, err = c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("no-such-bucket")})
	if err == nil {
		t.Fatal("head of a missing bucket succeeded")
	}

	loc, err := c.GetBucketLocation(ctx, &s3.GetBucketLocationInput{Bucket: aws.String(bucket)})
	if err != nil || loc.LocationConstraint != "" {
		t.Fatalf("location: %v %q (us-east-1 is reported empty, as AWS)", err, loc.LocationConstraint)
	}

	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("second-bucket")}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list.Buckets {
		names = append(names, *b.Name)
	}
	if len(names) != 2 || names[0] != "second-bucket" || names[1] != bucket {
		t.Fatalf("buckets = %v, want sorted [second-bucket %s]", names, bucket)
	}

	put(t, c, bucket, "k", []byte("x"))
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
	wantCode(t, err, "BucketNotEmpty")
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("delete empty bucket: %v", err)
	}
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
	wantCode(t, err, "NoSuchBucket")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("k")})
	wantCode(t, err, "NoSuchBucket")
}

// An upload in progress keeps a bucket from being deleted, as in S3.
// As AWS: open multipart uploads do not keep a bucket (objects do);
// deleting it aborts them. (Ostium refused with BucketNotEmpty before.)
func TestDeleteBucketWithUpload(t *testing.T) {
	c, bucket, _ := setup(t)
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: aws.String("m")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: aws.String("m"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("part")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String("o"), Body: strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket})
	wantCode(t, err, "BucketNotEmpty")
	if _, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: aws.String("m"), UploadId: up.UploadId}); err != nil {
		t.Fatalf("a refused DeleteBucket touched the upload: %v", err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String("o")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: &bucket}); err != nil {
		t.Fatalf("delete a bucket holding only an upload: %v", err)
	}
	_, err = c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	wantCode(t, err, "NoSuchBucket")
	// A bucket of the same name starts empty: the upload is gone for good.
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ListParts(ctx, &s3.ListPartsInput{Bucket: &bucket, Key: aws.String("m"), UploadId: up.UploadId})
	wantCode(t, err, "NoSuchUpload")
}
