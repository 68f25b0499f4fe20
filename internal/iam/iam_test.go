package iam_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
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

// Processes making the key at once agree on one: exactly one makes it,
// the others read it whole (never an empty or half-written file), and no
// private file is left behind.
func TestNodeKeyMadeOnceAtOnce(t *testing.T) {
	for round := 0; round < 20; round++ {
		dir := filepath.Join(t.TempDir(), "ostium")
		path := filepath.Join(dir, "node.key")
		const n = 16
		keys, made, errs := make([][]byte, n), make([]bool, n), make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); keys[i], made[i], errs[i] = iam.LoadOrMakeNodeKey(path) }()
		}
		wg.Wait()
		makers := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d: %v", round, errs[i])
			}
			if !bytes.Equal(keys[i], keys[0]) || len(keys[i]) != 32 {
				t.Fatalf("round %d: keys differ: %x vs %x", round, keys[i], keys[0])
			}
			if made[i] {
				makers++
			}
		}
		if makers != 1 {
			t.Fatalf("round %d: %d callers made the key", round, makers)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 {
			t.Fatalf("round %d: %d files left beside the key", round, len(left))
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Fatalf("the key's directory: mode %v", fi.Mode().Perm())
		}
	}
	// A key already there is kept: installing another tells the one found.
	path := filepath.Join(t.TempDir(), "node.key")
	k1, _, _ := iam.LoadOrMakeNodeKey(path)
	have, installed, err := iam.InstallNodeKey(path, bytes.Repeat([]byte{7}, 32))
	if err != nil || installed || !bytes.Equal(have, k1) {
		t.Fatalf("InstallNodeKey over a key: %x, %v, %v", have, installed, err)
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
