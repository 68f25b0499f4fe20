package s3

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrNoSuchLifecycleConfiguration] = apiError{404, "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist"}
}

// errLifecycleDigest is AWS's answer to a PutBucketLifecycleConfiguration
// sent with neither Content-MD5 nor a checksum, which it requires.
var errLifecycleDigest = &apiError{400, "InvalidRequest", "Missing required header for this request: Content-MD5"}

// transitionMinimum is the x-amz-transition-default-minimum-object-size
// AWS answers with by default, and what transitions here keep to:
// objects under 128 KiB move only when a rule's filter says by size
// (lifecycle.TransitionMinSize).
const transitionMinimum = "all_storage_classes_128K"

// lifecycleError is a refused configuration as AWS answers it.
func lifecycleError(err error) error {
	var le *lifecycle.Error
	if !errors.As(err, &le) {
		return err
	}
	status := http.StatusBadRequest
	if le.Code == "NotImplemented" {
		status = http.StatusNotImplemented
	}
	return &apiError{status, le.Code, le.Message}
}

func getBucketLifecycle(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	cfg, err := s.svc.GetBucketLifecycle(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := *cfg
	out.NS = s3NS
	w.Header().Set("x-amz-transition-default-minimum-object-size", transitionMinimum)
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketLifecycle(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if !hasDigest(r, c) {
		return errLifecycleDigest
	}
	doc, err := readBody(r, c)
	if err != nil {
		return err
	}
	if err := xmlShaped(doc); err != nil {
		return err
	}
	cfg, err := lifecycle.Parse(doc)
	if err != nil {
		return lifecycleError(err)
	}
	if err := s.svc.PutBucketLifecycle(r.Context(), c.id, c.Bucket, cfg); err != nil {
		return lifecycleError(err)
	}
	w.Header().Set("x-amz-transition-default-minimum-object-size", transitionMinimum)
	w.WriteHeader(http.StatusOK)
	return nil
}

func deleteBucketLifecycle(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketLifecycle(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// hasDigest tells whether a request carries Content-MD5 or a checksum
// of its body, in a header or announced as a trailer.
func hasDigest(r *http.Request, c *call) bool {
	if r.Header.Get("Content-MD5") != "" {
		return true
	}
	for _, algo := range objects.ChecksumAlgorithms() {
		if r.Header.Get("x-amz-checksum-"+strings.ToLower(algo)) != "" {
			return true
		}
	}
	return strings.Contains(strings.ToLower(r.Header.Get("X-Amz-Trailer")), "x-amz-checksum-")
}

// setExpiration sends x-amz-expiration for a current version its
// bucket's lifecycle rules will expire, as AWS does on PUT, GET and HEAD.
func (s *Server) setExpiration(ctx context.Context, h http.Header, o catalog.Object) {
	if v := s.svc.Expiration(ctx, o); v != "" {
		h.Set("x-amz-expiration", v)
	}
}
