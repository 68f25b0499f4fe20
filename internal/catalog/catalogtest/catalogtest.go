// Package catalogtest is the conformance suite every catalog driver passes.
package catalogtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
)

// Run checks a driver against the catalog.Store contract; open returns a
// fresh, empty store for each subtest.
func Run(t *testing.T, open func(t *testing.T) catalog.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s catalog.Store)
	}{
		{"Buckets", testBuckets},
		{"BucketNotEmpty", testBucketNotEmpty},
		{"DeleteBucketAbortsUploads", testDeleteBucketAbortsUploads},
		{"PartsCountInUsage", testPartsCountInUsage},
		{"PartsWithinQuota", testPartsWithinQuota},
		{"PutReplaceQueuesBlobs", testPutReplace},
		{"InlineObjects", testInline},
		{"Conditions", testConditions},
		{"IfLatest", testIfLatest},
		{"Delete", testDelete},
		{"ListOrderIsBytewise", testListOrder},
		{"ListPrefixAndStart", testListPrefix},
		{"ListVersions", testListVersions},
		{"Uploads", testUploads},
		{"CompleteUpload", testCompleteUpload},
		{"ListUploads", testListUploads},
		{"AccessKeys", testAccessKeys},
		{"ExpiredAccessKeys", testExpiredAccessKeys},
		{"Tenants", testTenants},
		{"Users", testUsers},
		{"Quotas", testQuotas},
		{"PurgeBucket", testPurge},
		{"UsageAndLimits", testUsageAndLimits},
		{"Metering", testMetering},
		{"BucketSettings", testSettings},
		{"Leases", testLeases},
		{"Cursors", testCursors},
		{"AccessLogQueue", testAccessLogQueue},
		{"AuditLog", testAudit},
		{"AuditLogConcurrent", testAuditConcurrent},
		{"RootStartKey", testStartKey},
		{"GCQueueAndReferenced", testGC},
		{"ConcurrentPutsLoseNoBlob", testConcurrentPuts},
		{"DeleteBucketRacesWrites", testDeleteBucketRace},
		{"ObjectTags", testObjectTags},
		{"Locks", testLocks},
		{"Keys", testKeys},
		{"WrappedKeys", testWrappedKeys},
		{"Console", testConsole},
		{"Publications", testPublications},
		{"NotifyTargets", testNotifyTargets},
		{"CloudDirector", testCloudDirector},
		{"Directories", testDirectories},
		{"IdentityProviders", testIdentityProviders},
		{"ReplicationTargets", testReplicationTargets},
		{"Outbox", testOutbox},
		{"OutboxOrder", testOutboxOrder},
		{"ChangeEvents", testChangeEvents},
		{"SettleReplication", testSettleReplication},
		{"RateDemand", testRateDemand},
		{"TempCreds", testTempCreds},
		{"IAMGroups", testIAMGroups},
		{"IAMPolicies", testIAMPolicies},
		{"IAMIdentityPolicies", testIAMIdentityPolicies},
		{"IAMRolesAndTags", testIAMRolesAndTags},
		{"IAMConcurrentLimits", testIAMConcurrentLimits},
		{"Fill", testFill},
	}
	tests = append(tests, versionTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			tc.fn(t, s)
		})
	}
}

var ctx = context.Background()

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

func bucket(t *testing.T, s catalog.Store, name string) {
	t.Helper()
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: name, Owner: "owner", Region: "us-east-1", CreatedAt: time.Now()}))
}

// object returns a null version of key held in one fresh blob.
func object(bucketName, key string, size int64) catalog.Object {
	now := time.Now().UTC()
	return catalog.Object{
		Bucket: bucketName, Key: key, VersionID: catalog.NullVersion, Size: size, ETag: `"e"`,
		LastModified: now, Owner: "owner", StorageClass: "STANDARD",
		Meta:  catalog.Meta{ContentType: "text/plain", User: map[string]string{"a": "b"}},
		Parts: []catalog.Part{{Number: 0, BlobID: blob.NewID(), Size: size, ETag: `"e"`, LastModified: now}},
	}
}

