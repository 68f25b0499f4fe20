package sse

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// Throughput of the format alone, per object size (bench/ records the
// node's end-to-end rates): encrypting through EncryptReader as a PUT
// does, decrypting a whole blob through DecryptReader as a GET does.
func BenchmarkEncrypt(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			p := testParams(b)
			plain := pattern(size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			src := bytes.NewReader(plain)
			for b.Loop() {
				src.Reset(plain)
				r, err := NewEncryptReader(src, p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecrypt(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			p := testParams(b)
			ct, err := Encrypt(pattern(size), p)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			src := bytes.NewReader(ct)
			rng, _ := CipherRange(int64(size), 0, int64(size))
			for b.Loop() {
				src.Reset(ct)
				d, err := NewDecryptReader(src, p, rng)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenSegment is AES-256-GCM alone on one core: opening one
// full 64 KiB segment (into another buffer, so that the sealed one stays
// whole for the next round), the work a GET's decryption cannot avoid
// per segment. Its rate is the ceiling of an encrypted read on one core
// (docs/encryption.md, "Speed", compares it with a plain GET's).
func BenchmarkOpenSegment(b *testing.B) {
	p := testParams(b)
	s, err := newSealer(p)
	if err != nil {
		b.Fatal(err)
	}
	seg := s.seal(nil, pattern(SegmentSize), 0, false)
	out := make([]byte, 0, SegmentSize)
	b.SetBytes(SegmentSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.open(out, seg, 0, false); err != nil {
			b.Fatal(err)
		}
	}
}
