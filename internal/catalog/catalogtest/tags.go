package catalogtest

import (
	"maps"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func objectTags(t *testing.T, s catalog.Store) catalog.ObjectTags {
	t.Helper()
	ot, ok := s.(catalog.ObjectTags)
	if !ok {
		t.Fatalf("%T keeps no object tags", s)
	}
	return ot
}

// Tags are replaced on the version named, leave the rest of its meta
// (and its bytes) as they were, and cannot be set on what is not there.
func testObjectTags(t *testing.T, s catalog.Store) {
	ot := objectTags(t, s)
	bucket(t, s, "b")
	o := object("b", "k", 10)
	o.Meta.Tags = map[string]string{"a": "1"}
	o.Meta.ACL = "acl"
	put(t, s, o)
	tagsOf := func(version string) map[string]string {
		t.Helper()
		got, err := s.GetObject(ctx, "b", "k", version)
		must(t, err)
		if got.Meta.ContentType != "text/plain" || got.Meta.ACL != "acl" || got.Meta.User["a"] != "b" || len(got.Parts) != 1 || got.ETag != o.ETag {
			t.Fatalf("tags changed more than the tags: %+v", got)
		}
		return got.Meta.Tags
	}
	if got := tagsOf(""); !maps.Equal(got, o.Meta.Tags) {
		t.Fatalf("tags as put = %v", got)
	}
	want := map[string]string{"x": "", "Project": "blue"}
	must(t, ot.SetObjectTags(ctx, "b", "k", catalog.NullVersion, want, catalog.ChangeOptions{}))
	want["later"] = "not stored" // the store keeps its own copy
	if got := tagsOf(catalog.NullVersion); len(got) != 2 || got["Project"] != "blue" || got["x"] != "" {
		t.Fatalf("tags = %v", got)
	}
	must(t, ot.SetObjectTags(ctx, "b", "k", "", map[string]string{}, catalog.ChangeOptions{}))
	if got := tagsOf(""); got != nil {
		t.Fatalf("tags after removal = %v", got)
	}
	// A later write of the key does not keep the old tags.
	must(t, ot.SetObjectTags(ctx, "b", "k", "", map[string]string{"a": "2"}, catalog.ChangeOptions{}))
	put(t, s, object("b", "k", 10))
	if got, _ := s.GetObject(ctx, "b", "k", ""); got.Meta.Tags != nil {
		t.Fatalf("a new write kept tags %v", got.Meta.Tags)
	}

	wantErr(t, ot.SetObjectTags(ctx, "b", "nope", "", want, catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	wantErr(t, ot.SetObjectTags(ctx, "b", "k", "v-other", want, catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	wantErr(t, ot.SetObjectTags(ctx, "gone", "k", "", want, catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	// A delete marker has no tags to set.
	dm := catalog.Object{Bucket: "b", Key: "m", VersionID: "v1", DeleteMarker: true, LastModified: time.Now().UTC(), Owner: "owner"}
	put(t, s, dm)
	wantErr(t, ot.SetObjectTags(ctx, "b", "m", "", want, catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	wantErr(t, ot.SetObjectTags(ctx, "b", "m", "v1", want, catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
	// So does SetObjectACL, which shares the same path.
	wantErr(t, s.SetObjectACL(ctx, "b", "m", "", "acl", catalog.ChangeOptions{}), catalog.ErrNoSuchObject)
}