func put(t *testing.T, s catalog.Store, o catalog.Object) catalog.Object {
	t.Helper()
	must(t, s.PutObject(ctx, o, catalog.PutOptions{}))
	return o
}

// queued returns every blob id in the collection queue.
func queued(t *testing.T, s catalog.Store) []string {
	t.Helper()
	es, err := s.GCPending(ctx, time.Now().Add(time.Hour), 100000)
	must(t, err)
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.BlobID
	}
	sort.Strings(ids)
	return ids
}

func keys(os []catalog.Object) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.Key
	}
	return out
}

func testBuckets(t *testing.T, s catalog.Store) {
	bucket(t, s, "b2")
	bucket(t, s, "b1")
	wantErr(t, s.CreateBucket(ctx, catalog.Bucket{Name: "b1", Owner: "other"}), catalog.ErrBucketExists)
	b, err := s.GetBucket(ctx, "b1")
	must(t, err)
	if b.Owner != "owner" || b.Region != "us-east-1" || b.CreatedAt.IsZero() {
		t.Errorf("GetBucket = %+v", b)
	}
	_, err = s.GetBucket(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchBucket)
	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "b0", Owner: "other", Tenant: "t1", CreatedAt: time.Now()}))
	all, err := s.ListBuckets(ctx, catalog.BucketFilter{})
	must(t, err)
	if got := fmt.Sprint(names(all)); got != "[b0 b1 b2]" {
		t.Errorf("ListBuckets(all) = %s", got)
	}
	mine, err := s.ListBuckets(ctx, catalog.BucketFilter{Owner: "owner"})
	must(t, err)
	if got := fmt.Sprint(names(mine)); got != "[b1 b2]" {
		t.Errorf("ListBuckets(owner) = %s", got)
	}
	theirs, err := s.ListBuckets(ctx, catalog.BucketFilter{Tenant: "t1"})
	must(t, err)
	if len(theirs) != 1 || theirs[0].Name != "b0" || theirs[0].Tenant != "t1" {
		t.Errorf("ListBuckets(tenant t1) = %+v", theirs)
	}
	must(t, s.DeleteBucket(ctx, "b1"))
	wantErr(t, s.DeleteBucket(ctx, "b1"), catalog.ErrNoSuchBucket)
	_, err = s.GetBucket(ctx, "b1")
	wantErr(t, err, catalog.ErrNoSuchBucket)
}

func names(bs []catalog.Bucket) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

func testBucketNotEmpty(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	put(t, s, object("b", "k", 1))
	wantErr(t, s.DeleteBucket(ctx, "b"), catalog.ErrBucketNotEmpty)
	_, err := s.DeleteObject(ctx, "b", "k", "", catalog.DeleteOptions{})
	must(t, err)
	must(t, s.DeleteBucket(ctx, "b"))
	wantErr(t, s.PutObject(ctx, object("b", "k", 1), catalog.PutOptions{}), catalog.ErrNoSuchBucket)
}

// Open multipart uploads do not keep a bucket, as in S3: deleting it
// aborts them and queues their parts' blobs in the same transaction.
func testDeleteBucketAbortsUploads(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	put(t, s, object("b", "k", 1))
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "u", UploadID: "up1", Initiated: time.Now()}))
	p := part(1, 7)
	must(t, s.PutPart(ctx, "b", "u", "up1", p, catalog.Limits{}))
	wantErr(t, s.DeleteBucket(ctx, "b"), catalog.ErrBucketNotEmpty)
	if _, err := s.GetUpload(ctx, "b", "u", "up1"); err != nil {
		t.Fatalf("a refused DeleteBucket aborted an upload: %v", err)
	}
	_, err := s.DeleteObject(ctx, "b", "k", "", catalog.DeleteOptions{})
	must(t, err)
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "v", UploadID: "up2", Initiated: time.Now()}))
	must(t, s.DeleteBucket(ctx, "b"))
	_, err = s.GetUpload(ctx, "b", "u", "up1")
	wantErr(t, err, catalog.ErrNoSuchUpload)
	if q := queued(t, s); !slices.Contains(q, p.BlobID) {
		t.Fatalf("the aborted part's blob %s is not queued: %v", p.BlobID, q)
	}
	bucket(t, s, "b") // the name again: a bucket that stores nothing
	u, err := s.BucketUsage(ctx, "b")
	must(t, err)
	if u != (catalog.Usage{}) {
		t.Fatalf("usage of a new bucket of an old name = %+v", u)
	}
}

