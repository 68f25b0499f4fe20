package sigv4

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"testing"
)

// encodeChunks frames data as aws-chunked in chunks of size bytes (the
// SDKs and minio-go use 64 KiB), through the zero-size chunk's header line
// and its CRLF; cs signs each chunk unless nil. Trailers are the caller's.
func encodeChunks(cs *chainSigner, data []byte, size int) []byte {
	var b bytes.Buffer
	for {
		n := min(size, len(data))
		chunk := data[:n]
		data = data[n:]
		fmt.Fprintf(&b, "%x", n)
		if cs != nil {
			b.WriteString(";chunk-signature=" + cs.chunk(chunk))
		}
		b.WriteString("\r\n")
		if n == 0 {
			return b.Bytes()
		}
		b.Write(chunk)
		b.WriteString("\r\n")
	}
}

func crc32cOf(data []byte) string {
	var sum [4]byte
	v := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	sum[0], sum[1], sum[2], sum[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// minioGoBody is the body minio-go's StreamingSignV4 writes for data with
// one trailer (pkg/signer/request-signature-streaming.go): 64 KiB signed
// chunks, the zero-size chunk's header with no CRLF of its own after it
// (signChunk(0, false) when there are trailers), then each trailer as
// "name:value\n" (a bare LF), then "\r\n" + "x-amz-trailer-signature:" +
// signature + "\r\n\r\n". The trailer signature chains on the zero-size
// chunk's and covers the "name:value\n" lines, as in AWS's framing.
func minioGoBody(cs *chainSigner, data []byte, size int, name, value string, badSig bool) []byte {
	b := encodeChunks(cs, data, size)
	lines := name + ":" + value + "\n"
	sig := cs.trailer(lines)
	if badSig {
		sig = strings.Repeat("0", 64)
	}
	return append(b, []byte(lines+"\r\n"+"x-amz-trailer-signature:"+sig+"\r\n\r\n")...)
}

func readBody(t *testing.T, r *http.Request) (*Auth, []byte, error) {
	t.Helper()
	a, err := Verify(context.Background(), r, lookup, Options{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	got, err := io.ReadAll(a.Body)
	return a, got, err
}

// minio-go's signed-trailer framing (what `mc cp --checksum` sends) is
// accepted, its trailer kept and its trailer signature checked.
func TestMinioGoTrailerFraming(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 7000) // two chunks: 64 KiB and 4464 bytes
	r, cs := seedRequest(t, streamingSignedTrail, "x-amz-checksum-crc32c", len(data))
	body := minioGoBody(cs, data, 64<<10, "x-amz-checksum-crc32c", crc32cOf(data), false)
	if !bytes.Contains(body, []byte("\r\n0;chunk-signature=")) || !bytes.Contains(body, []byte("==\n\r\nx-amz-trailer-signature:")) {
		t.Fatalf("not minio-go's framing: %q", body[len(body)-200:])
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	a, got, err := readBody(t, r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes: %v", len(got), err)
	}
	if v := a.Trailer().Get("x-amz-checksum-crc32c"); v != crc32cOf(data) {
		t.Fatalf("trailer = %q", v)
	}

	r, cs = seedRequest(t, streamingSignedTrail, "x-amz-checksum-crc32c", len(data))
	r.Body = io.NopCloser(bytes.NewReader(minioGoBody(cs, data, 64<<10, "x-amz-checksum-crc32c", crc32cOf(data), true)))
	_, _, err = readBody(t, r)
	wantCode(t, err, "SignatureDoesNotMatch")
}

// A trailer x-amz-trailer declared must arrive, and no other: missing,
// of another algorithm, undeclared or not a "name:value" line, the body
// fails with 400 MalformedTrailerError, as S3 answers (and as the
// S3-compatibility suites that run against S3 expect), never 403.
func TestTrailerMustMatchDeclaration(t *testing.T) {
	data := []byte("hello world")
	for name, tc := range map[string]struct {
		payload, declared, trailer string
	}{
		"missing, unsigned":         {streamingUnsignedTail, "x-amz-checksum-crc32c", ""},
		"missing, signed":           {streamingSignedTrail, "x-amz-checksum-crc32c", ""},
		"other algorithm, unsigned": {streamingUnsignedTail, "x-amz-checksum-crc32", "x-amz-checksum-crc32c:" + crc32cOf(data) + "\r\n"},
		"other algorithm, signed":   {streamingSignedTrail, "x-amz-checksum-crc32", "x-amz-checksum-crc32c:" + crc32cOf(data) + "\r\n"},
		"undeclared":                {streamingUnsignedTail, "", "x-amz-checksum-crc32c:" + crc32cOf(data) + "\r\n"},
		"no colon":                  {streamingUnsignedTail, "x-amz-checksum-crc32c", "x-amz-checksum-crc32c " + crc32cOf(data) + "\r\n"},
		"no name":                   {streamingUnsignedTail, "x-amz-checksum-crc32c", ":" + crc32cOf(data) + "\r\n"},
		"signed, no signature line": {streamingSignedTrail, "x-amz-checksum-crc32c", "x-amz-checksum-crc32c:" + crc32cOf(data) + "\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			r, cs := seedRequest(t, tc.payload, tc.declared, len(data))
			if tc.payload == streamingUnsignedTail {
				cs = nil
			}
			body := append(encodeChunks(cs, data, 64<<10), tc.trailer+"\r\n"...)
			r.Body = io.NopCloser(bytes.NewReader(body))
			_, _, err := readBody(t, r)
			wantCode(t, err, "MalformedTrailerError")
			if e := err.(*Error); e.Status != 400 {
				t.Fatalf("status %d", e.Status)
			}
		})
	}
	// Declared and present: accepted, in both framings.
	r, _ := seedRequest(t, streamingUnsignedTail, "x-amz-checksum-crc32c", len(data))
	r.Body = io.NopCloser(bytes.NewReader(append(encodeChunks(nil, data, 4), "x-amz-checksum-crc32c:"+crc32cOf(data)+"\r\n\r\n"...)))
	if _, got, err := readBody(t, r); err != nil || string(got) != "hello world" {
		t.Fatalf("got %q, %v", got, err)
	}
}
