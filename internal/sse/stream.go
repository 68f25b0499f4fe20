package sse

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// segments pools the one-segment buffers of readers, so that a stream of
// small objects does not allocate (and zero) 64 KiB for each.
var segments = sync.Pool{New: func() any { b := make([]byte, cipherSegment); return &b }}

func getSegment() []byte  { return (*segments.Get().(*[]byte))[:0] }
func putSegment(b []byte) { b = b[:0]; segments.Put(&b) }

// EncryptReader reads src's plaintext and yields the blob's ciphertext.
// It holds one segment at a time.
type EncryptReader struct {
	src     io.Reader
	s       *sealer
	buf     []byte // one sealed segment; out is what is left of it to read
	out     []byte
	index   int64
	peek    [1]byte // a byte read ahead to learn whether a full segment is the last
	peeked  bool
	done    bool
	err     error
	written int64 // plaintext bytes sealed
}

// NewEncryptReader returns a reader of src's plaintext encrypted for p.
func NewEncryptReader(src io.Reader, p Params) (*EncryptReader, error) {
	s, err := newSealer(p)
	if err != nil {
		return nil, err
	}
	return &EncryptReader{src: src, s: s, buf: getSegment()}, nil
}

// PlainBytes is the number of plaintext bytes encrypted so far.
func (e *EncryptReader) PlainBytes() int64 { return e.written }

func (e *EncryptReader) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		if e.done {
			e.release()
			return 0, io.EOF
		}
		if e.err = e.fill(); e.err != nil {
			e.release()
		}
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

func (e *EncryptReader) release() {
	if e.buf != nil {
		putSegment(e.buf)
		e.buf = nil
	}
}

// fill seals the next segment into buf. A full segment is the last one
// only if src has nothing after it, which takes reading one byte ahead.
func (e *EncryptReader) fill() error {
	plain := e.buf[:SegmentSize]
	n := 0
	if e.peeked {
		plain[0] = e.peek[0]
		n, e.peeked = 1, false
	}
	m, err := readFull(e.src, plain[n:])
	n += m
	last := false
	switch {
	case err == io.EOF:
		last = true
	case err != nil:
		return fmt.Errorf("sse: read plaintext: %w", err)
	default:
		k, err := readFull(e.src, e.peek[:])
		switch {
		case k == 1:
			e.peeked = true
		case err == io.EOF:
			last = true
		default:
			return fmt.Errorf("sse: read plaintext: %w", err)
		}
	}
	e.out = e.s.seal(e.buf[:0], plain[:n], e.index, last)
	e.index++
	e.written += int64(n)
	e.done = last
	return nil
}

// readFull is io.ReadFull, but only the source's io.EOF ends the
// plaintext: a source failing with io.ErrUnexpectedEOF (a request body
// cut short) must fail the write, not end the object early.
func readFull(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// EncryptWriter encrypts what is written to it for p and writes the
// ciphertext to dst; Close writes the last segment and must be called
// (even for an empty plaintext). It holds one segment at a time.
type EncryptWriter struct {
	dst    io.Writer
	s      *sealer
	buf    []byte // plaintext of the segment being filled (cap: sealed size)
	index  int64
	closed bool
	err    error
}

// NewEncryptWriter returns a writer encrypting for p into dst.
func NewEncryptWriter(dst io.Writer, p Params) (*EncryptWriter, error) {
	s, err := newSealer(p)
	if err != nil {
		return nil, err
	}
	return &EncryptWriter{dst: dst, s: s, buf: make([]byte, 0, cipherSegment)}, nil
}

func (w *EncryptWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, errors.New("sse: write after close")
	}
	n := 0
	for len(p) > 0 {
		// A full segment waits for more bytes: only then is it known
		// not to be the last.
		if len(w.buf) == SegmentSize {
			if w.err = w.flush(false); w.err != nil {
				return n, w.err
			}
		}
		k := copy(w.buf[len(w.buf):SegmentSize], p)
		w.buf = w.buf[:len(w.buf)+k]
		p = p[k:]
		n += k
	}
	return n, nil
}

func (w *EncryptWriter) flush(last bool) error {
	out := w.s.seal(w.buf[:0], w.buf, w.index, last)
	w.index++
	w.buf = w.buf[:0]
	if _, err := w.dst.Write(out); err != nil {
		return fmt.Errorf("sse: write ciphertext: %w", err)
	}
	return nil
}

// Close seals and writes the last segment. It does not close dst.
func (w *EncryptWriter) Close() error {
	if w.closed || w.err != nil {
		return w.err
	}
	w.closed = true
	w.err = w.flush(true)
	return w.err
}

// DecryptReader yields the plaintext of a Range, reading its segments
// from a source positioned at the range's CipherOff. Each segment is
// verified before any of its bytes is returned; a segment that does not
// open fails the read with ErrAuth, and so does a source that ends early
// or, when the range holds the last segment, goes on past the blob's end.
type DecryptReader struct {
	src   io.Reader
	s     *sealer
	r     Range
	buf   []byte
	out   []byte
	index int64
	skip  int64 // plaintext still to drop before the range
	left  int64 // plaintext of the range still to return
	err   error
	// pooled: buf came from the pool and goes back once the read ends.
	pooled bool
}