func testPutReplace(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	first := put(t, s, object("b", "k", 10))
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if got.Size != 10 || !got.IsLatest || got.VersionID != catalog.NullVersion || got.Meta.User["a"] != "b" ||
		len(got.Parts) != 1 || got.Parts[0].BlobID != first.Parts[0].BlobID || !got.LastModified.Equal(first.LastModified) {
		t.Fatalf("GetObject = %+v", got)
	}
	if q := queued(t, s); len(q) != 0 {
		t.Fatalf("queue after first put = %v", q)
	}
	second := put(t, s, object("b", "k", 20))
	if q := queued(t, s); !slices.Equal(q, []string{first.Parts[0].BlobID}) {
		t.Fatalf("queue after replace = %v, want the first blob", q)
	}
	got, err = s.GetObject(ctx, "b", "k", catalog.NullVersion)
	must(t, err)
	if got.Parts[0].BlobID != second.Parts[0].BlobID {
		t.Fatal("replace did not switch the blob")
	}
	_, err = s.GetObject(ctx, "b", "other", "")
	wantErr(t, err, catalog.ErrNoSuchObject)
	// An empty object has no parts.
	empty := object("b", "empty", 0)
	empty.Parts = nil
	put(t, s, empty)
	got, err = s.GetObject(ctx, "b", "empty", "")
	must(t, err)
	if len(got.Parts) != 0 || got.Size != 0 {
		t.Fatalf("empty object = %+v", got)
	}
}

// A small object's bytes live in its row: read back by GetObject, not by
// listings, and replacing it queues no blob.
func testInline(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	data := []byte("small \x00\xff bytes")
	o := object("b", "k", int64(len(data)))
	o.Parts, o.Inline = nil, data
	put(t, s, o)
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if string(got.Inline) != string(data) || len(got.Parts) != 0 {
		t.Fatalf("inline object read back as %q with %d parts", got.Inline, len(got.Parts))
	}
	listed, err := s.ListObjects(ctx, "b", catalog.ListQuery{Limit: 10})
	must(t, err)
	if len(listed) != 1 || listed[0].Inline != nil || listed[0].Size != int64(len(data)) {
		t.Fatalf("ListObjects = %+v", listed)
	}
	blobbed := put(t, s, object("b", "k", 100))
	if q := queued(t, s); len(q) != 0 {
		t.Fatalf("replacing an inline object queued %v", q)
	}
	got, err = s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if len(got.Inline) != 0 || got.Parts[0].BlobID != blobbed.Parts[0].BlobID {
		t.Fatalf("blob object after inline one: %+v", got)
	}
}

func testConditions(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	o := object("b", "k", 1)
	must(t, s.PutObject(ctx, o, catalog.PutOptions{IfNoneMatch: true}))
	wantErr(t, s.PutObject(ctx, object("b", "k", 2), catalog.PutOptions{IfNoneMatch: true}), catalog.ErrPreconditionFailed)
	wantErr(t, s.PutObject(ctx, object("b", "k", 2), catalog.PutOptions{IfMatch: `"other"`}), catalog.ErrPreconditionFailed)
	// If-Match where the key has no object names nothing: no such object.
	wantErr(t, s.PutObject(ctx, object("b", "new", 2), catalog.PutOptions{IfMatch: `"e"`}), catalog.ErrNoSuchObject)
	put(t, s, object("b", "marked", 2))
	marker := catalog.Object{Bucket: "b", Key: "marked", VersionID: "m1", DeleteMarker: true, LastModified: time.Now().UTC(), Owner: "owner"}
	put(t, s, marker)
	wantErr(t, s.PutObject(ctx, object("b", "marked", 3), catalog.PutOptions{IfMatch: `"e"`}), catalog.ErrNoSuchObject)
	must(t, s.PutObject(ctx, object("b", "k", 3), catalog.PutOptions{IfMatch: `"e"`}))
	// If-None-Match: "<etag>" fails on the current version's ETag only,
	// and passes where no version is.
	wantErr(t, s.PutObject(ctx, object("b", "k", 4), catalog.PutOptions{IfNoneMatchETags: []string{`"x"`, `"e"`}}), catalog.ErrPreconditionFailed)
	other := object("b", "other", 4)
	must(t, s.PutObject(ctx, other, catalog.PutOptions{IfNoneMatchETags: []string{`"e"`}}))
	replacement := object("b", "other", 4)
	replacement.ETag = `"f"`
	must(t, s.PutObject(ctx, replacement, catalog.PutOptions{IfNoneMatchETags: []string{`"x"`}}))
	wantErr(t, s.PutObject(ctx, object("b", "other", 5), catalog.PutOptions{IfNoneMatchETags: []string{`"f"`}}), catalog.ErrPreconditionFailed)
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if got.Size != 3 {
		t.Fatalf("size = %d after conditional writes, want 3", got.Size)
	}
	// A failed condition queues nothing: the caller deletes its own blob.
	want := []string{o.Parts[0].BlobID, other.Parts[0].BlobID}
	sort.Strings(want)
	if q := queued(t, s); !slices.Equal(q, want) {
		t.Fatalf("queue = %v, want %v", q, want)
	}
}

