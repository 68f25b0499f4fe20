package node_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func newKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return base64.StdEncoding.EncodeToString(k)
}

func writeKey(t *testing.T, path, key string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(key+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// open opens and closes a node on dir (SQLite there: which key sealed the
// root's secret is what the test tells apart) and returns Open's error.
func open(t *testing.T, dir string, edit func(*node.Config)) error {
	t.Helper()
	cfg := node.Config{DataDir: dir, RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey}
	edit(&cfg)
	n, err := node.Open(context.Background(), cfg)
	if err == nil {
		n.Close()
	}
	return err
}

// The node key may live apart from the data: in a file, or in a systemd
// credential, which wins over the file it is usually a copy of. The data
// directory then holds no key; a key file others can read, or one that is
// missing, stops the node rather than starting it on a new key.
func TestNodeKeyApartFromData(t *testing.T) {
	dir, etc := t.TempDir(), t.TempDir()
	k1, k2 := newKey(t), newKey(t)
	keyFile := filepath.Join(etc, "node.key")
	writeKey(t, keyFile, k1, 0o600)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err != nil {
		t.Fatalf("open with node_key_file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node.key")); !os.IsNotExist(err) {
		t.Fatalf("a node.key was written to the data directory: %v", err)
	}
	// The root's secret is sealed with k1: the same key opens it, another does not.
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k1 }); err != nil {
		t.Fatalf("reopen with the same key inline: %v", err)
	}
	if err := open(t, dir, func(c *node.Config) { c.NodeKey = k2 }); err == nil {
		t.Fatal("another key opened the root's secret: the key file was not used")
	}

	creds := t.TempDir()
	writeKey(t, filepath.Join(creds, node.NodeKeyCredential), k1, 0o400)
	other := filepath.Join(etc, "other.key")
	writeKey(t, other, k2, 0o600)
	t.Setenv("CREDENTIALS_DIRECTORY", creds)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = other }); err != nil {
		t.Fatalf("the systemd credential was not preferred: %v", err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", t.TempDir()) // no node-key in it
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err != nil {
		t.Fatalf("a credentials directory without node-key: %v", err)
	}

	writeKey(t, keyFile, k1, 0o644)
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = keyFile }); err == nil || !strings.Contains(err.Error(), "readable by every user") {
		t.Fatalf("world-readable key file: %v", err)
	}
	missing := filepath.Join(etc, "typo.key")
	if err := open(t, dir, func(c *node.Config) { c.NodeKeyFile = missing }); err == nil {
		t.Fatal("a missing key file started the node")
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("a missing key file was made: %v", err)
	}
}

// A node key kept apart stays apart in an exported configuration: the
// file names it and does not carry it.
func TestExportLeavesKeyFileApart(t *testing.T) {
	c := sealable(t.TempDir())
	c.NodeKeyFile = "/etc/ostium/node.key"
	sealed, err := node.SealSecrets(c, "p")
	if err != nil {
		t.Fatal(err)
	}
	if sealed.NodeKey != "" || sealed.NodeKeyFile != c.NodeKeyFile {
		t.Fatalf("export: node_key %q, node_key_file %q", sealed.NodeKey, sealed.NodeKeyFile)
	}
}
