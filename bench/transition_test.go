package bench

// Lifecycle transitions between platforms: how many objects a second the
// lifecycle worker moves from one local-disk platform to another (copy
// each blob, switch its catalog row, queue the old blob), next to a
// ceiling measured in the same run: the same number of blobs of the same
// size copied from one directory to the other by the blob store itself,
// one at a time as the worker does, each durable before the next. The
// ratio is what the catalog's switch, the listing and the pacing cost on
// top of the bytes.
//
//	go test -run '^$' -bench Transition -benchtime 300x ./bench
//	bench/run.sh transition
//
// Objects are written (16 at a time, not timed) into a fresh bucket per
// round with a rule that makes them due at once (GLACIER_IR after 0
// days on a one-second test day); one pass of the worker, unpaced, is
// timed.

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/fs"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// transitionRounds interleaves the targets, as sseRounds does.
const transitionRounds = 3

func BenchmarkTransition256KiB(b *testing.B)  { benchTransition(b, 256<<10) }
func BenchmarkTransition4096KiB(b *testing.B) { benchTransition(b, 4<<20) }

func benchTransition(b *testing.B, size int) {
	var dir, fast, cold string
	srv := nodetest.Start(b, nodetest.Options{Config: func(c *node.Config) {
		dir = c.DataDir
		fast, cold = filepath.Join(c.DataDir, "fast"), filepath.Join(c.DataDir, "cold")
		c.Platforms = map[string]platform.Spec{"fast": {Type: platform.TypeFS, Path: fast}, "cold": {Type: platform.TypeFS, Path: cold}}
		c.DefaultPlatform = "fast"
		c.StorageClasses = storageclass.Map{storageclass.GlacierIR: "cold"}
		c.Lifecycle = node.LifecycleConfig{Day: time.Second, Interval: time.Hour}
	}})
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, "")})
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(uint64(size), 7))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	src, err := fs.Open(filepath.Join(dir, "ceiling-src"))
	if err != nil {
		b.Fatal(err)
	}
	dst, err := fs.Open(filepath.Join(dir, "ceiling-dst"))
	if err != nil {
		b.Fatal(err)
	}
	round := 0
	for range transitionRounds {
		b.Run("target=ostium", func(b *testing.B) {
			round++
			bucket := fmt.Sprintf("tr-%d-%d", round, b.N)
			fillObjects(b, c, bucket, b.N, data)
			cfg, err := lifecycle.Parse([]byte(`<LifecycleConfiguration><Rule><ID>now</ID><Filter/><Status>Enabled</Status>` +
				`<Transition><Days>0</Days><StorageClass>GLACIER_IR</StorageClass></Transition></Rule></LifecycleConfiguration>`))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := srv.Node.Catalog.SetBucketSetting(ctx, bucket, catalog.SettingLifecycle, cfg.Encode()); err != nil {
				b.Fatal(err)
			}
			time.Sleep(time.Until(lifecycle.DueAt(time.Now(), 0, time.Second)) + 10*time.Millisecond)
			w := lifecycle.NewWorker(srv.Node.Catalog, srv.Node.Service, lifecycle.Options{Day: time.Second, Rate: 1_000_000})
			b.ResetTimer()
			start := time.Now()
			st, err := w.RunOnce(ctx)
			elapsed := time.Since(start)
			b.StopTimer()
			if err != nil || st.Moved != b.N {
				b.Fatalf("pass: %v %v", st, err)
			}
			// Out of the way of the next rounds' passes.
			if err := srv.Node.Catalog.SetBucketSetting(ctx, bucket, catalog.SettingLifecycle, ""); err != nil {
				b.Fatal(err)
			}
			report(b, elapsed, size)
		})
		b.Run("target=ceiling", func(b *testing.B) {
			ctx := context.Background()
			ids := make([]string, b.N)
			for i := range ids {
				ids[i] = blob.NewID()
				if _, err := src.Put(ctx, ids[i], bytes.NewReader(data), int64(size)); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			start := time.Now()
			for _, id := range ids {
				rc, err := src.Get(ctx, id, 0, -1)
				if err != nil {
					b.Fatal(err)
				}
				_, err = dst.Put(ctx, blob.NewID(), rc, int64(size))
				rc.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start)
			b.StopTimer()
			report(b, elapsed, size)
		})
	}
}

func report(b *testing.B, elapsed time.Duration, size int) {
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(b.N)*float64(size)/(1<<20)/elapsed.Seconds(), "MiB/s")
}

// fillObjects writes n objects of data into a new bucket, 16 at a time.
func fillObjects(b *testing.B, c *s3.Client, bucket string, n int, data []byte) {
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				key := fmt.Sprintf("o%07d", i)
				if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader(data)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}