func testDelete(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	o := put(t, s, object("b", "k", 5))
	removed, err := s.DeleteObject(ctx, "b", "k", "", catalog.DeleteOptions{})
	must(t, err)
	if removed.Size != 5 || removed.Parts[0].BlobID != o.Parts[0].BlobID {
		t.Fatalf("DeleteObject returned %+v", removed)
	}
	if q := queued(t, s); !slices.Equal(q, []string{o.Parts[0].BlobID}) {
		t.Fatalf("queue = %v", q)
	}
	_, err = s.DeleteObject(ctx, "b", "k", "", catalog.DeleteOptions{})
	wantErr(t, err, catalog.ErrNoSuchObject)
	_, err = s.GetObject(ctx, "b", "k", "")
	wantErr(t, err, catalog.ErrNoSuchObject)
	// The key can be written again.
	put(t, s, object("b", "k", 6))
}

// Keys in S3's order: UTF-8 bytes, not a collation.
var orderedKeys = []string{"%", "A", "B/c", "_", "a", "a/", "a/b", "aa", "a\u007f", "z", "\u00e9", "\u00ff", "\u4e2d\u6587", "\U0001F600"}

func testListOrder(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	shuffled := slices.Clone(orderedKeys)
	slices.Reverse(shuffled)
	for _, k := range shuffled {
		put(t, s, object("b", k, 1))
	}
	got, err := s.ListObjects(ctx, "b", catalog.ListQuery{Limit: 100})
	must(t, err)
	if !slices.Equal(keys(got), orderedKeys) {
		t.Fatalf("order = %q\nwant    %q", keys(got), orderedKeys)
	}
	if got[0].Parts != nil && len(got[0].Parts) > 0 {
		t.Error("ListObjects filled Parts")
	}
}

func testListPrefix(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	bucket(t, s, "other")
	for _, k := range orderedKeys {
		put(t, s, object("b", k, 1))
	}
	put(t, s, object("other", "a/x", 1))
	cases := []struct {
		q    catalog.ListQuery
		want []string
	}{
		{catalog.ListQuery{Prefix: "a", Limit: 100}, []string{"a", "a/", "a/b", "aa", "a\u007f"}},
		{catalog.ListQuery{Prefix: "a/", Limit: 100}, []string{"a/", "a/b"}},
		{catalog.ListQuery{Prefix: "%", Limit: 100}, []string{"%"}},
		{catalog.ListQuery{Prefix: "_", Limit: 100}, []string{"_"}},
		{catalog.ListQuery{Prefix: "\u00ff", Limit: 100}, []string{"\u00ff"}},
		{catalog.ListQuery{Prefix: "a", Start: "a/", Limit: 100}, []string{"a/b", "aa", "a\u007f"}},
		{catalog.ListQuery{Prefix: "a", Start: "a/", Inclusive: true, Limit: 2}, []string{"a/", "a/b"}},
		{catalog.ListQuery{Start: "z", Limit: 100}, []string{"\u00e9", "\u00ff", "\u4e2d\u6587", "\U0001F600"}},
		{catalog.ListQuery{Limit: 3}, []string{"%", "A", "B/c"}},
		{catalog.ListQuery{Prefix: "nothing", Limit: 3}, []string{}},
	}
	for _, c := range cases {
		got, err := s.ListObjects(ctx, "b", c.q)
		must(t, err)
		if !slices.Equal(keys(got), c.want) {
			t.Errorf("ListObjects(%+v) = %q, want %q", c.q, keys(got), c.want)
		}
	}
}

