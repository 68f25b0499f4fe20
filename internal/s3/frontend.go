package s3

import (
	"net/http"

	"github.com/ostiumio/ostium/internal/objects"
)

// ErrorOf returns the status, code and message the S3 endpoint answers
// err with, so that another front end of the object service (the
// console) refuses alike.
func ErrorOf(err error) (status int, code, message string) {
	e := toAPIError(err)
	return e.Status, e.Code, e.Message
}

// Timed serves h under the S3 endpoint's timeouts (each body byte read
// or response byte written moves the idle deadline; a request making no
// progress for the request timeout is cancelled), with the client's
// origin in the request's context: what another front end on the
// listener (the console) needs to stream objects as S3 does. A body read
// cut by the idle timeout fails with an error ErrorOf maps to 400
// RequestTimeout.
func (s *Server) Timed(w http.ResponseWriter, r *http.Request, h http.Handler) {
	t, r := watch(w, r, s.idle, s.limit)
	defer t.stop()
	h.ServeHTTP(&idleWriter{ResponseWriter: w, t: t}, s.WithOrigin(r))
}

// ParseRange reads a Range header as GetObject does: a single byte
// range, nil for what S3 ignores.
func ParseRange(v string) *objects.ByteRange { return parseRange(v) }
