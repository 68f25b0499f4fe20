// Package payload makes object contents from an object's name and size
// alone, so a benchmark can check every byte it reads back (hashCheck,
// --verify) without keeping anything per object: memory stays flat however
// many objects a run writes.
//
// Byte i of an object is block[(offset+i) mod blockSize] XOR key[i mod 8],
// where offset and key derive from the name and size. Generating and
// checking are then a copy and an XOR of 8-byte words: gigabytes per second
// per core.
package payload

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
)

const blockSize = 1 << 16

// block is the shared random material every object is cut from, stored
// twice in a row so that a window of blockSize bytes never wraps.
var block = func() []byte {
	r := rand.New(rand.NewPCG(0x6f7374, 0x69756d))
	b := make([]byte, 2*blockSize)
	for i := 0; i < blockSize; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	copy(b[blockSize:], b[:blockSize])
	return b
}()

// seed derives an object's offset and key.
func seed(name string, size int64) (offset int64, key uint64) {
	h := fnv.New64a()
	h.Write([]byte(name))
	binary.Write(h, binary.LittleEndian, size)
	s := h.Sum64()
	return int64(s % blockSize), s*0x9e3779b97f4a7c15 | 1
}

// fill writes the object's bytes from position pos into p.
func fill(p []byte, pos, offset int64, key uint64) {
	var k [8]byte
	binary.LittleEndian.PutUint64(k[:], key)
	for len(p) > 0 {
		at := (offset + pos) % blockSize
		n := copy(p, block[at:at+blockSize])
		i := 0
		if pos&7 == 0 { // the common case: whole words
			for ; i+8 <= n; i += 8 {
				binary.LittleEndian.PutUint64(p[i:], binary.LittleEndian.Uint64(p[i:])^key)
			}
		}
		for ; i < n; i++ {
			p[i] ^= k[(pos+int64(i))&7]
		}
		p, pos = p[n:], pos+int64(n)
	}
}

// Reader yields an object's contents; it seeks, so SDKs can sign and retry.
type Reader struct {
	size, pos, offset int64
	key               uint64
}

// New returns the contents of the object name of size bytes.
func New(name string, size int64) *Reader {
	off, key := seed(name, size)
	return &Reader{size: size, offset: off, key: key}
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.size-r.pos)]
	fill(p, r.pos, r.offset, r.key)
	r.pos += int64(len(p))
	return len(p), nil
}

// Seek moves within the object.
func (r *Reader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += r.pos
	case io.SeekEnd:
		off += r.size
	}
	if off < 0 {
		return r.pos, errors.New("payload: seek before start")
	}
	r.pos = off
	return off, nil
}

// Len is what remains to be read.
func (r *Reader) Len() int { return int(max(r.size-r.pos, 0)) }

// ErrMismatch is what a Verifier reports for content that is not the
// object's.
var ErrMismatch = errors.New("payload: content does not match")

// Verifier checks bytes written to it against an object's contents.
type Verifier struct {
	size, pos, offset int64
	key               uint64
	buf               []byte
	err               error
}

// NewVerifier checks the object name of size bytes.
func NewVerifier(name string, size int64) *Verifier {
	off, key := seed(name, size)
	return &Verifier{size: size, offset: off, key: key}
}

func (v *Verifier) Write(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.pos+int64(len(p)) > v.size {
		v.err = fmt.Errorf("%w: more than %d bytes", ErrMismatch, v.size)
		return 0, v.err
	}
	if cap(v.buf) < len(p) {
		v.buf = make([]byte, len(p))
	}
	want := v.buf[:len(p)]
	fill(want, v.pos, v.offset, v.key)
	if !bytes.Equal(p, want) {
		i := 0
		for p[i] == want[i] {
			i++
		}
		v.err = fmt.Errorf("%w: first difference at byte %d", ErrMismatch, v.pos+int64(i))
		return i, v.err
	}
	v.pos += int64(len(p))
	return len(p), nil
}

// Check reports whether exactly the whole object was written.
func (v *Verifier) Check() error {
	if v.err == nil && v.pos != v.size {
		return fmt.Errorf("%w: %d of %d bytes", ErrMismatch, v.pos, v.size)
	}
	return v.err
}

// Section is bytes [off, off+n) of an object's contents, seekable on its
// own: one part of a multipart upload.
type Section struct {
	r        *Reader
	off, n   int64
	position int64
}

// NewSection returns part of the object name of size bytes.
func NewSection(name string, size, off, n int64) *Section {
	return &Section{r: New(name, size), off: off, n: n}
}

func (s *Section) Read(p []byte) (int, error) {
	if s.position >= s.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.n-s.position)]
	s.r.pos = s.off + s.position
	n, err := s.r.Read(p)
	s.position += int64(n)
	return n, err
}

// Seek moves within the section.
func (s *Section) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += s.position
	case io.SeekEnd:
		off += s.n
	}
	if off < 0 {
		return s.position, errors.New("payload: seek before start")
	}
	s.position = off
	return off, nil
}