func testListVersions(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	for _, k := range []string{"c", "a", "b"} {
		put(t, s, object("b", k, 1))
	}
	all, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Limit: 100})
	must(t, err)
	if !slices.Equal(keys(all), []string{"a", "b", "c"}) {
		t.Fatalf("ListVersions = %q", keys(all))
	}
	for _, v := range all {
		if v.VersionID != catalog.NullVersion || !v.IsLatest {
			t.Errorf("version %+v", v)
		}
	}
	after, err := s.ListVersions(ctx, "b", catalog.VersionQuery{KeyMarker: "a", VersionMarker: catalog.NullVersion, Limit: 100})
	must(t, err)
	if !slices.Equal(keys(after), []string{"b", "c"}) {
		t.Errorf("after a/null = %q", keys(after))
	}
	after, err = s.ListVersions(ctx, "b", catalog.VersionQuery{KeyMarker: "b", Limit: 1})
	must(t, err)
	if !slices.Equal(keys(after), []string{"c"}) {
		t.Errorf("after b = %q", keys(after))
	}
	from, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Start: "b", Inclusive: true, Prefix: "b", Limit: 100})
	must(t, err)
	if !slices.Equal(keys(from), []string{"b"}) {
		t.Errorf("from b, prefix b = %q", keys(from))
	}
}

func part(n int, size int64) catalog.Part {
	return catalog.Part{Number: n, BlobID: blob.NewID(), Size: size, ETag: fmt.Sprintf(`"p%d"`, n), LastModified: time.Now(),
		Checksums: map[string]string{"CRC32": "AAAAAA=="}}
}

func testUploads(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	wantErr(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "nope", Key: "k", UploadID: "x", Initiated: time.Now()}), catalog.ErrNoSuchBucket)
	u := catalog.Upload{Bucket: "b", Key: "k", UploadID: "up", Initiated: time.Now(), Owner: "owner", StorageClass: "STANDARD",
		Meta: catalog.Meta{ContentType: "image/png"}, ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE"}
	must(t, s.CreateUpload(ctx, u))
	got, err := s.GetUpload(ctx, "b", "k", "up")
	must(t, err)
	if got.Meta.ContentType != "image/png" || got.ChecksumAlgorithm != "CRC32" || got.Owner != "owner" {
		t.Fatalf("GetUpload = %+v", got)
	}
	_, err = s.GetUpload(ctx, "b", "other-key", "up")
	wantErr(t, err, catalog.ErrNoSuchUpload)
	p1, p2, p3 := part(1, 5), part(2, 5), part(3, 1)
	for _, p := range []catalog.Part{p3, p1, p2} {
		must(t, s.PutPart(ctx, "b", "k", "up", p, catalog.Limits{}))
	}
	p2b := part(2, 6)
	must(t, s.PutPart(ctx, "b", "k", "up", p2b, catalog.Limits{}))
	if q := queued(t, s); !slices.Equal(q, []string{p2.BlobID}) {
		t.Fatalf("queue after part replacement = %v", q)
	}
	ps, err := s.ListParts(ctx, "b", "k", "up", 0, 100)
	must(t, err)
	if len(ps) != 3 || ps[0].Number != 1 || ps[1].BlobID != p2b.BlobID || ps[1].Size != 6 || ps[2].Number != 3 || ps[0].Checksums["CRC32"] == "" {
		t.Fatalf("ListParts = %+v", ps)
	}
	ps, err = s.ListParts(ctx, "b", "k", "up", 1, 1)
	must(t, err)
	if len(ps) != 1 || ps[0].Number != 2 {
		t.Fatalf("ListParts(after 1, max 1) = %+v", ps)
	}
	must(t, s.AbortUpload(ctx, "b", "k", "up"))
	want := []string{p1.BlobID, p2.BlobID, p2b.BlobID, p3.BlobID}
	sort.Strings(want)
	if q := queued(t, s); !slices.Equal(q, want) {
		t.Fatalf("queue after abort = %v, want %v", q, want)
	}
	wantErr(t, s.PutPart(ctx, "b", "k", "up", part(4, 1), catalog.Limits{}), catalog.ErrNoSuchUpload)
	_, err = s.ListParts(ctx, "b", "k", "up", 0, 10)
	wantErr(t, err, catalog.ErrNoSuchUpload)
	wantErr(t, s.AbortUpload(ctx, "b", "k", "up"), catalog.ErrNoSuchUpload)
}

