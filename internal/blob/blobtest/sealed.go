package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/sse"
)

// runSealed is the suite with encryption at rest on (package sse, as the
// object service writes): blobs written through the encrypting reader,
// with known and unknown sizes, are stored as ciphertext only, read back
// by every kind of range through the segments it needs, and a blob the
// driver returns altered fails to read.
func runSealed(t *testing.T, sub func(string, func(*testing.T, blob.Store))) {
	ctx := context.Background()
	key := bytes.Repeat([]byte{0x2a}, sse.KeySize)
	sub("Sealed", func(t *testing.T, s blob.Store) {
		for _, size := range []int{0, 1, sse.SegmentSize - 1, sse.SegmentSize, sse.SegmentSize + 1, 6<<20 + 5} {
			for _, known := range []bool{true, false} {
				t.Run(fmt.Sprintf("%d/known=%v", size, known), func(t *testing.T) {
					id, data := blob.NewID(), random(t, size)
					p := sse.Params{Key: key, Identity: id, Part: 3}
					er, err := sse.NewEncryptReader(bytes.NewReader(data), p)
					if err != nil {
						t.Fatal(err)
					}
					hint := int64(-1)
					if known {
						hint = sse.CiphertextSize(int64(size))
					}
					n, err := s.Put(ctx, id, er, hint)
					if err != nil || n != sse.CiphertextSize(int64(size)) {
						t.Fatalf("Put = %d, %v; want %d bytes", n, err, sse.CiphertextSize(int64(size)))
					}
					stored := read(t, s, id, 0, -1)
					if size >= 32 && bytes.Contains(stored, data[:32]) {
						t.Fatal("the platform holds plaintext")
					}
					want, _ := sse.Encrypt(data, p)
					if !bytes.Equal(stored, want) {
						t.Fatal("the platform holds other bytes than were sealed")
					}
					n64 := int64(size)
					ranges := [][2]int64{{0, n64}, {n64, 0}}
					if n64 > 0 {
						ranges = append(ranges, [2]int64{0, 1}, [2]int64{n64 - 1, 1}, [2]int64{n64 / 2, n64 - n64/2})
					}
					if n64 > sse.SegmentSize+10 {
						ranges = append(ranges, [2]int64{sse.SegmentSize - 10, 20}, [2]int64{5 << 20, min(1<<20, n64-5<<20)})
					}
					for _, rg := range ranges {
						got, err := readSealed(ctx, s, id, p, n64, rg[0], rg[1])
						if err != nil || !bytes.Equal(got, data[rg[0]:rg[0]+rg[1]]) {
							t.Fatalf("range %d+%d: %v", rg[0], rg[1], err)
						}
					}
				})
			}
		}
		// The driver hands back altered bytes: the read fails.
		id, data := blob.NewID(), random(t, 3*sse.SegmentSize)
		p := sse.Params{Key: key, Identity: id}
		ct, _ := sse.Encrypt(data, p)
		ct[sse.SegmentSize+100] ^= 1
		if _, err := s.Put(ctx, id, bytes.NewReader(ct), int64(len(ct))); err != nil {
			t.Fatal(err)
		}
		if _, err := readSealed(ctx, s, id, p, int64(len(data)), 0, int64(len(data))); !errors.Is(err, sse.ErrAuth) {
			t.Fatalf("altered blob read: %v", err)
		}
		// Another blob's bytes in this one's place: the read fails.
		other := blob.NewID()
		if _, err := s.Put(ctx, other, bytes.NewReader(read(t, s, id, 0, -1)), int64(len(ct))); err != nil {
			t.Fatal(err)
		}
		if _, err := readSealed(ctx, s, other, sse.Params{Key: key, Identity: other}, int64(len(data)), 0, 10); !errors.Is(err, sse.ErrAuth) {
			t.Fatalf("moved blob read: %v", err)
		}
	})
}

// readSealed reads plaintext [off, off+length) of a sealed blob as the
// object service does.
func readSealed(ctx context.Context, s blob.Store, id string, p sse.Params, size, off, length int64) ([]byte, error) {
	r, err := sse.CipherRange(size, off, length)
	if err != nil {
		return nil, err
	}
	rc, err := s.Get(ctx, id, r.CipherOff, r.BlobLength())
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d, err := sse.NewDecryptReader(rc, p, r)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(d)
}
