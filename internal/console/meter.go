package console

import (
	"io"
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Metering: what the console moves in and out of a bucket is billed as
// the same request through the S3 endpoint would be, so a tenant's usage
// and the provider's bill do not depend on the door it came through.

// Meter counts a bucket's traffic (*metering.Meter).
type Meter interface {
	Record(bucket string, t catalog.Traffic)
}

// billed tells whether a route acts on a bucket, whose traffic is billed.
func (rt route) billed() bool { return strings.HasPrefix(rt.pattern, "/buckets/{bucket}") }

// traffic is a call's billing class, as S3's: listings, reads, deletes,
// and everything else as a write.
func (rt route) traffic() catalog.Traffic {
	switch {
	case rt.method == http.MethodGet && (strings.HasSuffix(rt.pattern, "/objects") ||
		strings.HasSuffix(rt.pattern, "/versions") || strings.HasSuffix(rt.pattern, "/uploads")):
		return catalog.Traffic{List: 1}
	case rt.method == http.MethodGet || rt.method == http.MethodHead:
		return catalog.Traffic{Get: 1}
	case rt.method == http.MethodDelete:
		return catalog.Traffic{Delete: 1}
	}
	return catalog.Traffic{Put: 1}
}

// countingWriter counts the response body's bytes.
type countingWriter struct {
	http.ResponseWriter
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// countingBody counts the request body's bytes read.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// metered wraps a billed call's writer and body, and returns the function
// that records the call once answered with status.
func (h *Handler) metered(rt route, w http.ResponseWriter, r *http.Request) (http.ResponseWriter, func(status int)) {
	if h.o.Meter == nil || !rt.billed() {
		return w, func(int) {}
	}
	cw, cb := &countingWriter{ResponseWriter: w}, &countingBody{ReadCloser: r.Body}
	r.Body = cb
	return cw, func(status int) {
		bucket := r.PathValue("bucket")
		// As on S3, a request refused as unauthorized is not billed.
		if bucket == "" || status == http.StatusForbidden || status == http.StatusUnauthorized {
			return
		}
		t := rt.traffic()
		t.BytesIn, t.BytesOut = cb.n, cw.n
		h.o.Meter.Record(bucket, t)
	}
}