func testCompleteUpload(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	old := put(t, s, object("b", "k", 1))
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "k", UploadID: "up", Initiated: time.Now()}))
	p1, p2, unused := part(1, 5), part(2, 3), part(3, 4)
	for _, p := range []catalog.Part{p1, p2, unused} {
		must(t, s.PutPart(ctx, "b", "k", "up", p, catalog.Limits{}))
	}
	o := object("b", "k", 8)
	o.Parts = []catalog.Part{p1, p2}
	wantErr(t, s.CompleteUpload(ctx, "up", o, catalog.PutOptions{IfNoneMatch: true}), catalog.ErrPreconditionFailed)
	wantErr(t, s.CompleteUpload(ctx, "up", o, catalog.PutOptions{IfNoneMatchETags: []string{old.ETag}}), catalog.ErrPreconditionFailed)
	must(t, s.CompleteUpload(ctx, "up", o, catalog.PutOptions{}))
	got, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if got.Size != 8 || len(got.Parts) != 2 || got.Parts[1].BlobID != p2.BlobID || got.Parts[1].Number != 2 {
		t.Fatalf("completed object = %+v", got)
	}
	want := []string{old.Parts[0].BlobID, unused.BlobID}
	sort.Strings(want)
	if q := queued(t, s); !slices.Equal(q, want) {
		t.Fatalf("queue = %v, want the replaced object's and the unused part's blobs %v", q, want)
	}
	wantErr(t, s.CompleteUpload(ctx, "up", o, catalog.PutOptions{}), catalog.ErrNoSuchUpload)
	refs, err := s.Referenced(ctx, []string{p1.BlobID, p2.BlobID})
	must(t, err)
	if !refs[p1.BlobID] || !refs[p2.BlobID] {
		t.Fatalf("completed parts not referenced: %v", refs)
	}
}

func testListUploads(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	base := time.Now()
	for i, u := range []struct{ key, id string }{{"b", "u3"}, {"a", "u2"}, {"a", "u1"}, {"c/d", "u4"}} {
		must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: u.key, UploadID: u.id, Initiated: base.Add(time.Duration(i) * time.Millisecond)}))
	}
	ids := func(us []catalog.Upload) []string {
		out := make([]string, len(us))
		for i, u := range us {
			out[i] = u.Key + ":" + u.UploadID
		}
		return out
	}
	all, err := s.ListUploads(ctx, "b", catalog.UploadQuery{Limit: 100})
	must(t, err)
	if want := []string{"a:u2", "a:u1", "b:u3", "c/d:u4"}; !slices.Equal(ids(all), want) {
		t.Fatalf("ListUploads = %v, want %v (key, then initiation)", ids(all), want)
	}
	after, err := s.ListUploads(ctx, "b", catalog.UploadQuery{KeyMarker: "a", UploadIDMarker: "u2", Limit: 2})
	must(t, err)
	if want := []string{"a:u1", "b:u3"}; !slices.Equal(ids(after), want) {
		t.Errorf("after a/u2 = %v, want %v", ids(after), want)
	}
	pre, err := s.ListUploads(ctx, "b", catalog.UploadQuery{Prefix: "c/", Limit: 100})
	must(t, err)
	if want := []string{"c/d:u4"}; !slices.Equal(ids(pre), want) {
		t.Errorf("prefix c/ = %v", ids(pre))
	}
}

