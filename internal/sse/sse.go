// Package sse is Ostium's format for object bytes encrypted at rest:
// AES-256-GCM (Go's standard library) over 64 KiB plaintext segments, so
// that a range read fetches and verifies only the segments it needs and
// a multipart upload's parts are encrypted independently and completed
// without copying. docs/encryption.md ("Format") has the byte layout.
//
// A blob is the concatenation of its segments, each the GCM seal of up
// to SegmentSize plaintext bytes (its ciphertext, then a 16-byte tag);
// every segment but the last is full, and an empty plaintext is one
// empty segment (a bare tag), so that even an empty object
// authenticates. There is no header: the layout is fixed, and the
// parameters (data key, identity, part number, plaintext size) come from
// the catalog row.
//
// Keys and nonces. A data key encrypts one object, or the parts of one
// multipart upload. Segments are not sealed under the data key itself but
// under a segment key derived from it with HKDF-SHA256 over the format
// version, the part number and the identity (the blob id, which the blob
// store never reuses: a blob is written once under a fresh id). The
// nonce is the part number (4 bytes) and the segment index (8 bytes).
// So no (key, nonce) pair ever seals two different plaintexts: within one
// blob the index differs; two blobs of one upload differ in their
// identity, hence in their segment key, even when a client uploads the
// same part number twice, which with the data key and an index-only
// nonce would have sealed two plaintexts under one nonce (leaking their
// XOR and GCM's authentication key to whoever stores both blobs). The
// associated data (version, part number, segment index, last-segment
// flag, identity) then makes every move fail to open: a segment moved
// within a blob (index), a blob moved to another object's place or
// another part number (identity, part), a blob cut short or extended
// (the last flag: the segment that ends the blob must be the one sealed
// as last).
package sse

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

const (
	// Version is the format version, bound into every segment.
	Version = 1
	// SegmentSize is the plaintext size of every segment but the last.
	SegmentSize = 64 << 10
	// Overhead is what sealing adds to each segment (GCM's tag).
	Overhead = 16
	// KeySize is a data key's size (AES-256).
	KeySize = 32
	// MaxPart is the largest part number (S3 allows 10000; the format
	// holds 32 bits).
	MaxPart = math.MaxUint32

	cipherSegment = SegmentSize + Overhead
	nonceSize     = 12
)

// ErrAuth is returned when a segment does not open: the bytes were
// altered, moved, cut short or extended, or belong to another object or
// part, or the key is wrong. Callers test it with errors.Is.
var ErrAuth = errors.New("sse: ciphertext does not authenticate")

// ErrSize is returned for a ciphertext size no plaintext encrypts to.
var ErrSize = errors.New("sse: not a ciphertext size")

// Params names what one blob is encrypted for.
type Params struct {
	Key      []byte // the data key, KeySize bytes
	Identity string // the blob's identity, e.g. its blob id
	Part     int    // the multipart part number; 0 for a single PUT
}

// sealer seals and opens the segments of one blob.
type sealer struct {
	aead  cipher.AEAD
	part  uint32
	ad    []byte // version, part, index, last, identity; index and last rewritten per segment
	nonce [nonceSize]byte
}

// adIndex is where the segment index starts in the associated data,
// adLast the last-segment flag.
const (
	adIndex = 1 + 4
	adLast  = adIndex + 8
	adFixed = adLast + 1
)

func newSealer(p Params) (*sealer, error) {
	if len(p.Key) != KeySize {
		return nil, fmt.Errorf("sse: data key of %d bytes, want %d", len(p.Key), KeySize)
	}
	if p.Part < 0 || int64(p.Part) > MaxPart {
		return nil, fmt.Errorf("sse: part number %d out of range", p.Part)
	}
	part := uint32(p.Part)
	info := make([]byte, 0, 32+len(p.Identity))
	info = append(info, "ostium sse segment key"...)
	info = append(info, Version)
	info = binary.BigEndian.AppendUint32(info, part)
	info = append(info, p.Identity...)
	segKey, err := hkdf.Key(sha256.New, p.Key, nil, string(info), KeySize)
	if err != nil {
		return nil, fmt.Errorf("sse: derive segment key: %w", err)
	}
	block, err := aes.NewCipher(segKey)
	if err != nil {
		return nil, fmt.Errorf("sse: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sse: %w", err)
	}
	s := &sealer{aead: aead, part: part}
	s.ad = make([]byte, adFixed, adFixed+len(p.Identity))
	s.ad[0] = Version
	binary.BigEndian.PutUint32(s.ad[1:], part)
	s.ad = append(s.ad, p.Identity...)
	binary.BigEndian.PutUint32(s.nonce[:4], part)
	return s, nil
}

