package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
)

func setQuota(t *testing.T, ten *tenancy, q admin.Quota) {
	t.Helper()
	if err := ten.admin.Do(context.Background(), "PUT", "/tenants/"+q.Tenant+"/quotas", q, nil); err != nil {
		t.Fatalf("set quota %+v: %v", q, err)
	}
}

// A write that would cross a quota fails with QuotaExceeded (Ceph RGW's
// code; AWS has no quotas) and stores nothing; PUT, copy and UploadPart
// alike (the parts of open uploads are stored bytes). Writes that do not
// grow usage still pass.
func TestQuotaRefusesWritesThatCrossIt(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	// acme-bob holds "k" (16 bytes).
	setQuota(t, ten, admin.Quota{Tenant: "acme", MaxBytes: 1000})
	put(t, bob, "acme-bob", "fits", make([]byte, 900))
	_, err := bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("over"), Body: bytes.NewReader(make([]byte, 200))})
	wantCode(t, err, "QuotaExceeded")
	_, err = bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("over")})
	wantCode(t, err, "NoSuchKey")
	_, err = bob.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("copy"), CopySource: aws.String("acme-bob/fits")})
	wantCode(t, err, "QuotaExceeded")

	// A part is stored bytes: one that would cross the quota is refused
	// and leaves no blob; one that fits takes room from other writes; its
	// completion does not count it twice.
	up, err := bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	blobs := blobFiles(t, ten.srv.Dir)
	_, err = bob.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(make([]byte, 300))})
	wantCode(t, err, "QuotaExceeded")
	if after := blobFiles(t, ten.srv.Dir); after != blobs {
		t.Fatalf("a refused part left blobs behind: %d before, %d after", blobs, after)
	}
	parts, err := bob.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId})
	if err != nil || len(parts.Parts) != 0 {
		t.Fatalf("parts after a refused part: %v %v", parts, err)
	}
	part, err := bob.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(make([]byte, 50))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("over"), Body: bytes.NewReader(make([]byte, 50))})
	wantCode(t, err, "QuotaExceeded")
	_, err = bob.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil {
		t.Fatalf("complete an upload whose parts were counted already: %v", err)
	}
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp")}); err != nil {
		t.Fatal(err)
	}
	// Aborting gives the room back.
	up, err = bob.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(make([]byte, 84))}); err != nil {
		t.Fatal(err)
	}
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("over"), Body: bytes.NewReader(make([]byte, 1))})
	wantCode(t, err, "QuotaExceeded")
	if _, err := bob.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String("acme-bob"), Key: aws.String("mp"), UploadId: up.UploadId}); err != nil {
		t.Fatal(err)
	}
	put(t, bob, "acme-bob", "over", make([]byte, 84))
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("over")}); err != nil {
		t.Fatal(err)
	}

	// Shrinking passes; so does the freed room, and another tenant.
	put(t, bob, "acme-bob", "fits", make([]byte, 100))
	put(t, bob, "acme-bob", "now-fits", make([]byte, 200))
	put(t, ten.clients["carl"], "beta-carl", "big", make([]byte, 5000))

	// A bucket quota counts objects in that bucket only.
	setQuota(t, ten, admin.Quota{Tenant: "acme", Bucket: "acme-bob", MaxObjects: 3})
	put(t, bob, "acme-bob", "k", []byte("replaced, not added"))
	_, err = bob.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-bob"), Key: aws.String("fourth"), Body: bytes.NewReader(nil)})
	wantCode(t, err, "QuotaExceeded")
	if err := ten.admin.Do(ctx, "PUT", "/tenants/acme/quotas", admin.Quota{Bucket: "beta-carl", MaxObjects: 1}, nil); err == nil {
		t.Fatal("a quota on another tenant's bucket was accepted")
	}
}

// Concurrent uploads cannot overshoot a quota by more than the uploads in
// flight, and together they fill it.
func TestQuotaUnderConcurrentUploads(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	const quota, writers, each = 20, 8, 10
	setQuota(t, ten, admin.Quota{Tenant: "beta", MaxObjects: quota})
	carl := ten.clients["carl"]
	var wg sync.WaitGroup
	var mu sync.Mutex
	stored, refused := 0, 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := carl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("beta-carl"), Key: aws.String(fmt.Sprintf("w%d-%d", w, i)),
					Body: bytes.NewReader([]byte("x"))})
				mu.Lock()
				switch code := apiCode(err); {
				case err == nil:
					stored++
				case code == "QuotaExceeded":
					refused++
				default:
					t.Errorf("put: %v", err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// beta-carl already held "k".
	total := stored + 1
	if total < quota || total > quota+writers-1 {
		t.Fatalf("%d objects stored under a quota of %d with %d writers (refused %d)", total, quota, writers, refused)
	}
	listed, err := carl.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("beta-carl")})
	if err != nil || int(*listed.KeyCount) != total {
		t.Fatalf("listed %v objects, acknowledged %d (%v)", listed.KeyCount, total, err)
	}
}

// blobFiles counts the files of a node's local blob store.
func blobFiles(t *testing.T, dataDir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dataDir, "blobs"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
