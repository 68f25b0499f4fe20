package catalogtest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// versionTests are the parts of the suite about versions and delete
// markers (package objects chooses the ids; the catalog keeps them in
// commit order).
var versionTests = []struct {
	name string
	fn   func(t *testing.T, s catalog.Store)
}{
	{"VersionsInCommitOrder", testVersionsCommitOrder},
	{"NullVersionAmongVersions", testNullAmongVersions},
	{"DeleteMarkers", testDeleteMarkers},
	{"VersionsCountInUsage", testVersionsUsage},
	{"ListVersionsMarkers", testListVersionsMarkers},
	{"VersionACL", testVersionACL},
	{"ConcurrentVersions", testConcurrentVersions},
}

// version returns a version of key with id, held in one fresh blob.
func version(bucketName, key, id string, size int64) catalog.Object {
	o := object(bucketName, key, size)
	o.VersionID = id
	return o
}

// marker returns a delete marker of key.
func marker(bucketName, key, id string) catalog.Object {
	return catalog.Object{Bucket: bucketName, Key: key, VersionID: id, DeleteMarker: true,
		LastModified: time.Now().UTC(), Owner: "owner"}
}

// ids lists versions as key/id, with * after the latest and ! after a
// delete marker.
func ids(os []catalog.Object) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.Key + "/" + o.VersionID
		if o.IsLatest {
			out[i] += "*"
		}
		if o.DeleteMarker {
			out[i] += "!"
		}
	}
	return out
}

func listAll(t *testing.T, s catalog.Store, b string) []string {
	t.Helper()
	vs, err := s.ListVersions(ctx, b, catalog.VersionQuery{Limit: 1000})
	must(t, err)
	return ids(vs)
}

func wantVersions(t *testing.T, s catalog.Store, b string, want ...string) {
	t.Helper()
	if got := listAll(t, s, b); !slices.Equal(got, want) {
		t.Fatalf("versions = %q\nwant       %q", got, want)
	}
}

// A key's versions run in the order they were committed, not by their
// LastModified: nodes' clocks differ, and the newest commit must win.
func testVersionsCommitOrder(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	now := time.Now().UTC()
	for i, id := range []string{"v1", "v2", "v3"} {
		o := version("b", "k", id, int64(i+1))
		// Each later write carries an older clock than the one before.
		o.LastModified = now.Add(-time.Duration(i) * time.Hour)
		put(t, s, o)
	}
	wantVersions(t, s, "b", "k/v3*", "k/v2", "k/v1")
	cur, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if cur.VersionID != "v3" || !cur.IsLatest {
		t.Fatalf("current = %s latest=%v, want v3", cur.VersionID, cur.IsLatest)
	}
	old, err := s.GetObject(ctx, "b", "k", "v1")
	must(t, err)
	if old.Size != 1 || old.IsLatest || len(old.Parts) != 1 {
		t.Fatalf("v1 = %+v", old)
	}
	// Removing the current version promotes the last committed one left.
	removed, err := s.DeleteObject(ctx, "b", "k", "v3", catalog.DeleteOptions{})
	must(t, err)
	if removed.VersionID != "v3" || removed.Size != 3 {
		t.Fatalf("removed %+v", removed)
	}
	wantVersions(t, s, "b", "k/v2*", "k/v1")
	// Removing a noncurrent version leaves the current one.
	_, err = s.DeleteObject(ctx, "b", "k", "v1", catalog.DeleteOptions{})
	must(t, err)
	wantVersions(t, s, "b", "k/v2*")
	_, err = s.DeleteObject(ctx, "b", "k", "v1", catalog.DeleteOptions{})
	wantErr(t, err, catalog.ErrNoSuchObject)
	// A version written after a removal is the newest again.
	put(t, s, version("b", "k", "v4", 4))
	wantVersions(t, s, "b", "k/v4*", "k/v2")
}

// A suspended bucket writes the null version: it replaces the null
// version wherever it stands among the key's versions, becomes the
// newest, and leaves every other version (as S3).
func testNullAmongVersions(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	n1 := put(t, s, version("b", "k", catalog.NullVersion, 1))
	v1 := put(t, s, version("b", "k", "v1", 2))
	wantVersions(t, s, "b", "k/v1*", "k/null")
	n2 := put(t, s, version("b", "k", catalog.NullVersion, 3))
	wantVersions(t, s, "b", "k/null*", "k/v1")
	if q := queued(t, s); !slices.Equal(q, []string{n1.Parts[0].BlobID}) {
		t.Fatalf("queue = %v, want only the replaced null version's blob", q)
	}
	cur, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if cur.Parts[0].BlobID != n2.Parts[0].BlobID {
		t.Fatalf("current holds %s, want the new null version's blob", cur.Parts[0].BlobID)
	}
	ref, err := s.Referenced(ctx, []string{v1.Parts[0].BlobID, n2.Parts[0].BlobID})
	must(t, err)
	if !ref[v1.Parts[0].BlobID] || !ref[n2.Parts[0].BlobID] {
		t.Fatalf("referenced = %v", ref)
	}
	// A null delete marker replaces the null version too.
	put(t, s, marker("b", "k", catalog.NullVersion))
	wantVersions(t, s, "b", "k/null*!", "k/v1")
}

