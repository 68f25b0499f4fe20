package s3

import (
	"maps"
	"net/http"
	"slices"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// queryAPI hands a call of another AWS service served on this endpoint
// (IAM, STS), a form POSTed to "/" in AWS's query protocol, to that
// service's handler, with the caller's identity in its context. The
// service is the one the request was signed for, so a signature made for
// S3 never reaches IAM. An unsigned call goes to STS, whose web identity
// and directory sign-ins carry their own proof, and which refuses every
// other unsigned action.
func queryAPI(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	name := "sts"
	if c.auth != nil {
		name = c.auth.Service
	}
	h := s.services[name]
	if h == nil || name == "s3" {
		return errMethodNotAllowed
	}
	r.Body = http.MaxBytesReader(w, r.Body, sigv4.MaxFormBody)
	h.ServeHTTP(w, r.WithContext(iam.WithIdentity(r.Context(), c.id)))
	return nil
}

// Serve serves another AWS service on the endpoint: calls signed for
// service (iam, sts) go to h, in the query protocol (see queryAPI). It is
// called while the node is set up, before the endpoint takes requests.
func (s *Server) Serve(service string, h http.Handler) {
	if s.services == nil {
		s.services = map[string]http.Handler{}
	}
	s.services[service] = h
	s.serviceNames = slices.Sorted(maps.Keys(s.services))
}
