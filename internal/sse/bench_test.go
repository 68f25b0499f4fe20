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
