package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/catalogtest"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/testenv"
)

func TestConformance(t *testing.T) {
	catalogtest.Run(t, func(t *testing.T) catalog.Store {
		s, err := postgres.Open(context.Background(), testenv.FreshPostgres(t), 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A fresh store whose pool is full of write transactions finishes them
// all: none waits for a second connection (they did, to prepare a
// statement under a lock, and every write on a fresh node hung).
func TestFullPoolOfWritesFinishes(t *testing.T) {
	const pool = 2
	s, err := postgres.Open(context.Background(), testenv.FreshPostgres(t), pool)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.CreateBucket(ctx, catalog.Bucket{Name: "b", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// Every kind of write, each first met while the pool is full.
	errs := make(chan error, 8*pool)
	for i := range cap(errs) {
		go func() { errs <- writeAll(ctx, s, fmt.Sprint("k", i)) }()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func writeAll(ctx context.Context, s catalog.Store, key string) error {
	part := func(n int) catalog.Part {
		return catalog.Part{Number: n, BlobID: blob.NewID(), Size: 1, ETag: `"e"`, LastModified: time.Now()}
	}
	o := catalog.Object{Bucket: "b", Key: key, VersionID: "null", Size: 1, Parts: []catalog.Part{part(1)}, LastModified: time.Now()}
	if err := s.PutObject(ctx, o, catalog.PutOptions{Limits: catalog.Limits{Tenant: "t", TenantBytes: 1 << 30, BucketBytes: 1 << 30}}); err != nil {
		return err
	}
	if err := s.SetObjectACL(ctx, "b", key, "", "private", catalog.ChangeOptions{}); err != nil {
		return err
	}
	if _, err := s.DeleteObject(ctx, "b", key, "", catalog.DeleteOptions{}); err != nil {
		return err
	}
	if err := s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: key, UploadID: key, Initiated: time.Now()}); err != nil {
		return err
	}
	p := part(1)
	if err := s.PutPart(ctx, "b", key, key, p, catalog.Limits{Tenant: "t", BucketBytes: 1 << 30}); err != nil {
		return err
	}
	o.Parts = []catalog.Part{p}
	if err := s.CompleteUpload(ctx, key, o, catalog.PutOptions{}); err != nil {
		return err
	}
	if err := s.CreateUpload(ctx, catalog.Upload{Bucket: "b", Key: key, UploadID: key + "-2", Initiated: time.Now()}); err != nil {
		return err
	}
	if err := s.AbortUpload(ctx, "b", key, key+"-2"); err != nil {
		return err
	}
	if _, err := s.AcquireLease(ctx, key, key, time.Minute); err != nil {
		return err
	}
	if err := s.AddTraffic(ctx, key, map[catalog.MeterKey]catalog.Traffic{{Tenant: "t", Bucket: "b", Hour: time.Now().Truncate(time.Hour)}: {Put: 1}}); err != nil {
		return err
	}
	if err := s.SampleStorage(ctx, time.Now().Truncate(time.Hour)); err != nil {
		return err
	}
	if err := s.CreateBucket(ctx, catalog.Bucket{Name: "b-" + key, CreatedAt: time.Now()}); err != nil {
		return err
	}
	if err := s.SetBucketSetting(ctx, "b-"+key, catalog.SettingPolicy, ""); err != nil {
		return err
	}
	return s.DeleteBucket(ctx, "b-"+key)
}
