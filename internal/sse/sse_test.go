package sse

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"
)

type vector struct {
	Name         string `json:"name"`
	Key          string `json:"key"`
	Identity     string `json:"identity"`
	Part         int    `json:"part"`
	PlainSize    int    `json:"plain_size"`
	PlainPattern bool   `json:"plain_pattern"`
	Plain        string `json:"plain"`
	CipherSize   int64  `json:"cipher_size"`
	CipherSHA256 string `json:"cipher_sha256"`
	Cipher       string `json:"cipher"`
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKnownAnswers checks the format against vectors computed by another
// implementation (testdata/gen_vectors.py: Python's cryptography, over
// OpenSSL), so the layout in docs/encryption.md is what this package
// writes, byte for byte, by every write path.
func TestKnownAnswers(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []vector
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 5 {
		t.Fatalf("%d vectors", len(vs))
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			plain := unhex(t, v.Plain)
			if v.PlainPattern {
				plain = pattern(v.PlainSize)
			}
			p := Params{Key: unhex(t, v.Key), Identity: v.Identity, Part: v.Part}
			check := func(how string, ct []byte) {
				t.Helper()
				sum := sha256.Sum256(ct)
				if int64(len(ct)) != v.CipherSize || hex.EncodeToString(sum[:]) != v.CipherSHA256 {
					t.Fatalf("%s: ciphertext of %d bytes, sha256 %x; want %d, %s", how, len(ct), sum, v.CipherSize, v.CipherSHA256)
				}
				if v.Cipher != "" && hex.EncodeToString(ct) != v.Cipher {
					t.Fatalf("%s: ciphertext %x, want %s", how, ct, v.Cipher)
				}
			}
			ct, err := Encrypt(plain, p)
			if err != nil {
				t.Fatal(err)
			}
			check("Encrypt", ct)
			check("EncryptReader", encryptByReader(t, plain, p))
			check("EncryptWriter", encryptByWriter(t, plain, p, 1000))
			if CiphertextSize(int64(len(plain))) != v.CipherSize {
				t.Fatalf("CiphertextSize(%d) = %d, want %d", len(plain), CiphertextSize(int64(len(plain))), v.CipherSize)
			}
			got, err := Decrypt(ct, p)
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("Decrypt: %v", err)
			}
		})
	}
}

func encryptByReader(t testing.TB, plain []byte, p Params) []byte {
	t.Helper()
	// An odd-sized source read: the reader must not depend on how its
	// source splits the bytes.
	r, err := NewEncryptReader(&chunkReader{b: plain, n: 777}, p)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if r.PlainBytes() != int64(len(plain)) {
		t.Fatalf("PlainBytes %d, want %d", r.PlainBytes(), len(plain))
	}
	return ct
}

