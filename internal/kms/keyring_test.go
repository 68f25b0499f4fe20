package kms_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/kms/kmstest"
	"github.com/ostiumio/ostium/internal/testenv"
)

var ctx = context.Background()

// openCatalog opens a fresh catalog of the kind the suite runs on
// (OSTIUM_TEST_CATALOG).
func openCatalog(t *testing.T) catalog.Store {
	t.Helper()
	var s catalog.Store
	var err error
	if u := testenv.CatalogURL(t); u != "" {
		s, err = postgres.Open(ctx, u, 0)
	} else {
		s, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "catalog.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func nodeKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func keyring(t *testing.T, s catalog.Store, key []byte, o kms.KeyringOptions) *kms.Keyring {
	t.Helper()
	k, err := kms.NewKeyring(s.(catalog.KeyStore), key, o)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyringConformance(t *testing.T) {
	kmstest.Run(t, kmstest.Options{Region: "eu-west-3", Open: func(t *testing.T) kms.Manager {
		return keyring(t, openCatalog(t), nodeKey(), kms.KeyringOptions{Region: "eu-west-3"})
	}})
}

// Two nodes over one catalog: a key destroyed through one stops opening
// on the other as soon as the other's epoch moves (the node's identity
// generation watch), even though it had the key cached.
func TestKeyringEpochDropsCachedKeys(t *testing.T) {
	s, key := openCatalog(t), nodeKey()
	var epochB atomic.Uint64
	a := keyring(t, s, key, kms.KeyringOptions{})
	b := keyring(t, s, key, kms.KeyringOptions{Epoch: epochB.Load})
	id, err := a.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	dk, err := a.NewDataKey(ctx, "acme", id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Unwrap(ctx, "acme", id, dk.Wrapped, nil); err != nil {
		t.Fatalf("node b: %v", err)
	}
	if _, err := a.SetKeyState(ctx, "acme", id, kms.StateDestroyed); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Unwrap(ctx, "acme", id, dk.Wrapped, nil); !errors.Is(err, kms.ErrDestroyed) {
		t.Fatalf("node a after destroying: %v", err)
	}
	epochB.Add(1)
	if _, err := b.Unwrap(ctx, "acme", id, dk.Wrapped, nil); !errors.Is(err, kms.ErrDestroyed) {
		t.Fatalf("node b after its epoch moved: %v, want ErrDestroyed", err)
	}
}

// A key rotated through another node: data keys the new version wrapped
// open on a node that cached the key before the rotation, at once.
func TestKeyringRotatedElsewhere(t *testing.T) {
	s, key := openCatalog(t), nodeKey()
	a := keyring(t, s, key, kms.KeyringOptions{})
	b := keyring(t, s, key, kms.KeyringOptions{})
	id, _ := a.DefaultKey(ctx, "acme")
	if _, err := b.NewDataKey(ctx, "acme", id, nil); err != nil { // b caches version 1
		t.Fatal(err)
	}
	if _, err := a.RotateKey(ctx, "acme", id); err != nil {
		t.Fatal(err)
	}
	dk, err := a.NewDataKey(ctx, "acme", id, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := b.Unwrap(ctx, "acme", id, dk.Wrapped, nil)
	if err != nil || !bytes.Equal(plain, dk.Plain) {
		t.Fatalf("node b, version 2 data key: %v", err)
	}
}

// A node started with another node key opens nothing the catalog seals,
// and says why, rather than making keys of its own beside them.
func TestKeyringWrongNodeKey(t *testing.T) {
	s := openCatalog(t)
	a := keyring(t, s, nodeKey(), kms.KeyringOptions{})
	id, err := a.DefaultKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	dk, _ := a.NewDataKey(ctx, "acme", id, nil)
	other := keyring(t, s, nodeKey(), kms.KeyringOptions{})
	_, err = other.Unwrap(ctx, "acme", id, dk.Wrapped, nil)
	if err == nil || !strings.Contains(err.Error(), "node key") {
		t.Fatalf("Unwrap under another node key: %v", err)
	}
	if _, err := other.DefaultKey(ctx, "zed"); err == nil || !strings.Contains(err.Error(), "node key") {
		t.Fatalf("DefaultKey under another node key: %v", err)
	}
	if keys, _ := a.ListKeys(ctx, "zed"); len(keys) != 0 {
		t.Fatalf("a node with the wrong node key made keys: %+v", keys)
	}
}

// The catalog holds no key in the clear: neither the data key nor
// anything that opens without the node key.
func TestKeyringCatalogHoldsNoPlainKey(t *testing.T) {
	dir := t.TempDir()
	s, err := sqlite.Open(ctx, filepath.Join(dir, "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := keyring(t, s, nodeKey(), kms.KeyringOptions{})
	id, _ := k.DefaultKey(ctx, "acme")
	dk, err := k.NewDataKey(ctx, "acme", id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ks := s.(catalog.KeyStore)
	ck, err := ks.GetKey(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	masters, _ := ks.MasterKeys(ctx)
	for _, sealed := range [][]byte{ck.Versions[0].Sealed, masters[0].Sealed} {
		if len(sealed) != 12+32+16 {
			t.Fatalf("sealed key of %d bytes, want nonce, key and tag", len(sealed))
		}
	}
	if bytes.Contains(dk.Wrapped, dk.Plain) {
		t.Fatal("the wrapped data key holds it in the clear")
	}
}