func testGC(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	a := put(t, s, object("b", "a", 1))
	put(t, s, object("b", "a", 2)) // queues a's blob
	must(t, s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: "u", UploadID: "up", Initiated: time.Now()}))
	p := part(1, 1)
	must(t, s.PutPart(ctx, "b", "u", "up", p, catalog.Limits{}))
	cur, err := s.GetObject(ctx, "b", "a", "")
	must(t, err)
	stray := blob.NewID()
	refs, err := s.Referenced(ctx, []string{a.Parts[0].BlobID, cur.Parts[0].BlobID, p.BlobID, stray})
	must(t, err)
	if !refs[a.Parts[0].BlobID] || !refs[cur.Parts[0].BlobID] || !refs[p.BlobID] || refs[stray] {
		t.Fatalf("Referenced = %v", refs)
	}
	pending, err := s.GCPending(ctx, time.Now().Add(-time.Hour), 10)
	must(t, err)
	if len(pending) != 0 {
		t.Fatalf("GCPending(before an hour ago) = %v", pending)
	}
	pending, err = s.GCPending(ctx, time.Now().Add(time.Second), 10)
	must(t, err)
	if len(pending) != 1 || pending[0].BlobID != a.Parts[0].BlobID || pending[0].Enqueued.IsZero() {
		t.Fatalf("GCPending = %+v", pending)
	}
	must(t, s.GCDone(ctx, []string{a.Parts[0].BlobID}))
	if q := queued(t, s); len(q) != 0 {
		t.Fatalf("queue after GCDone = %v", q)
	}
	refs, err = s.Referenced(ctx, []string{a.Parts[0].BlobID})
	must(t, err)
	if refs[a.Parts[0].BlobID] {
		t.Fatal("a collected blob is still referenced")
	}
}

// Many writers replacing the same keys: every blob written ends up either
// in the current version of its key or in the queue, never lost and never
// both.
func testConcurrentPuts(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	const writers, each = 16, 20
	var mu sync.Mutex
	var written []string
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				o := object("b", fmt.Sprintf("k%d", (w+i)%4), int64(i))
				if err := s.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				written = append(written, o.Parts[0].BlobID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	owned := map[string]string{}
	for _, id := range queued(t, s) {
		owned[id] = "queue"
	}
	for k := range 4 {
		o, err := s.GetObject(ctx, "b", fmt.Sprintf("k%d", k), "")
		must(t, err)
		id := o.Parts[0].BlobID
		if owned[id] != "" {
			t.Errorf("blob %s is both current and queued", id)
		}
		owned[id] = "current"
	}
	for _, id := range written {
		if owned[id] == "" {
			t.Errorf("blob %s is neither current nor queued: leaked", id)
		}
	}
	if len(owned) != len(written) {
		t.Errorf("%d blobs accounted for, %d written", len(owned), len(written))
	}
}

// A bucket deleted while writes into it are in flight leaves no object
// behind: each write either lands first (and the delete finds the bucket
// not empty) or finds the bucket gone.
func testDeleteBucketRace(t *testing.T, s catalog.Store) {
	for round := range 20 {
		name := fmt.Sprintf("race%d", round)
		bucket(t, s, name)
		var wg sync.WaitGroup
		var putErr, delErr error
		wg.Add(2)
		go func() { defer wg.Done(); putErr = s.PutObject(ctx, object(name, "k", 1), catalog.PutOptions{}) }()
		go func() { defer wg.Done(); delErr = s.DeleteBucket(ctx, name) }()
		wg.Wait()
		switch {
		case putErr == nil && errors.Is(delErr, catalog.ErrBucketNotEmpty):
		case errors.Is(putErr, catalog.ErrNoSuchBucket) && delErr == nil:
			if _, err := s.GetObject(ctx, name, "k", ""); !errors.Is(err, catalog.ErrNoSuchObject) {
				t.Fatalf("round %d: an object outlived its bucket: %v", round, err)
			}
		default:
			t.Fatalf("round %d: put %v, delete bucket %v", round, putErr, delErr)
		}
	}
}
