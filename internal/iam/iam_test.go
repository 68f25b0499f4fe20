package iam_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
)

func TestSealerBindsSecretToItsKey(t *testing.T) {
	key, err := iam.LoadNodeKey(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := iam.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed := s.Seal("the secret", "AK1")
	if bytes.Contains(sealed, []byte("the secret")) {
		t.Fatal("secret stored in the clear")
	}
	if got, err := s.Open(sealed, "AK1"); err != nil || got != "the secret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	// Sealed for one access key, it does not open for another (a row
	// copied onto another key), nor once tampered with.
	if _, err := s.Open(sealed, "AK2"); err == nil {
		t.Fatal("opened under another access key")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := s.Open(sealed, "AK1"); err == nil {
		t.Fatal("opened a tampered secret")
	}
}

// The node key is made once and kept; OSTIUM_NODE_KEY overrides it.
func TestNodeKeyIsKept(t *testing.T) {
	dir := t.TempDir()
	k1, err := iam.LoadNodeKey(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	k2, err := iam.LoadNodeKey(dir, "")
	if err != nil || !bytes.Equal(k1, k2) || len(k1) != 32 {
		t.Fatalf("second load: %x vs %x (%v)", k2, k1, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "node.key")); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("node.key: %v, mode %v", err, fi.Mode())
	}
	if _, err := iam.LoadNodeKey(dir, "not base64!"); err == nil {
		t.Fatal("a malformed OSTIUM_NODE_KEY was accepted")
	}
}

func TestRootCredentials(t *testing.T) {
	ctx := context.Background()
	cat, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	key, _ := iam.LoadNodeKey(t.TempDir(), "")
	s, _ := iam.NewSealer(key)

	// First start without configured credentials: generated once.
	ak, sk, err := iam.EnsureRoot(ctx, cat, s, "", "")
	if err != nil || ak == "" || len(sk) < 30 {
		t.Fatalf("EnsureRoot = %q, %q, %v", ak, sk, err)
	}
	if ak2, _, err := iam.EnsureRoot(ctx, cat, s, "", ""); err != nil || ak2 != "" {
		t.Fatalf("second start generated again: %q, %v", ak2, err)
	}
	kr := iam.NewKeyring(cat, s, time.Minute, nil)
	secret, id, err := kr.Lookup(ctx, ak)
	if err != nil || secret != sk || !id.Root {
		t.Fatalf("Lookup = %q, %+v, %v", secret, id, err)
	}
	if _, _, err := kr.Lookup(ctx, "NOPE"); !errors.Is(err, iam.ErrUnknownKey) {
		t.Fatalf("unknown key: %v", err)
	}

	// Configured credentials are stored; a changed secret is refused
	// rather than silently ignored.
	if _, _, err := iam.EnsureRoot(ctx, cat, s, "ROOTKEY", "root-secret"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := iam.EnsureRoot(ctx, cat, s, "ROOTKEY", "other-secret"); err == nil {
		t.Fatal("a different secret for an existing root key was accepted")
	}
	if _, _, err := iam.EnsureRoot(ctx, cat, s, "ROOTKEY", ""); err == nil {
		t.Fatal("an access key without a secret was accepted")
	}
}

// Every character of a secret is random: no two secrets share a tail.
func TestNewAccessKeySecretsAreRandomThroughout(t *testing.T) {
	_, s1 := iam.NewAccessKey()
	_, s2 := iam.NewAccessKey()
	if len(s1) != 40 || len(s2) != 40 {
		t.Fatalf("secret lengths %d, %d", len(s1), len(s2))
	}
	if s1[30:] == s2[30:] {
		t.Fatalf("secrets %s and %s share their last 10 characters", s1, s2)
	}
}
