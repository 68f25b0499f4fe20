package sse

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// Every alteration a platform could make to a blob must fail to read:
// Decrypt takes the plaintext size from the blob, readRange from the
// catalog (as the object service does); both must refuse.
func TestTamper(t *testing.T) {
	const size = 3*SegmentSize + 100
	p := testParams(t)
	plain := pattern(size)
	ct, err := Encrypt(plain, p)
	if err != nil {
		t.Fatal(err)
	}
	seg := func(i int) []byte { // a copy of segment i
		end := min((i+1)*cipherSegment, len(ct))
		return append([]byte(nil), ct[i*cipherSegment:end]...)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	flip := func(at int) []byte {
		b := append([]byte(nil), ct...)
		b[at] ^= 0x01
		return b
	}
	other := p
	other.Identity = "ffffffffffffffffffffffffffffffff"
	ofOther, _ := Encrypt(plain, other)
	moved := p
	moved.Part = 2
	ofPart2, _ := Encrypt(plain, moved)

	cases := []struct {
		name string
		blob []byte
	}{
		{"flipped first byte", flip(0)},
		{"flipped byte in the third segment", flip(2*cipherSegment + 1000)},
		{"flipped byte of a tag", flip(cipherSegment - 1)},
		{"flipped last byte", flip(len(ct) - 1)},
		{"swapped segments", cat(seg(1), seg(0), seg(2), seg(3))},
		{"segment repeated", cat(seg(0), seg(0), seg(2), seg(3))},
		{"last segment dropped", cat(seg(0), seg(1), seg(2))},
		{"cut mid-segment", ct[:2*cipherSegment+500]},
		{"cut one byte short", ct[:len(ct)-1]},
		{"extended by a byte", cat(ct, []byte{0})},
		{"extended by a segment", cat(ct, seg(0))},
		{"last segment moved in front of a full one", cat(seg(0), seg(1), seg(3))},
		{"blob of another object", ofOther},
		{"segment of another object", cat(seg(0), ofOther[cipherSegment:2*cipherSegment], seg(2), seg(3))},
		{"part moved to another part number", ofPart2},
		{"empty blob", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, err := Decrypt(c.blob, p); err == nil {
				t.Fatalf("Decrypt of a tampered blob returned %d bytes", len(got))
			} else if !errors.Is(err, ErrAuth) {
				t.Fatalf("Decrypt: %v, want ErrAuth", err)
			}
			got, _, err := readRange(c.blob, p, size, 0, size)
			if err == nil {
				t.Fatalf("reading the whole tampered blob returned %d bytes", len(got))
			}
			if !errors.Is(err, ErrAuth) {
				t.Fatalf("read: %v, want ErrAuth", err)
			}
			// What was returned before the error is a prefix of the
			// truth: never a byte of an unverified segment.
			if !bytes.HasPrefix(plain, got) {
				t.Fatal("read returned bytes that are not the plaintext")
			}
		})
	}

	// The wrong key, and a blob read as the wrong part, fail too.
	wrong := testParams(t)
	if _, err := Decrypt(ct, wrong); !errors.Is(err, ErrAuth) {
		t.Errorf("Decrypt under another key: %v", err)
	}
	if _, _, err := readRange(ct, moved, size, SegmentSize, 10); !errors.Is(err, ErrAuth) {
		t.Errorf("range read as another part: %v", err)
	}
}

// A segment's bytes are returned only once its tag is verified: a flip in
// the first segment yields no plaintext at all, even to a one-byte Read.
func TestNoUnverifiedBytes(t *testing.T) {
	p := testParams(t)
	plain := pattern(2 * SegmentSize)
	ct, _ := Encrypt(plain, p)
	ct[cipherSegment-Overhead-1] ^= 0x80 // last plaintext byte of segment 0
	r, _ := CipherRange(int64(len(plain)), 0, int64(len(plain)))
	d, err := NewDecryptReader(bytes.NewReader(ct), p, r)
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if n, err := d.Read(b[:]); n != 0 || !errors.Is(err, ErrAuth) {
		t.Fatalf("first Read: %d bytes, %v", n, err)
	}
	// The error sticks.
	if n, err := io.ReadFull(d, b[:]); n != 0 || !errors.Is(err, ErrAuth) {
		t.Fatalf("second Read: %d bytes, %v", n, err)
	}
}

// WriteTo, like Read, writes nothing of a segment that does not verify,
// and stops at the first failing write with the writer's error.
func TestWriteToNoUnverifiedBytes(t *testing.T) {
	p := testParams(t)
	plain := pattern(3 * SegmentSize)
	ct, _ := Encrypt(plain, p)
	r, _ := CipherRange(int64(len(plain)), 0, int64(len(plain)))

	bad := append([]byte(nil), ct...)
	bad[cipherSegment+5] ^= 0x80 // in segment 1
	d, err := NewDecryptReader(bytes.NewReader(bad), p, r)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if n, err := d.WriteTo(&w); n != SegmentSize || !errors.Is(err, ErrAuth) || !bytes.Equal(w.Bytes(), plain[:SegmentSize]) {
		t.Fatalf("WriteTo of a blob altered in segment 1: %d bytes, %v", n, err)
	}

	d, err = NewDecryptReader(bytes.NewReader(ct), p, r)
	if err != nil {
		t.Fatal(err)
	}
	fw := &failingWriter{after: 1}
	if n, err := d.WriteTo(fw); n != SegmentSize || !errors.Is(err, errWrite) || fw.calls != 2 {
		t.Fatalf("WriteTo to a writer failing at its second write: %d bytes, %d writes, %v", n, fw.calls, err)
	}
	// The reader is done: a later Read reports the same failure.
	if n, err := d.Read(make([]byte, 10)); n != 0 || !errors.Is(err, errWrite) {
		t.Fatalf("Read after a failed WriteTo: %d bytes, %v", n, err)
	}
}

var errWrite = errors.New("write refused")

// failingWriter takes after writes, then refuses every one.
type failingWriter struct{ after, calls int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls > f.after {
		return 0, errWrite
	}
	return len(p), nil
}

// A truncated blob read by a range that ends before the cut still reads:
// only the segments a range needs are fetched and checked. A range that
// reaches the cut fails.
func TestTruncatedRanges(t *testing.T) {
	p := testParams(t)
	const size = 4 * SegmentSize
	plain := pattern(size)
	ct, _ := Encrypt(plain, p)
	cut := ct[:3*cipherSegment] // the last segment dropped
	if got, _, err := readRange(cut, p, size, 10, SegmentSize); err != nil || !bytes.Equal(got, plain[10:10+SegmentSize]) {
		t.Fatalf("range before the cut: %v", err)
	}
	if _, _, err := readRange(cut, p, size, 3*SegmentSize-5, 10); !errors.Is(err, ErrAuth) {
		t.Fatalf("range over the cut: %v", err)
	}
}

// A source that fails, even with io.ErrUnexpectedEOF (how a request body
// cut short reads), fails the encryption rather than ending the plaintext
// there with a valid last segment.
func TestSourceErrorFails(t *testing.T) {
	p := testParams(t)
	for _, size := range []int{10, SegmentSize, SegmentSize + 10} {
		src := io.MultiReader(bytes.NewReader(pattern(size)), iotestErr{io.ErrUnexpectedEOF})
		r, err := NewEncryptReader(src, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(r); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("size %d: %v, want the source's error", size, err)
		}
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
