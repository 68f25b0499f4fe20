package security_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Data at rest is its owner's alone: under umask 0, in
// a data directory someone made world-readable, with a left-over
// world-readable catalog file, a node makes the directory 0700 and every
// file it holds 0600: the SQLite catalog with its -wal and -shm, the
// blobs and their fan-out directories. The node key is not among them:
// it is kept apart, in the user's key file, itself 0600 in a 0700
// directory.
func TestDataFilesPrivateUnderUmask0(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// A catalog file an older version or an operator left readable.
	if err := os.WriteFile(filepath.Join(dir, "catalog.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.DataDir, c.Catalog = dir, "" // SQLite in the data directory, whatever the suite's catalog
	}})
	u := newUser(t, srv, "acme", "ann", "admin")
	cl := sdk(srv, u)
	ctx := context.Background()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-files")}); err != nil {
		t.Fatal(err)
	}
	for i, size := range []int{10, 100 << 10, 1 << 20} { // inline, and two blobs
		key := aws.String(strings.Repeat("k", i+1))
		if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-files"), Key: key, Body: bytes.NewReader(make([]byte, size))}); err != nil {
			t.Fatal(err)
		}
	}

	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		rel, _ := filepath.Rel(dir, p)
		seen[rel] = true
		if strings.Count(rel, string(filepath.Separator)) >= 2 && !d.IsDir() {
			seen["a blob"] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".", "catalog.db", "catalog.db-wal", "catalog.db-shm", "blobs", "a blob"} {
		if !seen[f] {
			t.Errorf("%s not found in the data directory (have %v)", f, seen)
		}
	}
	if seen["node.key"] {
		t.Error("the node key is in the data directory")
	}
	for p, want := range map[string]fs.FileMode{filepath.Join(srv.ConfigDir, "ostium"): 0o700, filepath.Join(srv.ConfigDir, "ostium", "node.key"): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, want mode %v", p, err, want)
		}
	}
}

// A data directory others can read that cannot be made private is
// refused: /proc refuses every change of mode, even root's.
func TestUnfixableDataDirRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses /proc")
	}
	_, err := node.Open(context.Background(), node.Config{DataDir: "/proc/self", RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey})
	if err == nil || !strings.Contains(err.Error(), "cannot be made") {
		t.Fatalf("open on a data directory that cannot be made private: %v", err)
	}
}
