// Package blobtest is the conformance suite every blob driver passes.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/blob"
)

// Run checks a driver against the blob.Store contract; open returns a fresh,
// empty store for each subtest.
func Run(t *testing.T, open func(t *testing.T) blob.Store) {
	ctx := context.Background()
	sub := func(name string, f func(t *testing.T, s blob.Store)) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Close() })
			f(t, s)
		})
	}

	sub("PutGet", func(t *testing.T, s blob.Store) {
		id := blob.NewID()
		data := []byte("hello, blob")
		n, err := s.Put(ctx, id, bytes.NewReader(data), int64(len(data)))
		if err != nil || n != int64(len(data)) {
			t.Fatalf("Put = %d, %v", n, err)
		}
		if got := read(t, s, id, 0, -1); !bytes.Equal(got, data) {
			t.Fatalf("Get = %q, want %q", got, data)
		}
	})

	sub("Ranges", func(t *testing.T, s blob.Store) {
		id, data := put(t, s, 1000)
		for _, c := range []struct{ off, length int64 }{{0, 1}, {10, 90}, {999, 1}, {500, -1}, {0, 1000}, {0, 0}, {998, 10}} {
			end := int64(len(data))
			if c.length >= 0 {
				end = min(c.off+c.length, end)
			}
			if got := read(t, s, id, c.off, c.length); !bytes.Equal(got, data[c.off:end]) {
				t.Errorf("Get(%d, %d) = %d bytes, want %d", c.off, c.length, len(got), end-c.off)
			}
		}
	})

	sub("EmptyBlob", func(t *testing.T, s blob.Store) {
		id := blob.NewID()
		if n, err := s.Put(ctx, id, strings.NewReader(""), 0); err != nil || n != 0 {
			t.Fatalf("Put = %d, %v", n, err)
		}
		if got := read(t, s, id, 0, -1); len(got) != 0 {
			t.Fatalf("Get = %d bytes", len(got))
		}
	})

	sub("UnknownSize", func(t *testing.T, s blob.Store) {
		id, data := blob.NewID(), random(t, 3<<20+7)
		n, err := s.Put(ctx, id, io.MultiReader(bytes.NewReader(data)), -1)
		if err != nil || n != int64(len(data)) {
			t.Fatalf("Put = %d, %v", n, err)
		}
		if got := read(t, s, id, 0, -1); !bytes.Equal(got, data) {
			t.Fatal("contents differ")
		}
	})

	sub("SizeMismatchFails", func(t *testing.T, s blob.Store) {
		for _, size := range []int64{5, 20} {
			if _, err := s.Put(ctx, blob.NewID(), strings.NewReader("0123456789"), size); err == nil {
				t.Errorf("Put of 10 bytes with size %d succeeded", size)
			}
		}
	})

	sub("ExistsAndNotFound", func(t *testing.T, s blob.Store) {
		id, _ := put(t, s, 10)
		if _, err := s.Put(ctx, id, strings.NewReader("x"), 1); !errors.Is(err, blob.ErrExists) {
			t.Errorf("second Put: %v, want ErrExists", err)
		}
		if _, err := s.Get(ctx, blob.NewID(), 0, -1); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get of a missing blob: %v, want ErrNotFound", err)
		}
	})

	sub("DeleteIsIdempotent", func(t *testing.T, s blob.Store) {
		id, _ := put(t, s, 10)
		for range 2 {
			if err := s.Delete(ctx, id); err != nil {
				t.Fatalf("Delete: %v", err)
			}
		}
		if _, err := s.Get(ctx, id, 0, -1); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
	})

	sub("InvalidIDsRefused", func(t *testing.T, s blob.Store) {
		hex := blob.NewID()
		for _, id := range []string{"", "../../etc/passwd", "ABCDEF0123456789abcdef0123456789", strings.Repeat("a", 31) + "/",
			"/" + hex, "Acme/" + hex, "a/b/" + hex, "../" + hex, "-a/" + hex, strings.Repeat("a", 41) + "/" + hex} {
			if _, err := s.Put(ctx, id, strings.NewReader("x"), 1); err == nil {
				t.Errorf("Put(%q) succeeded", id)
			}
			if _, err := s.Get(ctx, id, 0, -1); err == nil {
				t.Errorf("Get(%q) succeeded", id)
			}
		}
	})

	sub("Namespaces", func(t *testing.T, s blob.Store) {
		// The same id in two namespaces and in none names three blobs.
		hex := blob.NewID()
		ids := []string{hex, "acme/" + hex, "beta-2/" + hex}
		for i, id := range ids {
			if _, err := s.Put(ctx, id, strings.NewReader(id), int64(len(id))); err != nil {
				t.Fatalf("Put(%s): %v", id, err)
			}
			if i == 1 {
				if _, err := s.Put(ctx, id, strings.NewReader("x"), 1); !errors.Is(err, blob.ErrExists) {
					t.Errorf("second Put(%s): %v, want ErrExists", id, err)
				}
			}
		}
		seen := map[string]bool{}
		if err := s.Walk(ctx, func(in blob.Info) error { seen[in.ID] = true; return nil }); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if got := read(t, s, id, 0, -1); string(got) != id {
				t.Errorf("Get(%s) = %q", id, got)
			}
			if !seen[id] {
				t.Errorf("Walk did not see %s (saw %v)", id, seen)
			}
		}
		if err := s.Delete(ctx, ids[1]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, ids[1], 0, -1); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		if got := read(t, s, ids[2], 0, -1); string(got) != ids[2] {
			t.Errorf("deleting %s touched %s", ids[1], ids[2])
		}
	})

	sub("Walk", func(t *testing.T, s blob.Store) {
		want := map[string]int64{}
		for i := range 20 {
			id, _ := put(t, s, i*100)
			want[id] = int64(i * 100)
		}
		before := time.Now().Add(-time.Minute)
		got := map[string]int64{}
		err := s.Walk(ctx, func(in blob.Info) error {
			if in.ModTime.Before(before) || in.ModTime.After(time.Now().Add(time.Minute)) {
				t.Errorf("blob %s: implausible ModTime %v", in.ID, in.ModTime)
			}
			got[in.ID] = in.Size
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Walk saw %d blobs, want %d", len(got), len(want))
		}
		for id, size := range want {
			if got[id] != size {
				t.Errorf("blob %s: size %d, want %d", id, got[id], size)
			}
		}
		stop := errors.New("stop")
		if err := s.Walk(ctx, func(blob.Info) error { return stop }); !errors.Is(err, stop) {
			t.Errorf("Walk returned %v, want fn's error", err)
		}
	})

	sub("CancelledPutLeavesNothingReadable", func(t *testing.T, s blob.Store) {
		cctx, cancel := context.WithCancel(ctx)
		id := blob.NewID()
		r := &stallingReader{ctx: cctx, first: []byte("partial")}
		go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		if _, err := s.Put(cctx, id, r, 1<<20); err == nil {
			t.Fatal("Put succeeded after its context was cancelled")
		}
		if rc, err := s.Get(ctx, id, 0, -1); err == nil {
			got, _ := io.ReadAll(rc)
			rc.Close()
			if len(got) == 1<<20 {
				t.Fatal("a cancelled Put left a complete blob")
			}
		}
	})

	sub("LargeBlob", func(t *testing.T, s blob.Store) {
		id, data := put(t, s, 8<<20+3)
		if got := read(t, s, id, 0, -1); !bytes.Equal(got, data) {
			t.Fatal("contents differ")
		}
		if got := read(t, s, id, 5<<20, 1<<20); !bytes.Equal(got, data[5<<20:6<<20]) {
			t.Fatal("range contents differ")
		}
	})

	sub("ConcurrentPuts", func(t *testing.T, s blob.Store) {
		var wg sync.WaitGroup
		ids := make([]string, 16)
		datas := make([][]byte, 16)
		for i := range ids {
			ids[i], datas[i] = blob.NewID(), random(t, 4096+i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 10 {
					id := ids[i]
					if j > 0 {
						id = blob.NewID()
					}
					if _, err := s.Put(ctx, id, bytes.NewReader(datas[i]), int64(len(datas[i]))); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		for i, id := range ids {
			if got := read(t, s, id, 0, -1); !bytes.Equal(got, datas[i]) {
				t.Errorf("blob %d differs", i)
			}
		}
	})

	runSealed(t, sub)
}

func random(t *testing.T, n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func put(t *testing.T, s blob.Store, n int) (string, []byte) {
	t.Helper()
	id, data := blob.NewID(), random(t, n)
	if _, err := s.Put(context.Background(), id, bytes.NewReader(data), int64(n)); err != nil {
		t.Fatalf("Put: %v", err)
	}
	return id, data
}

func read(t *testing.T, s blob.Store, id string, off, length int64) []byte {
	t.Helper()
	rc, err := s.Get(context.Background(), id, off, length)
	if err != nil {
		t.Fatalf("Get(%s, %d, %d): %v", id, off, length, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return b
}

// stallingReader hands out a few bytes, then blocks until ctx is done, as a
// client that stops sending mid-upload.
type stallingReader struct {
	ctx   context.Context
	first []byte
}

func (r *stallingReader) Read(p []byte) (int, error) {
	if len(r.first) > 0 {
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	}
	<-r.ctx.Done()
	return 0, r.ctx.Err()
}
