package sigv4

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// awsExampleTime is when AWS's documented chunked-upload example was signed.
var awsExampleTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

// awsChunkedExample is the request of AWS's "Transferring Payload in
// Multiple Chunks" example: 64 KiB and 1 KiB of 'a', with AWS's signatures.
func awsChunkedExample(chunk1Sig string) *http.Request {
	var b bytes.Buffer
	b.WriteString("10000;chunk-signature=" + chunk1Sig + "\r\n")
	b.Write(bytes.Repeat([]byte("a"), 65536))
	b.WriteString("\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n")
	b.Write(bytes.Repeat([]byte("a"), 1024))
	b.WriteString("\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n")
	r := httptest.NewRequest("PUT", "http://s3.amazonaws.com/examplebucket/chunkObject.txt", &b)
	r.Host = "s3.amazonaws.com"
	h := r.Header
	h.Set("X-Amz-Date", "20130524T000000Z")
	h.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	h.Set("Content-Encoding", "aws-chunked")
	h.Set("X-Amz-Decoded-Content-Length", "66560")
	h.Set("Content-Length", "66824")
	h.Set("X-Amz-Content-Sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"+
		"SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,"+
		"Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
	return r
}

func TestAWSChunkedExample(t *testing.T) {
	opt := Options{Now: func() time.Time { return awsExampleTime }}
	a, err := Verify(context.Background(), awsChunkedExample("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"), lookup, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(a.Body)
	if err != nil || len(got) != 66560 || strings.Trim(string(got), "a") != "" || a.DecodedLength != 66560 {
		t.Fatalf("read %d bytes, err %v, decoded length %d", len(got), err, a.DecodedLength)
	}
	// One flipped digit of the first chunk's signature fails the body.
	a, err = Verify(context.Background(), awsChunkedExample("bd80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648"), lookup, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(a.Body)
	wantCode(t, err, "SignatureDoesNotMatch")
}

// chainSigner signs chunks and trailers the way the SDKs do, from the seed
// signature on.
type chainSigner struct {
	key              []byte
	date, scope, sig string
}

func (c *chainSigner) chunk(data []byte) string {
	c.sig = hex.EncodeToString(hmacSHA256(c.key, "AWS4-HMAC-SHA256-PAYLOAD\n"+c.date+"\n"+c.scope+"\n"+c.sig+"\n"+emptySHA256+"\n"+sha256Hex(data)))
	return c.sig
}

func (c *chainSigner) trailer(lines string) string {
	return hex.EncodeToString(hmacSHA256(c.key, "AWS4-HMAC-SHA256-TRAILER\n"+c.date+"\n"+c.scope+"\n"+c.sig+"\n"+sha256Hex([]byte(lines))))
}

// seedRequest builds a PUT of an aws-chunked body of total decoded bytes
// with payload and X-Amz-Trailer declared (when not ""), signs its
// headers, and returns it with the signer of its chunks.
func seedRequest(t *testing.T, payload, declared string, total int) (*http.Request, *chainSigner) {
	t.Helper()
	amzDate := time.Now().UTC().Format(amzDateForm)
	r := httptest.NewRequest("PUT", "http://127.0.0.1:9000/bucket/key", nil)
	r.Header.Set("X-Amz-Date", amzDate)
	r.Header.Set("X-Amz-Content-Sha256", payload)
	r.Header.Set("X-Amz-Decoded-Content-Length", fmt.Sprint(total))
	r.Header.Set("Content-Encoding", "aws-chunked")
	headers := []string{"content-encoding", "host", "x-amz-content-sha256", "x-amz-date", "x-amz-decoded-content-length"}
	if declared != "" {
		r.Header.Set("X-Amz-Trailer", declared)
		headers = append(headers, "x-amz-trailer")
	}
	sc := scope{testAK, amzDate[:8], "us-east-1", "s3"}
	creq := "PUT\n/bucket/key\n\n" + canonicalHeaders(r, headers, false) + "\n" + strings.Join(headers, ";") + "\n" + payload
	key := signingKey(testSecret, sc.date, sc.region, "s3")
	seed := hex.EncodeToString(hmacSHA256(key, algorithm+"\n"+amzDate+"\n"+sc.String()+"\n"+sha256Hex([]byte(creq))))
	r.Header.Set("Authorization", algorithm+" Credential="+testAK+"/"+sc.String()+", SignedHeaders="+strings.Join(headers, ";")+", Signature="+seed)
	return r, &chainSigner{key: key, date: amzDate, scope: sc.String(), sig: seed}
}

// trailerRequest builds a request with an aws-chunked body of chunks and a
// CRC32 trailer, signed (seed, chunks, trailer) unless unsigned.
func trailerRequest(t *testing.T, chunks [][]byte, crc string, unsigned bool, badTrailerSig bool) *http.Request {
	t.Helper()
	payload := streamingSignedTrail
	if unsigned {
		payload = streamingUnsignedTail
	}
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	r, cs := seedRequest(t, payload, "x-amz-checksum-crc32", total)
	var b bytes.Buffer
	for _, c := range append(chunks, nil) {
		fmt.Fprintf(&b, "%x", len(c))
		if !unsigned {
			b.WriteString(";chunk-signature=" + cs.chunk(c))
		}
		b.WriteString("\r\n")
		if len(c) > 0 {
			b.Write(c)
			b.WriteString("\r\n")
		}
	}
	lines := "x-amz-checksum-crc32:" + crc + "\n"
	b.WriteString("x-amz-checksum-crc32:" + crc + "\r\n")
	if !unsigned {
		sig := cs.trailer(lines)
		if badTrailerSig {
			sig = strings.Repeat("0", 64)
		}
		b.WriteString("x-amz-trailer-signature:" + sig + "\r\n")
	}
	b.WriteString("\r\n")
	r.Body = io.NopCloser(&b)
	return r
}

func TestTrailers(t *testing.T) {
	chunks := [][]byte{bytes.Repeat([]byte("x"), 8192), []byte("tail")}
	for _, unsigned := range []bool{true, false} {
		t.Run(fmt.Sprintf("unsigned=%v", unsigned), func(t *testing.T) {
			a, err := Verify(context.Background(), trailerRequest(t, chunks, "AAAAAA==", unsigned, false), lookup, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(a.Body)
			if err != nil || len(got) != 8196 {
				t.Fatalf("read %d bytes: %v", len(got), err)
			}
			if a.Trailer == nil || a.Trailer().Get("x-amz-checksum-crc32") != "AAAAAA==" {
				t.Fatal("trailer missing or wrong")
			}
		})
	}
	a, err := Verify(context.Background(), trailerRequest(t, chunks, "AAAAAA==", false, true), lookup, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(a.Body)
	wantCode(t, err, "SignatureDoesNotMatch")
}

// A body shorter or longer than x-amz-decoded-content-length, or framed
// wrongly, fails as IncompleteBody.
func TestChunkedFraming(t *testing.T) {
	for name, body := range map[string]string{
		"short":     "5\r\nhello\r\n0\r\n\r\n",
		"truncated": "a\r\nhello",
		"no crlf":   "a\r\nhelloworldX0\r\n\r\n",
		"bad size":  "zz\r\nhello\r\n",
		"long line": strings.Repeat("1", 5000) + "\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c := newChunked(io.NopCloser(strings.NewReader(body)), 10, false, true)
			_, err := io.ReadAll(c)
			wantCode(t, err, "IncompleteBody")
		})
	}
}

func FuzzChunked(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n"), int64(5), false)
	f.Add([]byte("5;chunk-signature=00\r\nhello\r\n0;chunk-signature=00\r\n\r\n"), int64(5), true)
	f.Fuzz(func(t *testing.T, body []byte, expected int64, signed bool) {
		if expected < 0 {
			expected = -expected
		}
		c := newChunked(io.NopCloser(bytes.NewReader(body)), expected, signed, true)
		c.key, c.amzDate, c.scope, c.prevSig = []byte("k"), "20260101T000000Z", "20260101/us-east-1/s3/aws4_request", "seed"
		n, err := io.Copy(io.Discard, c)
		if n > expected || n > int64(len(body)) {
			t.Fatalf("decoded %d bytes from %d, %d declared", n, len(body), expected)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("error %v is not an S3 error", err)
		}
	})
}

func TestSignatureV2(t *testing.T) {
	// AWS's documented example: the object GET of awsexamplebucket1.
	r := httptest.NewRequest("GET", "http://awsexamplebucket1.s3.us-west-1.amazonaws.com/photos/puppy.jpg", nil)
	r.Header.Set("Date", "Tue, 27 Mar 2007 19:36:42 +0000")
	r.Header.Set("Authorization", "AWS "+testAK+":qgk2+6Sv9/oM7G3qLEjTH1a1l1g=")
	at := time.Date(2007, 3, 27, 19, 36, 42, 0, time.UTC)
	opt := Options{V2Resource: "/awsexamplebucket1/photos/puppy.jpg", Now: func() time.Time { return at }}
	if _, err := Verify(context.Background(), r, lookup, opt); err != nil {
		t.Fatal(err)
	}
	opt.V2Resource = "/awsexamplebucket1/photos/kitten.jpg"
	_, err := Verify(context.Background(), r, lookup, opt)
	wantCode(t, err, "SignatureDoesNotMatch")
	opt.V2Resource, opt.Now = "/awsexamplebucket1/photos/puppy.jpg", func() time.Time { return at.Add(time.Hour) }
	_, err = Verify(context.Background(), r, lookup, opt)
	wantCode(t, err, "RequestTimeTooSkewed")

	// Query form: the same string to sign with Expires in place of Date.
	q := httptest.NewRequest("GET", "http://s3.example.com/b/k?AWSAccessKeyId="+testAK+"&Expires=1175139620&Signature=x", nil)
	opt = Options{V2Resource: "/b/k", Now: func() time.Time { return time.Unix(1175139620+1, 0) }}
	_, err = Verify(context.Background(), q, lookup, opt)
	wantCode(t, err, "AccessDenied")
	opt.Now = func() time.Time { return time.Unix(1175139620-60, 0) }
	_, err = Verify(context.Background(), q, lookup, opt)
	wantCode(t, err, "SignatureDoesNotMatch")
}
