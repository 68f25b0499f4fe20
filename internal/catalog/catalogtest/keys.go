package catalogtest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func keyStore(t *testing.T, s catalog.Store) catalog.KeyStore {
	t.Helper()
	ks, ok := s.(catalog.KeyStore)
	if !ok {
		t.Fatalf("%T does not implement catalog.KeyStore", s)
	}
	return ks
}

func sealedVersion(n, master int) catalog.KeyVersion {
	return catalog.KeyVersion{Version: n, Sealed: []byte(fmt.Sprintf("sealed-%d-by-%d\x00\xff", n, master)), MasterVersion: master,
		Created: time.Now().UTC().Truncate(time.Millisecond)}
}

// testKeys checks tenant keys and master versions: names unique per
// tenant among live keys, tenants apart, a destroyed key's material
// gone in the same change, rotations that cannot both win, and a master
// version that cannot go while anything is sealed by it.
func testKeys(t *testing.T, s catalog.Store) {
	ks := keyStore(t, s)
	gen0, err := s.IdentityGeneration(ctx)
	must(t, err)
	must(t, ks.AddMasterKey(ctx, catalog.MasterKey{Version: 1, Sealed: []byte("m1"), Created: time.Now()}))
	wantErr(t, ks.AddMasterKey(ctx, catalog.MasterKey{Version: 1, Sealed: []byte("other"), Created: time.Now()}), catalog.ErrKeyExists)

	now := time.Now().UTC().Truncate(time.Millisecond)
	k := catalog.TenantKey{ID: "k-1", Tenant: "acme", Name: "aws/s3", State: catalog.KeyEnabled, Created: now,
		Versions: []catalog.KeyVersion{sealedVersion(1, 1)}}
	must(t, ks.CreateKey(ctx, k))
	if gen, err := s.IdentityGeneration(ctx); err != nil || gen == gen0 {
		t.Fatalf("identity generation %d after creating a key, was %d (%v): other nodes would keep stale keys", gen, gen0, err)
	}
	got, err := ks.GetKey(ctx, "k-1")
	must(t, err)
	if got.Tenant != "acme" || got.Name != "aws/s3" || got.State != catalog.KeyEnabled || !got.Created.Equal(now) || got.Version != 1 ||
		len(got.Versions) != 1 || !bytes.Equal(got.Versions[0].Sealed, k.Versions[0].Sealed) || got.Versions[0].MasterVersion != 1 {
		t.Fatalf("GetKey = %+v", got)
	}
	byName, err := ks.KeyByName(ctx, "acme", "aws/s3")
	must(t, err)
	if byName.ID != "k-1" || len(byName.Versions) != 1 {
		t.Fatalf("KeyByName = %+v", byName)
	}
	_, err = ks.KeyByName(ctx, "other", "aws/s3")
	wantErr(t, err, catalog.ErrNoSuchKey)
	_, err = ks.GetKey(ctx, "nope")
	wantErr(t, err, catalog.ErrNoSuchKey)

	// The same id, or the same tenant's name, is taken; another tenant's
	// name, or a key without one, is not.
	wantErr(t, ks.CreateKey(ctx, catalog.TenantKey{ID: "k-1", Tenant: "zed", Name: "x", State: catalog.KeyEnabled, Created: now}), catalog.ErrKeyExists)
	wantErr(t, ks.CreateKey(ctx, catalog.TenantKey{ID: "k-2", Tenant: "acme", Name: "aws/s3", State: catalog.KeyEnabled, Created: now,
		Versions: []catalog.KeyVersion{sealedVersion(1, 1)}}), catalog.ErrKeyExists)
	if _, err := ks.GetKey(ctx, "k-2"); err == nil {
		t.Fatal("a refused key was stored")
	}
	must(t, ks.CreateKey(ctx, catalog.TenantKey{ID: "k-3", Tenant: "zed", Name: "aws/s3", State: catalog.KeyEnabled, Created: now.Add(time.Millisecond),
		Versions: []catalog.KeyVersion{sealedVersion(1, 1)}}))
	for i := range 2 {
		must(t, ks.CreateKey(ctx, catalog.TenantKey{ID: fmt.Sprintf("k-anon%d", i), Tenant: "acme", State: catalog.KeyEnabled,
			Created: now.Add(time.Duration(i+1) * time.Second), Versions: []catalog.KeyVersion{sealedVersion(1, 1)}}))
	}
	// Sealed by a master version that does not exist: refused, or the
	// key could never be opened.
	wantErr(t, ks.CreateKey(ctx, catalog.TenantKey{ID: "k-4", Tenant: "acme", State: catalog.KeyEnabled, Created: now,
		Versions: []catalog.KeyVersion{sealedVersion(1, 9)}}), catalog.ErrNoSuchKey)
	if _, err := ks.GetKey(ctx, "k-4"); err == nil {
		t.Fatal("a key sealed by no master version was stored")
	}
	list, err := ks.ListKeys(ctx, "acme")
	must(t, err)
	if len(list) != 3 || list[0].ID != "k-1" || list[1].ID != "k-anon0" || list[2].ID != "k-anon1" || list[0].Version != 1 {
		t.Fatalf("ListKeys(acme) = %+v", list)
	}

	// Rotation: the next version only, so two rotations cannot both win.
	must(t, ks.AddKeyVersion(ctx, "k-1", sealedVersion(2, 1)))
	wantErr(t, ks.AddKeyVersion(ctx, "k-1", sealedVersion(2, 1)), catalog.ErrKeyExists)
	wantErr(t, ks.AddKeyVersion(ctx, "k-1", sealedVersion(4, 1)), catalog.ErrKeyExists)
	wantErr(t, ks.AddKeyVersion(ctx, "nope", sealedVersion(1, 1)), catalog.ErrNoSuchKey)
	got, err = ks.GetKey(ctx, "k-1")
	must(t, err)
	if got.Version != 2 || len(got.Versions) != 2 || got.Versions[1].Version != 2 {
		t.Fatalf("after rotation = %+v", got)
	}

	// States.
	must(t, ks.SetKeyState(ctx, "k-1", catalog.KeyDisabled))
	got, err = ks.GetKey(ctx, "k-1")
	must(t, err)
	if got.State != catalog.KeyDisabled || len(got.Versions) != 2 {
		t.Fatalf("disabled key = %+v", got)
	}
	must(t, ks.SetKeyState(ctx, "k-1", catalog.KeyEnabled))
	wantErr(t, ks.SetKeyState(ctx, "nope", catalog.KeyDisabled), catalog.ErrNoSuchKey)
	if err := ks.SetKeyState(ctx, "k-1", "bogus"); err == nil {
		t.Fatal("an unknown state was accepted")
	}

	// Master rotation: the versions sealed by an older master, re-sealed
	// once (a stale re-seal does nothing); the old master goes only when
	// nothing is sealed by it.
	must(t, ks.AddMasterKey(ctx, catalog.MasterKey{Version: 2, Sealed: []byte("m2"), Created: time.Now()}))
	refs, err := ks.KeysSealedBefore(ctx, 2, 100)
	must(t, err)
	if len(refs) != 5 {
		t.Fatalf("KeysSealedBefore(2) = %+v, want the 5 versions sealed by 1", refs)
	}
	page, err := ks.KeysSealedBefore(ctx, 2, 2)
	must(t, err)
	if len(page) != 2 {
		t.Fatalf("KeysSealedBefore(2, limit 2) = %+v", page)
	}
	wantErr(t, ks.DeleteMasterKey(ctx, 1), catalog.ErrKeyExists)
	for _, r := range refs {
		done, err := ks.ResealKeyVersion(ctx, r.ID, r.Version, []byte("resealed"), 2, 1)
		must(t, err)
		if !done {
			t.Fatalf("re-seal of %+v not done", r)
		}
		if again, err := ks.ResealKeyVersion(ctx, r.ID, r.Version, []byte("stale"), 2, 1); err != nil || again {
			t.Fatalf("a second re-seal from master 1 of %+v = %v, %v", r, again, err)
		}
	}
	_, err = ks.ResealKeyVersion(ctx, "k-1", 1, []byte("x"), 7, 2)
	wantErr(t, err, catalog.ErrNoSuchKey) // master 7 does not exist
	got, err = ks.GetKey(ctx, "k-1")
	must(t, err)
	for _, v := range got.Versions {
		if v.MasterVersion != 2 || string(v.Sealed) != "resealed" {
			t.Fatalf("after re-seal: %+v", v)
		}
	}
	if refs, _ := ks.KeysSealedBefore(ctx, 2, 100); len(refs) != 0 {
		t.Fatalf("still sealed before 2: %+v", refs)
	}
	must(t, ks.DeleteMasterKey(ctx, 1))
	wantErr(t, ks.DeleteMasterKey(ctx, 1), catalog.ErrNoSuchKey)
	masters, err := ks.MasterKeys(ctx)
	must(t, err)
	if len(masters) != 1 || masters[0].Version != 2 || string(masters[0].Sealed) != "m2" {
		t.Fatalf("MasterKeys = %+v", masters)
	}

	// Destroyed: material gone in the same change, state kept, the name
	// free again, and no way back.
	must(t, ks.SetKeyState(ctx, "k-1", catalog.KeyDestroyed))
	got, err = ks.GetKey(ctx, "k-1")
	must(t, err)
	if got.State != catalog.KeyDestroyed || len(got.Versions) != 0 {
		t.Fatalf("destroyed key = %+v", got)
	}
	_, err = ks.KeyByName(ctx, "acme", "aws/s3")
	wantErr(t, err, catalog.ErrNoSuchKey)
	must(t, ks.SetKeyState(ctx, "k-1", catalog.KeyDestroyed))
	wantErr(t, ks.SetKeyState(ctx, "k-1", catalog.KeyEnabled), catalog.ErrKeyDestroyed)
	wantErr(t, ks.AddKeyVersion(ctx, "k-1", sealedVersion(3, 2)), catalog.ErrKeyDestroyed)
	must(t, ks.CreateKey(ctx, catalog.TenantKey{ID: "k-5", Tenant: "acme", Name: "aws/s3", State: catalog.KeyEnabled, Created: now,
		Versions: []catalog.KeyVersion{sealedVersion(1, 2)}}))
	if byName, err := ks.KeyByName(ctx, "acme", "aws/s3"); err != nil || byName.ID != "k-5" {
		t.Fatalf("KeyByName after the name's key was destroyed = %+v, %v", byName, err)
	}
	if list, _ := ks.ListKeys(ctx, "acme"); len(list) != 4 {
		t.Fatalf("ListKeys keeps destroyed keys: %+v", list)
	}
}
