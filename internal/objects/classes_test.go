package objects_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/jobs"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// moveNode is a node with two local-disk platforms, "fast" (STANDARD)
// and "cold" (GLACIER_IR), whose background jobs wait an hour, so that
// the test moves, collects and sweeps itself; and a bucket with one
// object of 300 KiB in it.
func moveNode(t *testing.T) (srv *nodetest.Server, c *s3.Client, fast, cold string, data []byte) {
	t.Helper()
	srv = nodetest.Start(t, nodetest.Options{Config: func(cfg *node.Config) {
		fast, cold = filepath.Join(cfg.DataDir, "fast"), filepath.Join(cfg.DataDir, "cold")
		cfg.Platforms = map[string]platform.Spec{"fast": {Type: platform.TypeFS, Path: fast}, "cold": {Type: platform.TypeFS, Path: cold}}
		cfg.DefaultPlatform = "fast"
		cfg.StorageClasses = storageclass.Map{storageclass.GlacierIR: "cold"}
		cfg.GCInterval, cfg.SweepInterval = time.Hour, time.Hour
		cfg.Lifecycle = node.LifecycleConfig{Interval: time.Hour}
	}})
	c = s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, "")})
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	data = make([]byte, 300<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k"), Body: bytes.NewReader(data)}); err != nil {
		t.Fatal(err)
	}
	return srv, c, fast, cold, data
}

func files(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func read(t *testing.T, c *s3.Client) ([]byte, string) {
	t.Helper()
	out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k")})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, string(out.StorageClass)
}

// version is the object as the lifecycle worker lists it.
func version(t *testing.T, srv *nodetest.Server) (catalog.Bucket, catalog.Object) {
	t.Helper()
	ctx := context.Background()
	b, err := srv.Node.Catalog.GetBucket(ctx, "bkt")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := srv.Node.Catalog.ListVersions(ctx, "bkt", catalog.VersionQuery{Limit: 10})
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions: %v %v", vs, err)
	}
	return b, vs[0]
}

// TestMoveCrashBetweenCopyAndSwitch: a move that dies after its copy and
// before its switch (here its goroutine ends there, as a process killed
// at that instant would) loses nothing: the object is read from its old
// blob as before, and the copy, referenced by nothing, is swept. The
// move made again succeeds.
func TestMoveCrashBetweenCopyAndSwitch(t *testing.T) {
	srv, c, fast, cold, data := moveNode(t)
	b, o := version(t, srv)
	restore := objects.SetMoveHook(runtime.Goexit)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Node.Service.Move(context.Background(), b, o, storageclass.GlacierIR)
		t.Error("the move went on past its crash")
	}()
	<-done
	restore()
	if files(t, cold) != 1 || files(t, fast) != 1 {
		t.Fatalf("after the crash: %d blobs on fast, %d on cold; want the original and its copy", files(t, fast), files(t, cold))
	}
	if got, class := read(t, c); !bytes.Equal(got, data) || class != "" {
		t.Fatalf("after the crash: %d bytes, class %q", len(got), class)
	}
	// The sweeper takes the copy (with no grace: nothing is in flight).
	n, err := jobs.NewSweeper(srv.Node.Catalog, srv.Node.Blobs, time.Hour, 0, nil).RunOnce(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if files(t, cold) != 0 || files(t, fast) != 1 {
		t.Fatalf("after the sweep: %d blobs on fast, %d on cold", files(t, fast), files(t, cold))
	}
	if got, _ := read(t, c); !bytes.Equal(got, data) {
		t.Fatal("the sweep took the object's blob")
	}

	m, err := srv.Node.Service.Move(context.Background(), b, o, storageclass.GlacierIR)
	if err != nil || m.Bytes != int64(len(data)) || m.Blobs != 1 {
		t.Fatalf("move: %+v %v", m, err)
	}
	if got, class := read(t, c); !bytes.Equal(got, data) || class != "GLACIER_IR" {
		t.Fatalf("after the move: %d bytes, class %q", len(got), class)
	}
	if _, err := jobs.NewCollector(srv.Node.Catalog, srv.Node.Blobs, time.Hour, nil).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if files(t, cold) != 1 || files(t, fast) != 0 {
		t.Fatalf("after the move and collection: %d blobs on fast, %d on cold", files(t, fast), files(t, cold))
	}
}

// TestMoveOfAChangedVersion: an object written again while its old
// version's bytes are copied is not switched (the catalog's guard), and
// the copies are deleted at once; the new version stays where it was
// written.
func TestMoveOfAChangedVersion(t *testing.T) {
	srv, c, fast, cold, _ := moveNode(t)
	b, o := version(t, srv)
	newer := []byte("written during the move")
	restore := objects.SetMoveHook(func() {
		if _, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("k"), Body: bytes.NewReader(newer)}); err != nil {
			t.Error(err)
		}
	})
	defer restore()
	_, err := srv.Node.Service.Move(context.Background(), b, o, storageclass.GlacierIR)
	if !errors.Is(err, objects.ErrMoveChanged) {
		t.Fatalf("move of a replaced version: %v", err)
	}
	if got, class := read(t, c); !bytes.Equal(got, newer) || class != "" {
		t.Fatalf("after the refused move: %q, class %q", got, class)
	}
	if files(t, cold) != 0 {
		t.Fatalf("%d copies left on cold", files(t, cold))
	}
	_ = fast
}
