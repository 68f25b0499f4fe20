// Command fill fills a running node's catalog with millions of objects
// in minutes: it PUTs one real object over S3 (the template), then writes
// copies of the template's catalog row under new keys straight into the
// catalog, many to a transaction (sqldb's FillObjects: the rows a PUT of
// a new key writes), and finally GETs a sample of the filled keys back
// over S3 and checks their bytes and ETag against the template's.
//
// Every filled object is a copy of the template: the same small body,
// kept inline in its row as every object up to 32 KiB is (no blob file,
// so 10 million of them cost no blob store), the same ETag, metadata and
// owner. What a catalog's size and speed depend on (one row per key in
// each index, B-tree depth, rows per page) is the same as for objects
// PUT one by one with bodies of that size.
//
// Keys are obj-%08d, spread round robin over the buckets (object i is
// key i/buckets of bucket i%buckets), written in key order; -start
// resumes a fill cut short.
//
//	go run ./bench/fill -endpoint http://127.0.0.1:9000 -catalog /data/catalog.db -objects 10000000
//	go run ./bench/fill -endpoint URL -catalog postgres://... -objects 10000000 -buckets 4
//
// Keys come from OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
)

func main() {
	endpoint := flag.String("endpoint", "http://127.0.0.1:9000", "the node's S3 endpoint")
	catURL := flag.String("catalog", "", "the node's catalog: a SQLite file or a postgres:// URL")
	buckets := flag.Int("buckets", 4, "buckets to spread the objects over")
	prefix := flag.String("bucket-prefix", "fill", "buckets are PREFIX-0, PREFIX-1, ...")
	objects := flag.Int64("objects", 1_000_000, "objects in all")
	start := flag.Int64("start", 0, "the first object to write (to resume a fill)")
	batch := flag.Int("batch", 5000, "objects per transaction")
	size := flag.Int("size", 64, "bytes of the template object (and so of every filled one)")
	sample := flag.Int("sample", 200, "filled objects read back over S3 at the end")
	flag.Parse()
	if *catURL == "" || *buckets <= 0 || *batch <= 0 || *objects <= 0 {
		log.Fatal("fill: -catalog, and positive -buckets, -batch and -objects, are needed")
	}
	ctx := context.Background()
	cli := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(*endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), os.Getenv("OSTIUM_ROOT_SECRET_KEY"), ""),
		HTTPClient:  &http.Client{Timeout: time.Minute},
	})
	bucket := func(i int64) string { return fmt.Sprintf("%s-%d", *prefix, i%int64(*buckets)) }
	key := func(i int64) string { return fmt.Sprintf("obj-%08d", i/int64(*buckets)) }

	for i := range int64(*buckets) {
		_, err := cli.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket(i))})
		var owned *types.BucketAlreadyOwnedByYou
		if err != nil && !errors.As(err, &owned) {
			log.Fatalf("fill: create bucket %s: %v", bucket(i), err)
		}
	}
	body := make([]byte, *size)
	for i := range body {
		body[i] = byte('a' + i%26)
	}
	if _, err := cli.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket(0)), Key: aws.String("template"),
		Body: bytes.NewReader(body), ContentType: aws.String("application/octet-stream")}); err != nil {
		log.Fatalf("fill: put the template: %v", err)
	}

	cat, err := open(ctx, *catURL)
	if err != nil {
		log.Fatal(err)
	}
	defer cat.Close()
	f, ok := cat.(filler)
	if !ok {
		log.Fatalf("fill: the catalog at %s has no bulk fill", *catURL)
	}
	tmpl, err := cat.GetObject(ctx, bucket(0), "template", "")
	if err != nil {
		log.Fatalf("fill: read the template's row: %v", err)
	}
	if len(tmpl.Parts) != 0 {
		log.Fatalf("fill: the template is in a blob, not inline (a platform's inline_max below %d bytes?)", *size)
	}
	log.Printf("fill: objects %d to %d of %d-byte copies of %s/template (%s) into %d buckets", *start, *objects, *size, bucket(0), tmpl.ETag, *buckets)

	began, last := time.Now(), time.Now()
	objs := make([]catalog.Object, 0, *batch)
	for i := *start; i < *objects; {
		objs = objs[:0]
		now := time.Now().UTC()
		for ; i < *objects && len(objs) < *batch; i++ {
			o := tmpl
			o.Bucket, o.Key, o.LastModified, o.IsLatest = bucket(i), key(i), now, false
			objs = append(objs, o)
		}
		if err := f.FillObjects(ctx, objs); err != nil {
			log.Fatalf("fill: objects before %d: %v (resume with -start %d)", i, err, i-int64(len(objs)))
		}
		if time.Since(last) >= 10*time.Second || i == *objects {
			last = time.Now()
			done := i - *start
			rate := float64(done) / time.Since(began).Seconds()
			eta := time.Duration(float64(*objects-i)/rate) * time.Second
			log.Printf("fill: %d of %d objects, %.0f objects/s, %s to go", i, *objects, rate, eta.Round(time.Second))
		}
	}
	log.Printf("fill: %d objects in %s", *objects-*start, time.Since(began).Round(time.Second))

	// A sample of what was filled, read back over S3.
	r := rand.New(rand.NewPCG(uint64(*objects), 1))
	for range *sample {
		i := *start + r.Int64N(*objects-*start)
		out, err := cli.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket(i)), Key: aws.String(key(i))})
		if err != nil {
			log.Fatalf("fill: read back %s/%s: %v", bucket(i), key(i), err)
		}
		got, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil || !bytes.Equal(got, body) || aws.ToString(out.ETag) != tmpl.ETag {
			log.Fatalf("fill: %s/%s read back %d bytes, ETag %s (%v); want the template's %d bytes, %s",
				bucket(i), key(i), len(got), aws.ToString(out.ETag), err, len(body), tmpl.ETag)
		}
	}
	log.Printf("fill: %d filled objects read back over S3, bytes and ETag those of the template", *sample)
}

// filler is a catalog with sqldb's bulk fill.
type filler interface {
	FillObjects(ctx context.Context, objs []catalog.Object) error
}

func open(ctx context.Context, u string) (catalog.Store, error) {
	if strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		return postgres.Open(ctx, u, 4)
	}
	return sqlite.Open(ctx, strings.TrimPrefix(u, "sqlite://"))
}
