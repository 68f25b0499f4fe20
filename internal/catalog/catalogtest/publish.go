package catalogtest

import (
	"bytes"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// testPublications checks published content libraries: settings change
// without losing the library's identity or documents, the index is
// replaced whole and only over the settings it was made from, tenants
// are apart, and unpublishing (or deleting the tenant) takes the
// documents with it.
func testPublications(t *testing.T, s catalog.Store) {
	c, ok := s.(catalog.Publications)
	if !ok {
		t.Fatalf("%T does not keep publications (catalog.Publications)", s)
	}
	_, err := c.GetPublication(ctx, "acme", "isos")
	wantErr(t, err, catalog.ErrNoSuchPublication)
	wantErr(t, c.DeletePublication(ctx, "acme", "isos"), catalog.ErrNoSuchPublication)
	wantErr(t, c.SetPublicationIndex(ctx, "acme", "isos", "", 1, "d1", time.Now(), nil), catalog.ErrNoSuchPublication)

	created := time.Unix(1700000000, 0).UTC()
	p := catalog.Publication{Tenant: "acme", Name: "isos", Bucket: "media", Prefix: "lib/\xff/", Description: "d",
		User: "sub", PasswordHash: "$argon2id$h", LibraryID: "urn:uuid:1", Created: created}
	must(t, c.PutPublication(ctx, p))
	must(t, c.PutPublication(ctx, catalog.Publication{Tenant: "other", Name: "isos", Bucket: "theirs", LibraryID: "urn:uuid:2", Created: created}))
	got, err := c.GetPublication(ctx, "acme", "isos")
	must(t, err)
	if got.Bucket != "media" || got.Prefix != p.Prefix || got.Description != "d" || got.User != "sub" || got.PasswordHash != p.PasswordHash ||
		got.LibraryID != "urn:uuid:1" || !got.Created.Equal(created) || got.Version != 0 || got.Digest != "" || !got.Indexed.IsZero() {
		t.Fatalf("publication = %+v", got)
	}

	// An index replaces the documents whole.
	at := time.Unix(1700000100, 0).UTC()
	must(t, c.SetPublicationIndex(ctx, "acme", "isos", "", 1, "d1", at, []catalog.PublicationDoc{
		{Path: "lib.json", Body: []byte(`{"v":1}`)}, {Path: "a/item.json", Body: []byte("A")}, {Path: "b/item.json", Body: []byte("B")}}))
	wantErr(t, c.SetPublicationIndex(ctx, "acme", "isos", "stale", 2, "d2", at, nil), catalog.ErrPreconditionFailed)
	must(t, c.SetPublicationIndex(ctx, "acme", "isos", "d1", 2, "d2", at, []catalog.PublicationDoc{
		{Path: "lib.json", Body: []byte(`{"v":2}`)}, {Path: "a/item.json", Body: []byte("A2")}}))
	if b, err := c.PublicationDoc(ctx, "acme", "isos", "lib.json"); err != nil || !bytes.Equal(b, []byte(`{"v":2}`)) {
		t.Fatalf("lib.json = %q, %v", b, err)
	}
	_, err = c.PublicationDoc(ctx, "acme", "isos", "b/item.json")
	wantErr(t, err, catalog.ErrNoSuchObject)
	_, err = c.PublicationDoc(ctx, "other", "isos", "lib.json")
	wantErr(t, err, catalog.ErrNoSuchObject)
	got, _ = c.GetPublication(ctx, "acme", "isos")
	if got.Version != 2 || got.Digest != "d2" || !got.Indexed.Equal(at) {
		t.Fatalf("after indexing: %+v", got)
	}

	// New settings keep the identity, the version and the documents, and
	// clear the digest so that the indexer runs again.
	must(t, c.PutPublication(ctx, catalog.Publication{Tenant: "acme", Name: "isos", Bucket: "media2", Prefix: "", LibraryID: "urn:uuid:new", Created: time.Now()}))
	got, _ = c.GetPublication(ctx, "acme", "isos")
	if got.Bucket != "media2" || got.Prefix != "" || got.User != "" || got.PasswordHash != "" || got.LibraryID != "urn:uuid:1" ||
		!got.Created.Equal(created) || got.Version != 2 || got.Digest != "" {
		t.Fatalf("after new settings: %+v", got)
	}
	wantErr(t, c.SetPublicationIndex(ctx, "acme", "isos", "d2", 3, "d3", at, nil), catalog.ErrPreconditionFailed)
	if _, err := c.PublicationDoc(ctx, "acme", "isos", "a/item.json"); err != nil {
		t.Fatalf("documents lost with new settings: %v", err)
	}

	all, err := c.ListPublications(ctx, "")
	must(t, err)
	if len(all) != 2 || all[0].Tenant != "acme" || all[1].Tenant != "other" {
		t.Fatalf("all publications = %+v", all)
	}
	mine, err := c.ListPublications(ctx, "other")
	must(t, err)
	if len(mine) != 1 || mine[0].Bucket != "theirs" {
		t.Fatalf("other's publications = %+v", mine)
	}

	must(t, c.DeletePublication(ctx, "acme", "isos"))
	_, err = c.PublicationDoc(ctx, "acme", "isos", "lib.json")
	wantErr(t, err, catalog.ErrNoSuchObject)
	must(t, c.PutPublication(ctx, catalog.Publication{Tenant: "acme", Name: "isos", Bucket: "media", LibraryID: "urn:uuid:3", Created: created}))
	if got, _ := c.GetPublication(ctx, "acme", "isos"); got.LibraryID != "urn:uuid:3" || got.Version != 0 {
		t.Fatalf("published again after unpublishing: %+v (want a new library)", got)
	}
	if _, err := c.PublicationDoc(ctx, "acme", "isos", "lib.json"); err == nil {
		t.Fatal("documents outlived their publication")
	}

	// A tenant's publications go with it: a tenant made again under its
	// name publishes nothing of the old one's.
	tenant(t, s, "gone")
	must(t, c.PutPublication(ctx, catalog.Publication{Tenant: "gone", Name: "lib", Bucket: "b", LibraryID: "urn:uuid:4", Created: created}))
	must(t, c.SetPublicationIndex(ctx, "gone", "lib", "", 1, "d", at, []catalog.PublicationDoc{{Path: "lib.json", Body: []byte("{}")}}))
	must(t, s.DeleteTenant(ctx, "gone"))
	tenant(t, s, "gone")
	_, err = c.GetPublication(ctx, "gone", "lib")
	wantErr(t, err, catalog.ErrNoSuchPublication)
	_, err = c.PublicationDoc(ctx, "gone", "lib", "lib.json")
	wantErr(t, err, catalog.ErrNoSuchObject)
}
