package s3

import (
	"io"
	"net/http"

	"github.com/ostiumio/ostium/internal/catalog"
)

// record counts a request on a bucket by its billing class. Like AWS, a
// request refused as unauthorized (403) is not billed to the bucket.
func (s *Server) record(c *call, w *meteredWriter) {
	if s.meter == nil || c.Bucket == "" || c.Op == OpUnknown || w.status == http.StatusForbidden {
		return
	}
	t := catalog.Traffic{BytesOut: w.n}
	if c.body != nil {
		t.BytesIn = c.body.n
	}
	switch c.Op {
	case OpGetObject, OpHeadObject, OpHeadBucket, OpGetBucketLocation, OpGetBucketVersioning:
		t.Get = 1
	case OpListObjects, OpListObjectsV2, OpListObjectVersions, OpListMultipartUploads, OpListParts:
		t.List = 1
	case OpDeleteObject, OpDeleteObjects, OpDeleteBucket, OpAbortMultipartUpload:
		t.Delete = 1
	default:
		t.Put = 1
	}
	s.meter.Record(c.Bucket, t)
}

// meteredWriter counts the body bytes sent and remembers the status.
type meteredWriter struct {
	http.ResponseWriter
	status int
	n      int64
	// unread tells whether the request's body is not read to its end.
	unread func() bool
	// pace, when set, waits until n more bytes may go out (ratelimit.go).
	pace func(n int) error
}

// begin records the status of a response about to start. One that starts
// with the request's body not read to its end (a GET or a DELETE that
// declares a body, an ACL stated in headers with a document too) closes
// the connection: net/http would otherwise wait for up to 256 KiB of that
// body before sending a byte, so a client that declares one and never
// sends it would hold the request's slot.
func (w *meteredWriter) begin(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	if w.unread != nil && w.unread() {
		w.Header().Set("Connection", "close")
	}
}

func (w *meteredWriter) WriteHeader(status int) {
	w.begin(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *meteredWriter) Write(p []byte) (int, error) {
	w.begin(http.StatusOK)
	n, err := w.ResponseWriter.Write(p)
	w.n += int64(n)
	if err == nil && w.pace != nil {
		err = w.pace(n)
	}
	return n, err
}

// ReadFrom keeps the server's own copy path (sendfile for files).
func (w *meteredWriter) ReadFrom(r io.Reader) (int64, error) {
	w.begin(http.StatusOK)
	if w.pace != nil { // through Write, which paces
		return io.Copy(struct{ io.Writer }{w}, r)
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.n += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *meteredWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// countingReader counts the payload bytes a handler read.
type countingReader struct {
	r io.ReadCloser
	n int64
	// pace, when set, waits until n more bytes may come in (ratelimit.go).
	pace func(n int) error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 && c.pace != nil {
		if perr := c.pace(n); perr != nil {
			return n, perr
		}
	}
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }
