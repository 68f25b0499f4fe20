package node_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/platform"
)

// sealable is a configuration with secrets of every kind; its node's
// user configuration directory is beside dir, the test's own.
func sealable(dir string) node.Config {
	return node.Config{
		DataDir: dir, ConfigDir: dir + "-config", Catalog: "postgres://ostium:pg-secret-pw@db:5432/ostium?sslmode=disable",
		RootAccessKey: "ROOTKEY", RootSecretKey: "root-secret-0123456789",
		Platforms: map[string]platform.Spec{
			"ceph": {Type: platform.TypeS3, S3: s3blob.Config{Bucket: "ostium", AccessKey: "CK", SecretKey: "ceph-secret-xyz"}},
			"disk": {Type: platform.TypeFS, Path: "/srv"},
		},
		DefaultPlatform: "ceph",
		Metrics:         node.MetricsConfig{Token: "metrics-token-abc"},
	}
}

// Export seals every secret (and carries the node key from the user's key
// file), import opens them back exactly; a wrong passphrase fails naming
// the key; a sealed file is not a configuration a node starts on.
func TestSealAndOpenSecrets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	c := sealable(dir)
	path, err := node.UserNodeKeyPath(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := iam.LoadOrMakeNodeKey(path); err != nil { // what a node's first start does
		t.Fatal(err)
	}
	nodeKey, _ := os.ReadFile(path)
	sealed, err := node.SealSecrets(c, "pass phrase")
	if err != nil {
		t.Fatal(err)
	}
	data, err := node.MarshalConfig(sealed)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"pg-secret-pw", "root-secret-0123456789", "ceph-secret-xyz", "metrics-token-abc", strings.TrimSpace(string(nodeKey))} {
		if strings.Contains(string(data), plain) {
			t.Errorf("the exported file holds %q in the clear", plain)
		}
	}
	if c.Platforms["ceph"].S3.SecretKey != "ceph-secret-xyz" {
		t.Error("sealing changed the caller's configuration")
	}
	if got := node.SealedKeys(sealed); len(got) != 5 {
		t.Errorf("sealed keys %v, want 5", got)
	}
	if _, err := node.ParseConfig(data); err == nil || !strings.Contains(err.Error(), "root_secret_key") {
		t.Errorf("a sealed file parsed as a configuration: %v", err)
	}
	back, err := node.DecodeConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.OpenSecrets(back, "wrong"); err == nil || !strings.Contains(err.Error(), "wrong passphrase") {
		t.Errorf("wrong passphrase: %v", err)
	}
	opened, err := node.OpenSecrets(back, "pass phrase")
	if err != nil {
		t.Fatal(err)
	}
	want := c
	want.NodeKey = strings.TrimSpace(string(nodeKey))
	if opened.Catalog != want.Catalog || opened.RootSecretKey != want.RootSecretKey || opened.NodeKey != want.NodeKey ||
		opened.Platforms["ceph"] != want.Platforms["ceph"] || opened.Platforms["disk"] != want.Platforms["disk"] || opened.Metrics.Token != want.Metrics.Token {
		t.Fatalf("opened %+v\nwant %+v", opened, want)
	}
	if err := opened.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := node.SealSecrets(sealable(filepath.Join(t.TempDir(), "data")), "p"); err == nil || !strings.Contains(err.Error(), "node_key") {
		t.Errorf("export without a node key: %v", err)
	}
	// A data directory an earlier version keeps its key in: that one.
	old := filepath.Join(t.TempDir(), "data")
	legacy, err := iam.LoadNodeKey(old, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := node.SealSecrets(sealable(old), "p"); err != nil {
		t.Errorf("export with the key in the data directory: %v", err)
	} else if opened, _ := node.OpenSecrets(got, "p"); opened.NodeKey != base64.StdEncoding.EncodeToString(legacy) {
		t.Errorf("export carried %q, not the data directory's key", opened.NodeKey)
	}
}