func testDeleteMarkers(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	put(t, s, version("b", "k", "v1", 5))
	put(t, s, version("b", "other", "o1", 1))
	put(t, s, marker("b", "k", "m1"))
	wantVersions(t, s, "b", "k/m1*!", "k/v1", "other/o1*")
	cur, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if !cur.DeleteMarker || cur.VersionID != "m1" {
		t.Fatalf("current = %+v, want the delete marker", cur)
	}
	got, err := s.ListObjects(ctx, "b", catalog.ListQuery{Limit: 100})
	must(t, err)
	if !slices.Equal(keys(got), []string{"other"}) {
		t.Fatalf("ListObjects = %q: a key whose current version is a delete marker is listed", keys(got))
	}
	// A second marker stacks on the first.
	put(t, s, marker("b", "k", "m2"))
	wantVersions(t, s, "b", "k/m2*!", "k/m1!", "k/v1", "other/o1*")
	// Removing the markers brings the version back.
	removed, err := s.DeleteObject(ctx, "b", "k", "m2", catalog.DeleteOptions{})
	must(t, err)
	if !removed.DeleteMarker {
		t.Fatalf("removed %+v, want the marker", removed)
	}
	_, err = s.DeleteObject(ctx, "b", "k", "m1", catalog.DeleteOptions{})
	must(t, err)
	got, err = s.ListObjects(ctx, "b", catalog.ListQuery{Limit: 100})
	must(t, err)
	if !slices.Equal(keys(got), []string{"k", "other"}) {
		t.Fatalf("ListObjects = %q after the markers went", keys(got))
	}
	// A bucket that holds only a delete marker is not empty.
	bucket(t, s, "m")
	put(t, s, marker("m", "gone", "m1"))
	wantErr(t, s.DeleteBucket(ctx, "m"), catalog.ErrBucketNotEmpty)
	_, err = s.DeleteObject(ctx, "m", "gone", "m1", catalog.DeleteOptions{})
	must(t, err)
	must(t, s.DeleteBucket(ctx, "m"))
}

// Every version counts in a bucket's usage, current or not, as S3 bills
// noncurrent versions; delete markers store nothing. Quotas see the same
// totals.
func testVersionsUsage(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	usage := func(bytes, objects int64) {
		t.Helper()
		u, err := s.BucketUsage(ctx, "b")
		must(t, err)
		if u.Bytes != bytes || u.Objects != objects {
			t.Fatalf("usage = %+v, want %d bytes, %d objects", u, bytes, objects)
		}
	}
	put(t, s, version("b", "k", "v1", 5))
	put(t, s, version("b", "k", "v2", 7))
	usage(12, 2)
	put(t, s, marker("b", "k", "m1"))
	usage(12, 2)
	l := catalog.PutOptions{Limits: catalog.Limits{BucketObjects: 2}}
	wantErr(t, s.PutObject(ctx, version("b", "k", "v3", 1), l), catalog.ErrQuotaExceeded)
	// A marker stores nothing, so it passes over a quota.
	must(t, s.PutObject(ctx, marker("b", "k", "m2"), l))
	_, err := s.DeleteObject(ctx, "b", "k", "v1", catalog.DeleteOptions{})
	must(t, err)
	usage(7, 1)
	_, err = s.DeleteObject(ctx, "b", "k", "m1", catalog.DeleteOptions{})
	must(t, err)
	usage(7, 1)
}

