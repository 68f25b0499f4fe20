package payload

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func read(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDeterministicAndDistinct(t *testing.T) {
	a := read(t, New("bucket/obj-1", 200_000))
	if len(a) != 200_000 || !bytes.Equal(a, read(t, New("bucket/obj-1", 200_000))) {
		t.Fatal("the same name and size must give the same bytes")
	}
	if bytes.Equal(a[:4096], read(t, New("bucket/obj-2", 200_000))[:4096]) {
		t.Fatal("two names gave the same bytes")
	}
	if bytes.Equal(a[:4096], read(t, New("bucket/obj-1", 100_000))[:4096]) {
		t.Fatal("two sizes gave the same bytes")
	}
	// Seeking gives the same bytes as reading through.
	r := New("bucket/obj-1", 200_000)
	if _, err := r.Seek(123_457, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, r), a[123_457:]) {
		t.Fatal("bytes after a seek differ")
	}
}

func TestVerifier(t *testing.T) {
	good := read(t, New("k", 70_000))
	v := NewVerifier("k", 70_000)
	for i := 0; i < len(good); i += 9999 { // odd write sizes
		v.Write(good[i:min(i+9999, len(good))])
	}
	if err := v.Check(); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(good)
	bad[65_537] ^= 1
	for name, c := range map[string]struct {
		data []byte
		size int64
	}{"flipped byte": {bad, 70_000}, "short": {good[:69_999], 70_000}, "long": {append(bytes.Clone(good), 0), 70_000}, "other object": {good, 70_000}} {
		objName := "k"
		if name == "other object" {
			objName = "k2"
		}
		v := NewVerifier(objName, c.size)
		v.Write(c.data)
		if err := v.Check(); !errors.Is(err, ErrMismatch) {
			t.Errorf("%s: Check = %v", name, err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	r := New("x", 1<<62)
	for b.Loop() {
		r.Read(buf)
	}
}

func BenchmarkVerify(b *testing.B) {
	data := read(&testing.T{}, New("x", 1<<20))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		v := NewVerifier("x", 1<<20)
		v.Write(data)
	}
}

func TestSectionsMakeTheWhole(t *testing.T) {
	whole := read(t, New("mp", 10_000))
	var got []byte
	for off := int64(0); off < 10_000; off += 3333 {
		got = append(got, read(t, NewSection("mp", 10_000, off, min(3333, 10_000-off)))...)
	}
	if !bytes.Equal(got, whole) {
		t.Fatal("sections differ from the whole")
	}
}
