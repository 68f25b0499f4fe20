package catalogtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// wantUsage asserts a bucket's usage and its tenant's (acme's, whose only
// bucket it is).
func wantUsage(t *testing.T, s catalog.Store, bucket string, want catalog.Usage) {
	t.Helper()
	b, err := s.BucketUsage(ctx, bucket)
	must(t, err)
	tn, err := s.TenantUsage(ctx, "acme")
	must(t, err)
	if b != want || tn != want {
		t.Fatalf("usage: bucket %+v, tenant %+v, want %+v", b, tn, want)
	}
}

// The parts of open uploads are stored bytes: they count in the bucket's
// and tenant's bytes (not objects) from UploadPart to the upload's end,
// are sampled for billing, and a completed upload counts once.
func testPartsCountInUsage(t *testing.T, s catalog.Store) {
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o", Tenant: "acme", CreatedAt: time.Now()}))
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "k", UploadID: "up", Initiated: time.Now()}))
	p1, p2 := part(1, 100), part(2, 50)
	must(t, s.PutPart(ctx, "b", "k", "up", p1, catalog.Limits{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 100})
	// Replacing a part takes the old one's bytes off.
	must(t, s.PutPart(ctx, "b", "k", "up", part(1, 40), catalog.Limits{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 40})
	must(t, s.PutPart(ctx, "b", "k", "up", p1, catalog.Limits{}))
	must(t, s.PutPart(ctx, "b", "k", "up", p2, catalog.Limits{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 150})

	h := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	must(t, s.SampleStorage(ctx, h))
	rows, err := s.UsageReport(ctx, "acme", h, h.Add(time.Hour))
	must(t, err)
	if len(rows) != 1 || rows[0].ByteHours != 150 || rows[0].Objects != 0 {
		t.Fatalf("billed %+v, want 150 byte-hours of parts", rows)
	}

	o := object("b", "k", 150)
	o.Parts = []catalog.Part{p1, p2}
	must(t, s.CompleteUpload(ctx, "up", o, catalog.PutOptions{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 150, Objects: 1})

	// Aborted: its parts' bytes go.
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "a", UploadID: "up2", Initiated: time.Now()}))
	must(t, s.PutPart(ctx, "b", "a", "up2", part(1, 30), catalog.Limits{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 180, Objects: 1})
	must(t, s.AbortUpload(ctx, "b", "a", "up2"))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 150, Objects: 1})

	// Completed with some of its parts: the others' bytes go.
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "c", UploadID: "up3", Initiated: time.Now()}))
	q1, q2 := part(1, 20), part(2, 25)
	must(t, s.PutPart(ctx, "b", "c", "up3", q1, catalog.Limits{}))
	must(t, s.PutPart(ctx, "b", "c", "up3", q2, catalog.Limits{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 195, Objects: 1})
	o = object("b", "c", 20)
	o.Parts = []catalog.Part{q1}
	must(t, s.CompleteUpload(ctx, "up3", o, catalog.PutOptions{}))
	wantUsage(t, s, "b", catalog.Usage{Bytes: 170, Objects: 2})
	if !slices.Contains(queued(t, s), q2.BlobID) {
		t.Fatal("the part left out of the object is not queued")
	}
}

// A part that would take the bucket's or tenant's bytes past a quota is
// refused and recorded nowhere; parts never count as objects.
func testPartsWithinQuota(t *testing.T, s catalog.Store) {
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o", Tenant: "acme", CreatedAt: time.Now()}))
	put(t, s, object("b", "k", 60))
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "m", UploadID: "up", Initiated: time.Now()}))
	for _, l := range []catalog.Limits{
		{Tenant: "acme", BucketBytes: 100, BucketObjects: 1},
		{Tenant: "acme", TenantBytes: 100, TenantObjects: 1},
	} {
		t.Run(fmt.Sprintf("%+v", l), func(t *testing.T) {
			must(t, s.PutPart(ctx, "b", "m", "up", part(1, 30), l))
			wantUsage(t, s, "b", catalog.Usage{Bytes: 90, Objects: 1})
			wantErr(t, s.PutPart(ctx, "b", "m", "up", part(2, 20), l), catalog.ErrQuotaExceeded)
			// Growing a part past the quota is refused too; shrinking one
			// always passes.
			wantErr(t, s.PutPart(ctx, "b", "m", "up", part(1, 41), l), catalog.ErrQuotaExceeded)
			wantUsage(t, s, "b", catalog.Usage{Bytes: 90, Objects: 1})
			ps, err := s.ListParts(ctx, "b", "m", "up", 0, 100)
			must(t, err)
			if len(ps) != 1 || ps[0].Size != 30 {
				t.Fatalf("parts after refusals: %+v", ps)
			}
			must(t, s.PutPart(ctx, "b", "m", "up", part(1, 10), l))
			must(t, s.PutPart(ctx, "b", "m", "up", part(2, 30), l))
			wantUsage(t, s, "b", catalog.Usage{Bytes: 100, Objects: 1})
			must(t, s.AbortUpload(ctx, "b", "m", "up"))
			must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "m", UploadID: "up", Initiated: time.Now()}))
		})
	}
}
