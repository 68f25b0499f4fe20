package sse

import (
	"bytes"
	"testing"
)

// FuzzFormat: any plaintext round-trips through every range, and any
// alteration of its blob (a byte xored at any place, a cut, an extension)
// fails to read, never panics, never yields other bytes.
func FuzzFormat(f *testing.F) {
	f.Add([]byte("hello"), uint32(0), uint32(5), uint32(3), byte(1), uint16(0))
	f.Add(pattern(SegmentSize+1), uint32(SegmentSize-1), uint32(2), uint32(SegmentSize), byte(0x80), uint16(1))
	f.Add([]byte{}, uint32(0), uint32(0), uint32(0), byte(0), uint16(2))
	key := bytes.Repeat([]byte{7}, KeySize)
	f.Fuzz(func(t *testing.T, plain []byte, off, length, at uint32, mask byte, part uint16) {
		p := Params{Key: key, Identity: "fuzz", Part: int(part)}
		ct, err := Encrypt(plain, p)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(len(plain))
		o := int64(off) % (n + 1)
		l := int64(length) % (n - o + 1)
		got, _, err := readRange(ct, p, n, o, l)
		if err != nil || !bytes.Equal(got, plain[o:o+l]) {
			t.Fatalf("range %d+%d of %d: %v", o, l, n, err)
		}
		var bad []byte
		switch {
		case mask != 0:
			bad = append([]byte(nil), ct...)
			bad[int64(at)%int64(len(bad))] ^= mask
		case at%2 == 0:
			bad = ct[:int64(at)%int64(len(ct))]
		default:
			bad = append(append([]byte(nil), ct...), byte(at))
		}
		if out, err := Decrypt(bad, p); err == nil {
			t.Fatalf("altered blob decrypted to %d bytes", len(out))
		}
		if out, _, err := readRange(bad, p, n, 0, n); err == nil {
			t.Fatalf("altered blob read as %d bytes", len(out))
		} else if !bytes.HasPrefix(plain, out) {
			t.Fatal("altered blob yielded bytes that are not the plaintext")
		}
	})
}
