package fs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/blobtest"
	"github.com/ostiumio/ostium/internal/blob/fs"
)

func open(t testing.TB) *fs.Store {
	s, err := fs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store { return open(t) })
}

// Ids made in the same instant share their timestamp head; the fan-out
// must still spread them.
func TestFanOutUsesRandomTail(t *testing.T) {
	root := t.TempDir()
	s, err := fs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Repeat("0", 16)
	for i := range 64 {
		id := head + fmt.Sprintf("%016x", uint64(i)*0x0123456789abcdef)
		if _, err := s.Put(context.Background(), id, strings.NewReader("x"), 1); err != nil {
			t.Fatal(err)
		}
	}
	dirs, _ := os.ReadDir(root)
	if len(dirs) < 32 {
		t.Fatalf("64 blobs with one timestamp landed in %d top-level dirs", len(dirs))
	}
	// The blob sits two levels down, named by its id.
	id := head + fmt.Sprintf("%016x", uint64(1)*0x0123456789abcdef)
	if _, err := os.Stat(filepath.Join(root, id[30:32], id[28:30], id)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPut4KParallel is the durable small-object write path: 16
// writers, each Put fsyncing its file and (coalesced) its directory.
func BenchmarkPut4KParallel(b *testing.B) {
	s := open(b)
	data := bytes.Repeat([]byte("x"), 4096)
	var n atomic.Int64
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Add(1)
			if _, err := s.Put(context.Background(), blob.NewID(), bytes.NewReader(data), 4096); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
}