// Paging through versions resumes after the marker's version, by commit
// order, across keys and page sizes.
func testListVersionsMarkers(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	var want []string
	for _, k := range []string{"a", "b", "c"} {
		var kv []string
		for i := 1; i <= 3; i++ {
			id := fmt.Sprintf("%s%d", k, i)
			if k == "b" && i == 2 {
				put(t, s, marker("b", k, id))
			} else {
				put(t, s, version("b", k, id, 1))
			}
			kv = append(kv, k+"/"+id)
		}
		slices.Reverse(kv)
		kv[0] += "*"
		if k == "b" {
			kv[1] += "!"
		}
		want = append(want, kv...)
	}
	wantVersions(t, s, "b", want...)
	for _, page := range []int{1, 2, 4} {
		var got []string
		q := catalog.VersionQuery{Limit: page}
		for {
			vs, err := s.ListVersions(ctx, "b", q)
			must(t, err)
			got = append(got, ids(vs)...)
			if len(vs) < page {
				break
			}
			last := vs[len(vs)-1]
			q.KeyMarker, q.VersionMarker = last.Key, last.VersionID
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pages of %d = %q\nwant        %q", page, got, want)
		}
	}
	after, err := s.ListVersions(ctx, "b", catalog.VersionQuery{KeyMarker: "b", VersionMarker: "b3", Limit: 100})
	must(t, err)
	if got := ids(after); !slices.Equal(got, want[4:]) {
		t.Fatalf("after b/b3 = %q", got)
	}
	after, err = s.ListVersions(ctx, "b", catalog.VersionQuery{KeyMarker: "b", Prefix: "b", Limit: 100})
	must(t, err)
	if len(after) != 0 {
		t.Fatalf("after all of b, prefix b = %q", ids(after))
	}
}

// An ACL set on a noncurrent version is that version's alone.
func testVersionACL(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	put(t, s, version("b", "k", "v1", 1))
	put(t, s, version("b", "k", "v2", 1))
	must(t, s.SetObjectACL(ctx, "b", "k", "v1", "acl-of-v1", catalog.ChangeOptions{}))
	v1, err := s.GetObject(ctx, "b", "k", "v1")
	must(t, err)
	v2, err := s.GetObject(ctx, "b", "k", "")
	must(t, err)
	if v1.Meta.ACL != "acl-of-v1" || v2.Meta.ACL != "" {
		t.Fatalf("ACLs: v1 %q, v2 %q", v1.Meta.ACL, v2.Meta.ACL)
	}
	put(t, s, marker("b", "k", "m1"))
	wantErr(t, s.SetObjectACL(ctx, "b", "k", "m1", "x", catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	wantErr(t, s.SetObjectACL(ctx, "b", "k", "nope", "x", catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
}

// Writers adding versions to the same keys at once (PostgreSQL runs them
// side by side) keep every version, each writer's in the order it wrote
// them, one latest per key, and that the last one some writer wrote.
func testConcurrentVersions(t *testing.T, s catalog.Store) {
	bucket(t, s, "b")
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := fmt.Sprintf("k%d", w%2)
				id := fmt.Sprintf("w%d-%02d", w, i)
				o := version("b", key, id, 1)
				if i%4 == 3 {
					o = marker("b", key, id)
				}
				if err := s.PutObject(ctx, o, catalog.PutOptions{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	check := func() {
		t.Helper()
		vs, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Limit: 1000})
		must(t, err)
		last := map[string]string{} // writer -> last id seen, listing newest first
		latest := map[string]int{}
		for i, v := range vs {
			if v.IsLatest {
				latest[v.Key]++
				if i > 0 && vs[i-1].Key == v.Key {
					t.Fatalf("latest %s/%s is not first of its key", v.Key, v.VersionID)
				}
			}
			w := v.VersionID[:2]
			if prev, ok := last[v.Key+w]; ok && prev < v.VersionID {
				t.Fatalf("%s: %s listed before %s, which it was written before", v.Key, prev, v.VersionID)
			}
			last[v.Key+w] = v.VersionID
		}
		for _, k := range []string{"k0", "k1"} {
			if latest[k] != 1 {
				t.Fatalf("%s has %d latest versions", k, latest[k])
			}
		}
	}
	check()
	vs, err := s.ListVersions(ctx, "b", catalog.VersionQuery{Limit: 1000})
	must(t, err)
	if len(vs) != writers*each {
		t.Fatalf("%d versions, want %d", len(vs), writers*each)
	}
	for _, v := range vs {
		if v.IsLatest && v.VersionID[len(v.VersionID)-2:] != fmt.Sprintf("%02d", each-1) {
			t.Fatalf("latest %s/%s is no writer's last", v.Key, v.VersionID)
		}
	}
	// Removing latest versions from several goroutines promotes one each
	// time.
	var rm sync.WaitGroup
	for range 4 {
		rm.Add(1)
		go func() {
			defer rm.Done()
			for range 5 {
				for _, k := range []string{"k0", "k1"} {
					if _, err := s.DeleteObject(ctx, "b", k, "", catalog.DeleteOptions{}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	rm.Wait()
	check()
}
