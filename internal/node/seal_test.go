package node_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/platform"
)

func sealable(dir string) node.Config {
	return node.Config{
		DataDir: dir, Catalog: "postgres://ostium:pg-secret-pw@db:5432/ostium?sslmode=disable",
		RootAccessKey: "ROOTKEY", RootSecretKey: "root-secret-0123456789",
		Platforms: map[string]platform.Spec{
			"ceph": {Type: platform.TypeS3, S3: s3blob.Config{Bucket: "ostium", AccessKey: "CK", SecretKey: "ceph-secret-xyz"}},
			"disk": {Type: platform.TypeFS, Path: "/srv"},
		},
		DefaultPlatform: "ceph",
		Metrics:         node.MetricsConfig{Token: "metrics-token-abc"},
	}
}

// Export seals every secret (and carries the node key from the data
// directory), import opens them back exactly; a wrong passphrase fails
// naming the key; a sealed file is not a configuration a node starts on.
func TestSealAndOpenSecrets(t *testing.T) {
	dir := t.TempDir()
	if _, err := iam.LoadNodeKey(dir, ""); err != nil { // what a node's first start does
		t.Fatal(err)
	}
	nodeKey, _ := os.ReadFile(filepath.Join(dir, "node.key"))
	c := sealable(dir)
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
	if _, err := node.SealSecrets(sealable(t.TempDir()), "p"); err == nil || !strings.Contains(err.Error(), "node_key") {
		t.Errorf("export without a node key: %v", err)
	}
}