// NewDecryptReader returns a reader of r's plaintext from src, which
// yields the blob's bytes from r.CipherOff (to r.BlobLength()).
func NewDecryptReader(src io.Reader, p Params, r Range) (*DecryptReader, error) {
	s, err := newSealer(p)
	if err != nil {
		return nil, err
	}
	if r.First < 0 || r.Last < r.First || r.Last >= Segments(r.PlainSize) {
		return nil, fmt.Errorf("sse: bad range %+v", r)
	}
	// Even a small object's one segment takes a pooled buffer: a stream
	// of small GETs then allocates (and zeroes) nothing per request, and
	// a reader still holds at most one segment.
	d := &DecryptReader{src: src, s: s, r: r, index: r.First, skip: r.Skip, left: r.Length}
	d.buf, d.pooled = getSegment()[:cipherSegment], true
	return d, nil
}

func (d *DecryptReader) Read(p []byte) (int, error) {
	if len(d.out) == 0 && !d.more() {
		return 0, d.err
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// WriteTo writes the range's plaintext to w straight from the buffer
// each segment is opened in, once: io.Copy takes this path, which spares
// the copy of every segment into the caller's buffer that Read makes (an
// encrypted GET's plaintext goes from here to the socket). Each segment
// is still verified whole before any of it is written.
func (d *DecryptReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for len(d.out) > 0 || d.more() {
		n, err := w.Write(d.out)
		total += int64(n)
		d.out = d.out[n:]
		if err == nil && len(d.out) > 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			// The reader stops here: what is left of the segment is not
			// written, and its buffer goes back to the pool.
			d.out, d.err = nil, err
			d.release()
			return total, err
		}
	}
	if d.err == io.EOF {
		return total, nil
	}
	return total, d.err
}

// more opens the next segment into d.out and reports whether it did; at
// the range's end, or on a failure, it releases the buffer and leaves
// the reason in d.err (io.EOF at the end).
func (d *DecryptReader) more() bool {
	for len(d.out) == 0 {
		if d.err != nil {
			return false
		}
		if d.index > d.r.Last {
			d.err = d.checkEnd()
			if d.err == nil {
				d.err = io.EOF
			}
			d.release()
			continue
		}
		if d.err = d.next(); d.err != nil {
			d.release()
		}
	}
	return true
}

func (d *DecryptReader) release() {
	if d.pooled {
		putSegment(d.buf)
		d.buf, d.pooled = nil, false
	}
}

func (d *DecryptReader) next() error {
	final := d.index == Segments(d.r.PlainSize)-1
	size := int64(cipherSegment)
	if final {
		size = d.r.PlainSize - d.index*SegmentSize + Overhead
	}
	seg := d.buf[:size]
	if _, err := io.ReadFull(d.src, seg); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("%w: blob ends inside segment %d", ErrAuth, d.index)
		}
		return fmt.Errorf("sse: read ciphertext: %w", err)
	}
	plain, err := d.s.open(seg[:0], seg, d.index, final)
	if err != nil {
		return err
	}
	d.index++
	if d.skip > 0 {
		k := min(d.skip, int64(len(plain)))
		plain, d.skip = plain[k:], d.skip-k
	}
	if int64(len(plain)) > d.left {
		plain = plain[:d.left]
	}
	d.left -= int64(len(plain))
	d.out = plain
	return nil
}

// checkEnd fails a blob with bytes after its last segment: not what was
// written, so not to be trusted.
func (d *DecryptReader) checkEnd() error {
	if !d.r.Final() {
		return nil
	}
	var b [1]byte
	n, err := io.ReadFull(d.src, b[:])
	if n == 0 && err == io.EOF {
		return nil
	}
	if n > 0 {
		return fmt.Errorf("%w: bytes after the last segment", ErrAuth)
	}
	return fmt.Errorf("sse: read ciphertext: %w", err)
}

// Encrypt returns the ciphertext of plain, for small payloads held in
// memory (inline objects).
func Encrypt(plain []byte, p Params) ([]byte, error) {
	s, err := newSealer(p)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, CiphertextSize(int64(len(plain))))
	segs := Segments(int64(len(plain)))
	for i := int64(0); i < segs; i++ {
		end := min((i+1)*SegmentSize, int64(len(plain)))
		out = s.seal(out, plain[i*SegmentSize:end], i, i == segs-1)
	}
	return out, nil
}

// Decrypt returns the plaintext of a whole blob held in memory. The
// plaintext size comes from the ciphertext's, so a blob cut on a segment
// boundary or extended fails by its last-segment flag.
func Decrypt(blob []byte, p Params) ([]byte, error) {
	size, err := PlainSize(int64(len(blob)))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAuth, err)
	}
	s, err := newSealer(p)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, size)
	segs := Segments(size)
	for i := int64(0); i < segs; i++ {
		end := min((i+1)*cipherSegment, int64(len(blob)))
		if out, err = s.open(out, blob[i*cipherSegment:end], i, i == segs-1); err != nil {
			return nil, err
		}
	}
	return out, nil
}
