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
// all: none waits for a second connection (it did, to prepare a statement
// under a lock, and every write on a fresh node hung).
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
	errs := make(chan error, 8*pool)
	for i := range cap(errs) {
		go func() {
			errs <- s.PutObject(ctx, catalog.Object{Bucket: "b", Key: fmt.Sprint("k", i), VersionID: "null",
				Size: 1, Parts: []catalog.Part{{Number: 1, BlobID: blob.NewID(), Size: 1}}, LastModified: time.Now()}, catalog.PutOptions{})
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
