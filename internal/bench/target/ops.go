package target

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ostiumio/ostium/internal/bench/payload"
)

// Result is what one operation measured besides its latency.
type Result struct {
	Bytes int64         // payload bytes moved
	TTFB  time.Duration // until the response headers arrived
}

// Error is an S3 error response.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("S3 error %d %s", e.Status, e.Code)
	}
	return fmt.Sprintf("S3 error %d %s: %s", e.Status, e.Code, e.Message)
}

// Verified counts what reads with verification checked.
type Verified struct {
	Objects, Bytes, Mismatches int64
}

// ContentName is the name object contents derive from, so that a reader
// can check what a writer wrote.
func ContentName(bucket, key string) string { return bucket + "/" + key }

// call sends a request, checks the status and hands the body to consume.
func (t *Target) call(ctx context.Context, r Request, consume func(*http.Response) (int64, error)) (Result, error) {
	start := time.Now()
	resp, done, err := t.Do(ctx, r)
	if err != nil {
		return Result{}, err
	}
	defer done()
	defer resp.Body.Close()
	res := Result{TTFB: time.Since(start)}
	if resp.StatusCode/100 != 2 {
		var e struct{ Code, Message string }
		xml.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e)
		if e.Code == "" { // a HEAD, or a body that is not S3's
			e.Code = http.StatusText(resp.StatusCode)
		}
		return res, &Error{Status: resp.StatusCode, Code: e.Code, Message: e.Message}
	}
	if consume == nil {
		consume = func(resp *http.Response) (int64, error) { return io.Copy(io.Discard, resp.Body) }
	}
	res.Bytes, err = consume(resp)
	return res, err
}

// Put writes an object of size bytes whose contents derive from its name.
func (t *Target) Put(ctx context.Context, bucket, key string, size int64) (Result, error) {
	res, err := t.call(ctx, Request{Method: http.MethodPut, Bucket: bucket, Key: key, Header: t.sseWrite,
		Body: payload.New(ContentName(bucket, key), size), Size: size}, nil)
	res.Bytes = size
	if err != nil {
		res.Bytes = 0
	} else if t.cfg.Acked != nil {
		t.cfg.Acked("write", bucket, key, size)
	}
	return res, err
}

// Get reads an object; with verify, every byte is checked against the
// contents Put would have written for an object of size bytes (size < 0:
// of the size the response announces).
func (t *Target) Get(ctx context.Context, bucket, key string, size int64, verify bool) (Result, error) {
	var consume func(*http.Response) (int64, error)
	if verify {
		consume = func(resp *http.Response) (int64, error) {
			if size < 0 {
				size = resp.ContentLength
			}
			v := payload.NewVerifier(ContentName(bucket, key), size)
			n, err := io.Copy(v, resp.Body)
			if err == nil {
				err = v.Check()
			}
			// Only a finished read counts: one cut short by the network is
			// neither checked nor a mismatch.
			switch {
			case err == nil:
				t.verified.objects.Add(1)
				t.verified.bytes.Add(n)
			case errors.Is(err, payload.ErrMismatch):
				t.verified.mismatches.Add(1)
			}
			return n, err
		}
	}
	return t.call(ctx, Request{Method: http.MethodGet, Bucket: bucket, Key: key, Header: t.sseRead}, consume)
}

// Verified is what reads with verification have checked so far.
func (t *Target) Verified() Verified {
	return Verified{t.verified.objects.Load(), t.verified.bytes.Load(), t.verified.mismatches.Load()}
}

// Head stats an object.
func (t *Target) Head(ctx context.Context, bucket, key string) (Result, error) {
	return t.call(ctx, Request{Method: http.MethodHead, Bucket: bucket, Key: key, Header: t.sseRead}, nil)
}

// Delete removes an object.
func (t *Target) Delete(ctx context.Context, bucket, key string) (Result, error) {
	res, err := t.call(ctx, Request{Method: http.MethodDelete, Bucket: bucket, Key: key}, nil)
	if err == nil && t.cfg.Acked != nil {
		t.cfg.Acked("delete", bucket, key, 0)
	}
	return res, err
}

// List lists up to 1,000 keys of a bucket under prefix.
func (t *Target) List(ctx context.Context, bucket, prefix string) (Result, error) {
	q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
	return t.call(ctx, Request{Method: http.MethodGet, Bucket: bucket, Query: q}, nil)
}

// CreateBucket makes a bucket; one the caller already owns is fine.
func (t *Target) CreateBucket(ctx context.Context, bucket string) error {
	_, err := t.call(ctx, Request{Method: http.MethodPut, Bucket: bucket}, nil)
	if e, ok := err.(*Error); ok && e.Code == "BucketAlreadyOwnedByYou" {
		return nil
	}
	return err
}

// DeleteBucket removes an empty bucket.
func (t *Target) DeleteBucket(ctx context.Context, bucket string) error {
	_, err := t.call(ctx, Request{Method: http.MethodDelete, Bucket: bucket}, nil)
	return err
}

// Multipart writes an object of size bytes in parts of partSize bytes
// (create, upload each part, complete); its contents are those Put would
// write, so Get verifies them.
func (t *Target) Multipart(ctx context.Context, bucket, key string, size, partSize int64) (Result, error) {
	name := ContentName(bucket, key)
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	start := time.Now()
	res, err := t.call(ctx, Request{Method: http.MethodPost, Bucket: bucket, Key: key, Query: url.Values{"uploads": {""}}, Header: t.sseWrite},
		func(resp *http.Response) (int64, error) { return 0, xml.NewDecoder(resp.Body).Decode(&created) })
	if err != nil {
		return res, err
	}
	type part struct {
		PartNumber int
		ETag       string
	}
	var done struct {
		XMLName xml.Name `xml:"CompleteMultipartUpload"`
		Parts   []part   `xml:"Part"`
	}
	for n, off := 1, int64(0); off < size || n == 1; n, off = n+1, off+partSize {
		length := min(partSize, size-off)
		q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {created.UploadID}}
		resp, release, err := t.Do(ctx, Request{Method: http.MethodPut, Bucket: bucket, Key: key, Query: q, Header: t.sseRead,
			Body: payload.NewSection(name, size, off, length), Size: length})
		if err != nil {
			return res, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		release()
		if resp.StatusCode/100 != 2 {
			return res, &Error{Status: resp.StatusCode, Code: "UploadPart"}
		}
		done.Parts = append(done.Parts, part{n, resp.Header.Get("ETag")})
		if length == size-off {
			break
		}
	}
	body, _ := xml.Marshal(done)
	_, err = t.call(ctx, Request{Method: http.MethodPost, Bucket: bucket, Key: key, Query: url.Values{"uploadId": {created.UploadID}},
		Body: bytes.NewReader(body), Size: int64(len(body))}, nil)
	if err != nil {
		return Result{}, err
	}
	return Result{Bytes: size, TTFB: time.Since(start)}, nil
}