func (s *sealer) set(index int64, last bool) {
	binary.BigEndian.PutUint64(s.nonce[4:], uint64(index))
	binary.BigEndian.PutUint64(s.ad[adIndex:], uint64(index))
	s.ad[adLast] = 0
	if last {
		s.ad[adLast] = 1
	}
}

// seal appends segment index's ciphertext of plain to dst (plain may be
// dst[len(dst):len(dst)+len(plain)], sealing in place).
func (s *sealer) seal(dst, plain []byte, index int64, last bool) []byte {
	s.set(index, last)
	return s.aead.Seal(dst, s.nonce[:], plain, s.ad)
}

// open appends segment index's plaintext to dst, or fails with ErrAuth.
func (s *sealer) open(dst, seg []byte, index int64, last bool) ([]byte, error) {
	s.set(index, last)
	out, err := s.aead.Open(dst, s.nonce[:], seg, s.ad)
	if err != nil {
		return nil, fmt.Errorf("%w (segment %d)", ErrAuth, index)
	}
	return out, nil
}

// Segments is the number of segments a plaintext of plain bytes takes.
func Segments(plain int64) int64 {
	if plain <= 0 {
		return 1
	}
	return (plain + SegmentSize - 1) / SegmentSize
}

// CiphertextSize is the size of the blob a plaintext of plain bytes
// encrypts to.
func CiphertextSize(plain int64) int64 {
	return plain + Segments(plain)*Overhead
}

// PlainSize is the plaintext size of a blob of cipher bytes, or ErrSize
// if no plaintext encrypts to that size.
func PlainSize(cipher int64) (int64, error) {
	if cipher < Overhead {
		return 0, fmt.Errorf("%w: %d", ErrSize, cipher)
	}
	full, rest := cipher/cipherSegment, cipher%cipherSegment
	if rest == 0 {
		return full * SegmentSize, nil
	}
	// A partial last segment holds at least one byte, except the lone
	// empty segment of an empty plaintext.
	if rest < Overhead || rest == Overhead && full > 0 {
		return 0, fmt.Errorf("%w: %d", ErrSize, cipher)
	}
	return full*SegmentSize + rest - Overhead, nil
}

// Range is what reading a plaintext range of an encrypted blob takes:
// the segments First..Last, which are the blob's bytes
// [CipherOff, CipherOff+CipherLen), and which of their plaintext to keep.
type Range struct {
	PlainSize   int64 // the whole blob's plaintext size
	First, Last int64 // segment indexes, inclusive
	CipherOff   int64
	CipherLen   int64
	Skip        int64 // plaintext bytes of segment First before the range
	Length      int64 // plaintext bytes in the range
}

// Final reports whether the range holds the blob's last segment. A reader
// then opens the blob from CipherOff to its end (BlobLength), so that
// bytes appended to the blob are noticed.
func (r Range) Final() bool { return r.Last == Segments(r.PlainSize)-1 }

// BlobLength is the length to open the blob with from CipherOff: to the
// end (-1) when the range holds the last segment, else CipherLen.
func (r Range) BlobLength() int64 {
	if r.Final() {
		return -1
	}
	return r.CipherLen
}

// CipherRange maps the plaintext bytes [off, off+length) of a blob whose
// plaintext is plainSize bytes to the segments holding them. A zero
// length still names one segment (the one at off, or the last), so that
// reading an empty object verifies it.
func CipherRange(plainSize, off, length int64) (Range, error) {
	if plainSize < 0 || off < 0 || length < 0 || off > plainSize || length > plainSize-off {
		return Range{}, fmt.Errorf("sse: range %d+%d outside a plaintext of %d bytes", off, length, plainSize)
	}
	segs := Segments(plainSize)
	first := off / SegmentSize
	last := first
	if length > 0 {
		last = (off + length - 1) / SegmentSize
	}
	if first >= segs { // off == plainSize on a segment boundary
		first, last = segs-1, segs-1
	}
	end := min((last+1)*SegmentSize, plainSize)
	r := Range{
		PlainSize: plainSize,
		First:     first,
		Last:      last,
		CipherOff: first * cipherSegment,
		CipherLen: end - first*SegmentSize + (last-first+1)*Overhead,
		Skip:      off - first*SegmentSize,
		Length:    length,
	}
	return r, nil
}