func encryptByWriter(t testing.TB, plain []byte, p Params, chunk int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewEncryptWriter(&buf, p)
	if err != nil {
		t.Fatal(err)
	}
	for b := plain; len(b) > 0; {
		n := min(chunk, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			t.Fatal(err)
		}
		b = b[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[k:]
	return k, nil
}

// countingReader counts what the decrypting reader takes from the blob.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func testParams(t testing.TB) Params {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return Params{Key: key, Identity: "0123456789abcdef0123456789abcdef", Part: 0}
}

// readRange decrypts plaintext [off, off+length) of blob as the object
// service does: opening the blob at CipherOff for BlobLength bytes. It
// reads the range twice, by Read and by WriteTo (the path io.Copy, and
// so a GET, takes), and fails unless both give the same bytes, the same
// count of ciphertext read and the same error.
func readRange(blob []byte, p Params, plainSize, off, length int64) ([]byte, int64, error) {
	r, err := CipherRange(plainSize, off, length)
	if err != nil {
		return nil, 0, err
	}
	if r.CipherOff > int64(len(blob)) {
		return nil, 0, fmt.Errorf("%w: short blob", ErrAuth)
	}
	src := blob[r.CipherOff:]
	if n := r.BlobLength(); n >= 0 && n < int64(len(src)) {
		src = src[:n]
	}
	open := func() (*DecryptReader, *countingReader, error) {
		cr := &countingReader{r: bytes.NewReader(src)}
		d, err := NewDecryptReader(cr, p, r)
		return d, cr, err
	}
	d, cr, err := open()
	if err != nil {
		return nil, 0, err
	}
	out, err := io.ReadAll(struct{ io.Reader }{d}) // Read only
	d2, cr2, err2 := open()
	if err2 != nil {
		return nil, 0, err2
	}
	var w bytes.Buffer
	n, err2 := d2.WriteTo(&w)
	switch {
	case !bytes.Equal(w.Bytes(), out) || n != int64(w.Len()):
		return nil, 0, fmt.Errorf("WriteTo wrote %d bytes (said %d), Read gave %d, or other bytes", w.Len(), n, len(out))
	case cr.n != cr2.n:
		return nil, 0, fmt.Errorf("WriteTo read %d ciphertext bytes, Read %d", cr2.n, cr.n)
	case (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error():
		return nil, 0, fmt.Errorf("WriteTo failed with %v, Read with %v", err2, err)
	}
	return out, cr.n, err
}

var sizes = []int{0, 1, 100, SegmentSize - 1, SegmentSize, SegmentSize + 1, 2 * SegmentSize, 3<<20 + 7}

// TestRoundTrip encrypts by every path and reads back every kind of
// range, checking each range reads only its own segments.
func TestRoundTrip(t *testing.T) {
	for _, size := range sizes {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			p := testParams(t)
			plain := make([]byte, size)
			rand.Read(plain)
			ct, err := Encrypt(plain, p)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(ct)) != CiphertextSize(int64(size)) {
				t.Fatalf("ciphertext %d bytes, CiphertextSize %d", len(ct), CiphertextSize(int64(size)))
			}
			if ps, err := PlainSize(int64(len(ct))); err != nil || ps != int64(size) {
				t.Fatalf("PlainSize(%d) = %d, %v", len(ct), ps, err)
			}
			if !bytes.Equal(encryptByReader(t, plain, p), ct) {
				t.Fatal("EncryptReader differs from Encrypt")
			}
			for _, chunk := range []int{1 << 20, SegmentSize, 4096 + 3} {
				if size > 1<<20 && chunk == 1 {
					continue
				}
				if !bytes.Equal(encryptByWriter(t, plain, p, chunk), ct) {
					t.Fatalf("EncryptWriter (chunks of %d) differs from Encrypt", chunk)
				}
			}
			if got, err := Decrypt(ct, p); err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("Decrypt: %v", err)
			}
			n := int64(size)
			type rng struct{ off, length int64 }
			ranges := []rng{{0, n}, {n, 0}, {0, 0}}
			if n > 0 {
				ranges = append(ranges,
					rng{0, 1}, rng{n - 1, 1}, rng{n / 2, n - n/2}, rng{n / 3, n / 3}, rng{0, n - 1}, rng{1, n - 1})
			}
			for _, b := range []int64{SegmentSize, 2 * SegmentSize, 17 * SegmentSize} {
				if b < n {
					ranges = append(ranges,
						rng{b - 1, 2},                     // across a boundary
						rng{b, n - b},                     // from a boundary to the end
						rng{0, b},                         // ending on a boundary
						rng{b - SegmentSize, SegmentSize}, // one whole segment
						rng{b - 10, min(n-b+10, 3*SegmentSize)},
					)
				}
			}
			for i := 0; i < 20 && n > 0; i++ {
				var x [16]byte
				rand.Read(x[:])
				off := int64(uint64(x[0])<<16|uint64(x[1])<<8|uint64(x[2])) % n
				length := 1 + int64(uint64(x[3])<<16|uint64(x[4])<<8|uint64(x[5]))%(n-off)
				ranges = append(ranges, rng{off, length})
			}
			for _, g := range ranges {
				got, read, err := readRange(ct, p, n, g.off, g.length)
				if err != nil {
					t.Fatalf("range %d+%d: %v", g.off, g.length, err)
				}
				if !bytes.Equal(got, plain[g.off:g.off+g.length]) {
					t.Fatalf("range %d+%d: wrong bytes", g.off, g.length)
				}
				r, _ := CipherRange(n, g.off, g.length)
				if read != r.CipherLen || read > (r.Last-r.First+1)*cipherSegment {
					t.Fatalf("range %d+%d: read %d ciphertext bytes, range %+v", g.off, g.length, read, r)
				}
				wantSegs := int64(1)
				if g.length > 0 {
					wantSegs = (g.off+g.length-1)/SegmentSize - g.off/SegmentSize + 1
				}
				if r.Last-r.First+1 != wantSegs {
					t.Fatalf("range %d+%d: segments %d..%d, want %d of them", g.off, g.length, r.First, r.Last, wantSegs)
				}
			}
		})
	}
}

func TestCipherRangeRefusesOutside(t *testing.T) {
	for _, c := range [][3]int64{{10, 11, 0}, {10, 5, 6}, {10, -1, 1}, {10, 0, -1}, {-1, 0, 0}} {
		if _, err := CipherRange(c[0], c[1], c[2]); err == nil {
			t.Errorf("CipherRange(%v) accepted", c)
		}
	}
}

func TestPlainSize(t *testing.T) {
	for plain := int64(0); plain < 3*SegmentSize+5; plain += 1 + plain/7 {
		c := CiphertextSize(plain)
		if got, err := PlainSize(c); err != nil || got != plain {
			t.Fatalf("PlainSize(CiphertextSize(%d)=%d) = %d, %v", plain, c, got, err)
		}
	}
	// No plaintext encrypts to these: shorter than a tag, a partial last
	// segment of no more than a tag after full ones.
	for _, c := range []int64{0, 1, 15, cipherSegment + 1, cipherSegment + 16, 2*cipherSegment + 5} {
		if got, err := PlainSize(c); !errors.Is(err, ErrSize) {
			t.Errorf("PlainSize(%d) = %d, %v; want ErrSize", c, got, err)
		}
	}
}

func TestBadParams(t *testing.T) {
	for _, p := range []Params{{Key: make([]byte, 16)}, {Key: nil}, {Key: make([]byte, 32), Part: -1}} {
		if _, err := NewEncryptReader(bytes.NewReader(nil), p); err == nil {
			t.Errorf("NewEncryptReader(%+v) accepted", p)
		}
		if _, err := Encrypt(nil, p); err == nil {
			t.Errorf("Encrypt(%+v) accepted", p)
		}
	}
}
