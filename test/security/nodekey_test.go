package security_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// A copy of the data directory (a backup, a stolen disk) does not open
// tenants' SSE-S3 objects: the node key that seals the keyring's master
// key is not in it. Started elsewhere, by a user whose configuration
// directory holds another key (or none), the copy refuses to start and
// says why; nothing it holds is plaintext. Given the original key, the
// same copy serves the objects: it is the key, kept apart, that decides.
func TestDataDirCopyDoesNotDecrypt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	srv := start(t, nodetest.Options{Config: func(c *node.Config) {
		c.DataDir, c.Catalog = dir, "" // SQLite in the data directory: the copy is the whole node
	}})
	u := newUser(t, srv, "acme", "ann", "admin")
	cl := sdk(srv, u)
	ctx := context.Background()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-secret")}); err != nil {
		t.Fatal(err)
	}
	objects := map[string][]byte{
		"inline": bytes.Repeat([]byte("tenant-plaintext-inline!"), 10),      // kept in the catalog row
		"blob":   bytes.Repeat([]byte("tenant-plaintext-in-a-blob!"), 8000), // in a blob file
	}
	for k, body := range objects {
		if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-secret"), Key: aws.String(k), Body: bytes.NewReader(body),
			ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
			t.Fatal(err)
		}
	}
	keyFile := filepath.Join(srv.ConfigDir, "ostium", "node.key")
	nodeKey, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatalf("the node key is not in the user's key file: %v", err)
	}
	srv.Stop()

	copyDir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(copyDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte("tenant-plaintext")) {
			t.Errorf("%s holds an object's plaintext", p)
		}
		if bytes.Contains(b, bytes.TrimSpace(nodeKey)) {
			t.Errorf("%s holds the node key", p)
		}
		return nil
	})

	// Another user's configuration directory: a new key is made there,
	// which the catalog's check refuses before anything is served.
	other := t.TempDir()
	_, err = node.Open(ctx, node.Config{DataDir: copyDir, ConfigDir: other, RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey})
	if err == nil || !strings.Contains(err.Error(), "does not open this catalog's secrets") || !strings.Contains(err.Error(), "node_key_file") {
		t.Fatalf("a copy of the data directory under another key: %v", err)
	}
	// Nor does a root pair it was not given change that: the check comes
	// before the root key is looked at.
	_, err = node.Open(ctx, node.Config{DataDir: copyDir, ConfigDir: other})
	if err == nil || !strings.Contains(err.Error(), "does not open this catalog's secrets") {
		t.Fatalf("a copy of the data directory, no root pair given: %v", err)
	}

	// The copy with the original key (as a provider restoring a backup
	// gives it) serves the objects.
	restored := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.DataDir, c.Catalog, c.NodeKeyFile = copyDir, "", keyFile
	}})
	rc := sdk(restored, u)
	for k, body := range objects {
		out, err := rc.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-secret"), Key: aws.String(k)})
		if err != nil {
			t.Fatalf("restored copy, with the key: GET %s: %v", k, err)
		}
		got, _ := io.ReadAll(out.Body)
		out.Body.Close()
		if !bytes.Equal(got, body) || out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
			t.Fatalf("restored copy, with the key: GET %s: %d bytes, %q", k, len(got), out.ServerSideEncryption)
		}
	}
}
