package sigv4

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// maxLine bounds a chunk header or trailer line, so a malformed body cannot
// make the reader buffer without limit.
const maxLine = 4096

var emptySHA256 = sha256Hex(nil)

// chunked decodes an aws-chunked body:
//
//	hex-size[;chunk-signature=sig]\r\n data \r\n ... 0[;chunk-signature=sig]\r\n
//	[trailer-name:value\r\n ... [x-amz-trailer-signature:sig\r\n]] \r\n
//
// When signed, each chunk's signature chains on the previous one and is
// checked when the chunk's last byte has been read; the trailer signature
// chains on the final chunk's.
type chunked struct {
	body     io.ReadCloser
	r        *bufio.Reader
	signed   bool
	trailers bool
	expected int64 // x-amz-decoded-content-length
	// declared are the trailers x-amz-trailer announced (lower case):
	// each must arrive, and no other.
	declared []string

	key                     []byte
	amzDate, scope, prevSig string

	left    int64 // bytes of the current chunk not yet read
	inChunk bool
	sig     string // the current chunk's declared signature
	hash    hash.Hash
	total   int64
	trail   http.Header
	err     error // sticky: the first failure or io.EOF
}

func newChunked(body io.ReadCloser, expected int64, signed, trailers bool) *chunked {
	return &chunked{body: body, r: bufio.NewReaderSize(body, 64<<10), signed: signed, trailers: trailers,
		expected: expected, hash: sha256.New()}
}

func (c *chunked) trailer() http.Header { return c.trail }

func (c *chunked) Close() error { return c.body.Close() }

func (c *chunked) Read(p []byte) (int, error) {
	for c.err == nil && !c.inChunk {
		c.err = c.nextChunk()
	}
	if c.err != nil {
		return 0, c.err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.total += int64(n)
	if c.signed {
		c.hash.Write(p[:n])
	}
	if c.left == 0 {
		c.err = c.endChunk()
		if c.err == nil {
			c.inChunk = false
		}
	} else if err == io.EOF {
		c.err = errIncompleteBody
	} else if err != nil {
		c.err = err
	}
	return n, c.err
}

// nextChunk reads a chunk header; the zero-size chunk ends the body.
func (c *chunked) nextChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	sizeText, ext, _ := strings.Cut(line, ";")
	size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
	if err != nil || size < 0 {
		return errIncompleteBody
	}
	c.sig = ""
	if k, v, ok := strings.Cut(ext, "="); ok && strings.TrimSpace(k) == "chunk-signature" {
		c.sig = strings.TrimSpace(v)
	}
	if c.signed && c.sig == "" {
		return errSignature
	}
	if size > c.expected-c.total {
		// More than x-amz-decoded-content-length announced: refuse the
		// chunk before handing out any of it.
		return errIncompleteBody
	}
	c.hash.Reset()
	if size > 0 {
		c.left, c.inChunk = size, true
		return nil
	}
	if err := c.checkChunk(); err != nil {
		return err
	}
	if err := c.readTrailers(); err != nil {
		return err
	}
	if c.total != c.expected {
		return errIncompleteBody
	}
	return io.EOF
}

// endChunk consumes the CRLF after a chunk's data and checks its signature.
func (c *chunked) endChunk() error {
	var crlf [2]byte
	if _, err := io.ReadFull(c.r, crlf[:]); err != nil || crlf != [2]byte{'\r', '\n'} {
		return errIncompleteBody
	}
	return c.checkChunk()
}

func (c *chunked) checkChunk() error {
	if !c.signed {
		return nil
	}
	sts := "AWS4-HMAC-SHA256-PAYLOAD\n" + c.amzDate + "\n" + c.scope + "\n" + c.prevSig + "\n" +
		emptySHA256 + "\n" + hex.EncodeToString(c.hash.Sum(nil))
	want := hex.EncodeToString(hmacSHA256(c.key, sts))
	if !hmac.Equal([]byte(want), []byte(c.sig)) {
		return errSignature
	}
	c.prevSig = c.sig
	return nil
}

// trailerSigPrefix starts the line that signs the trailers.
const trailerSigPrefix = "x-amz-trailer-signature:"

// maxTrailers bounds the trailer lines of a body.
const maxTrailers = 16

// readTrailers reads trailer lines up to the blank line (or the end of the
// body, which some clients reach without one). minio-go ends its trailer
// lines with a bare LF and puts a blank line (CRLF) before the signature
// line, so a blank line followed by the signature line does not end them.
func (c *chunked) readTrailers() error {
	c.trail = http.Header{}
	var canon bytes.Buffer
	var trailerSig string
	for {
		line, err := c.line()
		if err == nil && line == "" {
			if p, _ := c.r.Peek(len(trailerSigPrefix)); trailerSig == "" && strings.EqualFold(string(p), trailerSigPrefix) {
				continue
			}
			break
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
		if !ok || name == "" {
			return errMalformedTrailer
		}
		if name == "x-amz-trailer-signature" {
			trailerSig = value
			continue
		}
		if len(c.trail) >= maxTrailers {
			return errMalformedTrailer
		}
		c.trail.Add(name, value)
		canon.WriteString(name + ":" + value + "\n")
	}
	if !c.trailers {
		return nil
	}
	if err := c.checkDeclared(); err != nil {
		return err
	}
	if !c.signed {
		return nil
	}
	if trailerSig == "" {
		return errMalformedTrailer
	}
	sts := "AWS4-HMAC-SHA256-TRAILER\n" + c.amzDate + "\n" + c.scope + "\n" + c.prevSig + "\n" + sha256Hex(canon.Bytes())
	want := hex.EncodeToString(hmacSHA256(c.key, sts))
	if !hmac.Equal([]byte(want), []byte(trailerSig)) {
		return errSignature
	}
	return nil
}

// checkDeclared holds the trailers to what x-amz-trailer announced: one
// declared but missing, or one of another name (a checksum of another
// algorithm than declared), would leave the payload unchecked or checked
// against what the client did not sign up for, so either refuses the
// body, as S3 does (400 MalformedTrailerError).
func (c *chunked) checkDeclared() error {
	for _, d := range c.declared {
		if c.trail.Get(d) == "" {
			return errMalformedTrailer
		}
	}
	for name := range c.trail {
		if !contains(c.declared, strings.ToLower(name)) {
			return errMalformedTrailer
		}
	}
	return nil
}

// declaredTrailers parses x-amz-trailer: names, comma separated.
func declaredTrailers(v string) []string {
	var out []string
	for _, t := range strings.Split(v, ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// line reads one CRLF- (or LF-) terminated line of at most maxLine bytes.
func (c *chunked) line() (string, error) {
	var b []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxLine {
			return "", errIncompleteBody
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(b) == 0 {
			return "", io.EOF
		}
		return "", errIncompleteBody
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// hashing checks a body against the SHA-256 the client declared, at EOF.
type hashing struct {
	body io.ReadCloser
	want []byte
	h    hash.Hash
}

func newHashing(body io.ReadCloser, want []byte) *hashing {
	return &hashing{body: body, want: want, h: sha256.New()}
}

func (h *hashing) Read(p []byte) (int, error) {
	n, err := h.body.Read(p)
	h.h.Write(p[:n])
	if err == io.EOF && !bytes.Equal(h.h.Sum(nil), h.want) {
		return n, errSHA256Mismatch
	}
	return n, err
}

func (h *hashing) Close() error { return h.body.Close() }
