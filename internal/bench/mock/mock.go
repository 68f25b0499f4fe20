// Package mock is a no-op S3 endpoint for measuring the generator itself:
// it checks no signature and stores no bytes, only each object's size, so
// that reads return (and verify) the contents a write would have stored.
package mock

import (
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ostiumio/ostium/internal/bench/payload"
	"github.com/ostiumio/ostium/internal/bench/target"
)

// Server is the mock endpoint, path style.
type Server struct {
	sizes sync.Map // "bucket/key" -> int64
	// Delay holds every response back this long before its headers, as a
	// target of known latency.
	Delay time.Duration
	// Fill, if set, gives the size of an object never written: the
	// generator ceiling reads what a run would read without writing it
	// first.
	Fill func(bucket, key string) (int64, bool)
	// uploads are the multipart uploads in progress: id -> bytes so far.
	uploads sync.Map
	nextID  atomic.Int64
}

// New returns an empty mock.
func New() *Server { return &Server{} }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	name := target.ContentName(bucket, key)
	switch {
	case key == "" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/xml")
		xml.NewEncoder(w).Encode(struct {
			XMLName xml.Name `xml:"ListBucketResult"`
			Name    string
		}{Name: bucket})
	case key == "":
		io.Copy(io.Discard, r.Body)
	case r.Method == http.MethodPost && r.URL.Query().Has("uploads"):
		id := strconv.FormatInt(s.nextID.Add(1), 10)
		s.uploads.Store(id, new(atomic.Int64))
		w.Header().Set("Content-Type", "application/xml")
		xml.NewEncoder(w).Encode(struct {
			XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
			UploadID string   `xml:"UploadId"`
		}{UploadID: id})
	case r.URL.Query().Has("uploadId"):
		s.multipart(w, r, name)
	case r.Method == http.MethodPut:
		n, _ := io.Copy(io.Discard, r.Body)
		s.sizes.Store(name, n)
		w.Header().Set("ETag", `"00000000000000000000000000000000"`)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		v, ok := s.sizes.Load(name)
		if !ok && s.Fill != nil {
			v, ok = s.Fill(bucket, key)
		}
		if !ok {
			http.Error(w, "<Error><Code>NoSuchKey</Code></Error>", http.StatusNotFound)
			return
		}
		size := v.(int64)
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		if r.Method == http.MethodGet {
			serve(w, payload.New(name, size), size)
		}
	case r.Method == http.MethodDelete:
		s.sizes.Delete(name)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// multipart serves an upload's parts, completion and abort: the object
// completed has the size of its parts together.
func (s *Server) multipart(w http.ResponseWriter, r *http.Request, name string) {
	id := r.URL.Query().Get("uploadId")
	v, ok := s.uploads.Load(id)
	if !ok {
		http.Error(w, "<Error><Code>NoSuchUpload</Code></Error>", http.StatusNotFound)
		return
	}
	size := v.(*atomic.Int64)
	switch r.Method {
	case http.MethodPut:
		n, _ := io.Copy(io.Discard, r.Body)
		size.Add(n)
		w.Header().Set("ETag", `"00000000000000000000000000000000"`)
	case http.MethodPost:
		io.Copy(io.Discard, r.Body)
		s.uploads.Delete(id)
		s.sizes.Store(name, size.Load())
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, "<CompleteMultipartUploadResult></CompleteMultipartUploadResult>")
	case http.MethodDelete:
		s.uploads.Delete(id)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// Seed stores an object's size as a PUT would, without sending it.
func (s *Server) Seed(bucket, key string, size int64) {
	s.sizes.Store(target.ContentName(bucket, key), size)
}

// RoundTrip serves a request in process, with no network: the `mock`
// storage type of workload files, and the generator ceiling. The response
// body streams through a pipe as the handler writes it, so objects of any
// size cost a buffer, not their size.
func (s *Server) RoundTrip(req *http.Request) (*http.Response, error) {
	in := req.Clone(req.Context()) // a server sees a body, if an empty one
	if in.Body == nil {
		in.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer in.Body.Close()
		s.ServeHTTP(rw, in)
		rw.WriteHeader(http.StatusOK) // a handler that wrote nothing
		pw.Close()
	}()
	select {
	case <-rw.ready:
	case <-req.Context().Done():
		pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	resp := &http.Response{Status: http.StatusText(rw.status), StatusCode: rw.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: rw.header, Body: pr, ContentLength: -1, Request: req}
	if n := rw.header.Get("Content-Length"); n != "" {
		resp.ContentLength, _ = strconv.ParseInt(n, 10, 64)
	}
	if req.Method == http.MethodHead {
		pr.Close()
		resp.Body = http.NoBody
	}
	return resp, nil
}

// pipeWriter is the ResponseWriter of an in-process request: the headers
// are handed over at the first write, the body goes through the pipe.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	status int
	ready  chan struct{}
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	close(w.ready)
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}

var bufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// serve writes an object's contents through a pooled buffer: the mock must
// cost far less than the generator it measures.
func serve(w http.ResponseWriter, r *payload.Reader, size int64) {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	for size > 0 {
		n, _ := r.Read(buf[:min(int64(len(buf)), size)])
		if n == 0 {
			return
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return
		}
		size -= int64(n)
	}
}

// Counting is a transport that counts the payload bytes through it as they
// flow, request bodies sent and response bodies read: a rate known to the
// byte even when few requests finish.
type Counting struct {
	RT   http.RoundTripper
	sent atomic.Int64
	read atomic.Int64
}

// Bytes is what went through so far, both ways.
func (c *Counting) Bytes() int64 { return c.sent.Load() + c.read.Load() }

func (c *Counting) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req = req.Clone(req.Context())
		req.Body = countReader{req.Body, &c.sent}
	}
	resp, err := c.RT.RoundTrip(req)
	if err == nil && resp.Body != nil {
		resp.Body = countReader{resp.Body, &c.read}
	}
	return resp, err
}

type countReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (r countReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.n.Add(int64(n))
	return n, err
}
