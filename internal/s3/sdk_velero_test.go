package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// TestVeleroFlow is what Velero's AWS object store plugin does with a
// bucket, through aws-sdk-go-v2 with its defaults (a CRC32 trailer on
// every upload, aws-chunked over TLS): backups written (the tarball in
// parts), backups found by listing with a delimiter, their files looked
// up, fetched by presigned GET (velero backup download/logs), and a
// backup deleted key by key: on a plain bucket, on a versioned one, where
// the deletes leave every version, and on one with object lock and a
// default retention, where no version can be deleted either.
func TestVeleroFlow(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		c, bucket, srv := setup(t)
		veleroFlow(t, c, srv, bucket, false, false)
	})
	t.Run("versioned", func(t *testing.T) {
		c, bucket, srv := setup(t)
		if _, err := c.PutBucketVersioning(context.Background(), &s3.PutBucketVersioningInput{Bucket: &bucket,
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
		veleroFlow(t, c, srv, bucket, true, false)
	})
	t.Run("object lock", func(t *testing.T) {
		srv := nodetest.Start(t, nodetest.Options{TLS: true})
		c := client(t, srv, srv.URL, false)
		ctx := context.Background()
		bucket := "velero-locked"
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket, ObjectLockEnabledForBucket: aws.Bool(true)}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: &bucket,
			ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
				Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeGovernance, Days: aws.Int32(1)}}}}); err != nil {
			t.Fatal(err)
		}
		veleroFlow(t, c, srv, bucket, true, true)
	})
}

func veleroFlow(t *testing.T, c *s3.Client, srv *nodetest.Server, bucket string, versioned, locked bool) {
	ctx := context.Background()
	files := func(name string) map[string][]byte {
		return map[string][]byte{
			"backups/" + name + "/velero-backup.json":                    []byte(`{"kind":"Backup","metadata":{"name":"` + name + `"}}`),
			"backups/" + name + "/" + name + "-logs.gz":                  randBytes(40_000, 71),
			"backups/" + name + "/" + name + "-resource-list.json.gz":    randBytes(900, 72),
			"backups/" + name + "/" + name + "-podvolumebackups.json.gz": nil,
		}
	}
	tarball := randBytes(11<<20+5, 73) // in 5 MiB parts, as the plugin's uploader sends it
	for _, name := range []string{"nightly-1", "nightly-2"} {
		for k, v := range files(name) {
			out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(k), Body: bytes.NewReader(v)})
			if err != nil {
				t.Fatalf("put %s: %v", k, err)
			}
			if out.ChecksumCRC32 == nil || *out.ChecksumCRC32 != crc32b64(v) {
				t.Fatalf("put %s: CRC32 %v, want the trailer's %s", k, out.ChecksumCRC32, crc32b64(v))
			}
		}
		key := "backups/" + name + "/" + name + ".tar.gz"
		cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key, ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
		if err != nil {
			t.Fatal(err)
		}
		var parts []types.CompletedPart
		for i := 0; i*(5<<20) < len(tarball); i++ {
			chunk := tarball[i*(5<<20) : min((i+1)*(5<<20), len(tarball))]
			up, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
				PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(chunk), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32})
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: up.ETag, ChecksumCRC32: up.ChecksumCRC32})
		}
		if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: cu.UploadId,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
			t.Fatal(err)
		}
	}
	// Velero finds backups as the common prefixes under backups/.
	lo, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("backups/"), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	var prefixes []string
	for _, p := range lo.CommonPrefixes {
		prefixes = append(prefixes, *p.Prefix)
	}
	if want := []string{"backups/nightly-1/", "backups/nightly-2/"}; !reflect.DeepEqual(prefixes, want) || len(lo.Contents) != 0 {
		t.Fatalf("backups listed %q (+%d keys), want %q", prefixes, len(lo.Contents), want)
	}
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: aws.String("backups/nightly-1/velero-backup.json")}); err != nil {
		t.Fatalf("ObjectExists: %v", err)
	}
	// velero backup download: a presigned GET, fetched by a plain client.
	ps := s3.NewPresignClient(c)
	req, err := ps.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: aws.String("backups/nightly-1/nightly-1.tar.gz")},
		s3.WithPresignExpires(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Get(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, tarball) {
		t.Fatalf("presigned GET: %d, %d bytes", resp.StatusCode, len(got))
	}
	// velero backup delete: every key under the backup's prefix.
	lo, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("backups/nightly-1/")})
	if err != nil || len(lo.Contents) != 5 {
		t.Fatalf("backup's keys: %v %d", err, len(lo.Contents))
	}
	for _, o := range lo.Contents {
		if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key}); err != nil {
			t.Fatalf("delete %s: %v", *o.Key, err)
		}
	}
	lo, err = c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String("backups/"), Delimiter: aws.String("/")})
	if err != nil || len(lo.CommonPrefixes) != 1 || *lo.CommonPrefixes[0].Prefix != "backups/nightly-2/" {
		t.Fatalf("after delete: %v %+v", err, lo)
	}
	if b := get(t, c, bucket, "backups/nightly-2/nightly-2.tar.gz"); !bytes.Equal(b, tarball) {
		t.Fatal("the other backup changed")
	}
	if !versioned {
		return
	}
	// On a versioned bucket the deletes wrote delete markers: every
	// version stays; under object lock none can be deleted before its
	// retention ends.
	lv, err := c.ListObjectVersions(ctx, &s3.ListObjectVersionsInput{Bucket: &bucket, Prefix: aws.String("backups/nightly-1/")})
	if err != nil || len(lv.Versions) != 5 || len(lv.DeleteMarkers) != 5 {
		t.Fatalf("versions after delete: %v %d versions %d markers", err, len(lv.Versions), len(lv.DeleteMarkers))
	}
	for _, v := range lv.Versions {
		if locked {
			_, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: v.Key, VersionId: v.VersionId})
			wantCode(t, err, "AccessDenied")
		}
		if strings.HasSuffix(*v.Key, ".tar.gz") {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: v.Key, VersionId: v.VersionId})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(out.Body)
			out.Body.Close()
			if !bytes.Equal(b, tarball) {
				t.Fatal("the locked tarball's version does not read back")
			}
		}
	}
}
