package s3

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/cors"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrNoSuchCORSConfiguration] = apiError{404, "NoSuchCORSConfiguration", "The CORS configuration does not exist"}
	logOperations[OpGetBucketCors] = "REST.GET.CORS"
	logOperations[OpPutBucketCors] = "REST.PUT.CORS"
	logOperations[OpDeleteBucketCors] = "REST.DELETE.CORS"
	logOperations[OpOptionsPreflight] = "REST.OPTIONS.PREFLIGHT"
}

// maxCORSBody is AWS's cap on a CORS configuration.
const maxCORSBody = 64 << 10

// corsConfiguration is the document of Get/PutBucketCors.
type corsConfiguration struct {
	XMLName xml.Name   `xml:"CORSConfiguration"`
	NS      string     `xml:"xmlns,attr,omitempty"`
	Rules   []corsRule `xml:"CORSRule"`
}

type corsRule struct {
	ID            string   `xml:"ID,omitempty"`
	AllowedHeader []string `xml:"AllowedHeader"`
	AllowedMethod []string `xml:"AllowedMethod"`
	AllowedOrigin []string `xml:"AllowedOrigin"`
	ExposeHeader  []string `xml:"ExposeHeader"`
	MaxAgeSeconds *int     `xml:"MaxAgeSeconds,omitempty"`
}

// errMissingMD5 is AWS's answer to a PutBucketCors that carries neither
// Content-MD5 nor a checksum of its body: the operation requires one.
var errMissingMD5 = &apiError{400, "InvalidRequest", "Missing required header for this request: Content-MD5"}

// digestSent reports whether a request declares a digest of its body:
// Content-MD5, an x-amz-checksum-* header, or one announced as a trailer
// (what the SDKs send today in place of Content-MD5).
func digestSent(r *http.Request) bool {
	if r.Header.Get("Content-MD5") != "" {
		return true
	}
	for _, a := range objects.ChecksumAlgorithms() {
		if r.Header.Get("x-amz-checksum-"+strings.ToLower(a)) != "" {
			return true
		}
	}
	return strings.Contains(strings.ToLower(r.Header.Get("x-amz-trailer")), "x-amz-checksum-")
}

func getBucketCors(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	cfg, err := s.svc.GetBucketCors(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := corsConfiguration{NS: s3NS}
	for _, rl := range cfg.Rules {
		out.Rules = append(out.Rules, corsRule{ID: rl.ID, AllowedHeader: rl.AllowedHeaders, AllowedMethod: rl.AllowedMethods,
			AllowedOrigin: rl.AllowedOrigins, ExposeHeader: rl.ExposeHeaders, MaxAgeSeconds: rl.MaxAgeSeconds})
	}
	writeXML(w, http.StatusOK, out)
	return nil
}

func putBucketCors(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if !digestSent(r) {
		return errMissingMD5
	}
	var doc corsConfiguration
	if err := readXML(r, c, &doc); err != nil {
		return err
	}
	var cfg cors.Config
	for _, rl := range doc.Rules {
		cfg.Rules = append(cfg.Rules, cors.Rule{ID: rl.ID, AllowedOrigins: rl.AllowedOrigin, AllowedMethods: rl.AllowedMethod,
			AllowedHeaders: rl.AllowedHeader, ExposeHeaders: rl.ExposeHeader, MaxAgeSeconds: rl.MaxAgeSeconds})
	}
	return s.svc.PutBucketCors(r.Context(), c.id, c.Bucket, cfg)
}

func deleteBucketCors(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	if err := s.svc.DeleteBucketCors(r.Context(), c.id, c.Bucket); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// corsError is a refused preflight: S3's error document then names the
// method asked for and whether the rules of a bucket or an object were
// looked at.
type corsError struct {
	e                    apiError
	method, resourceType string
}

func (e *corsError) Error() string { return e.e.Error() }
func (e *corsError) Unwrap() error { return &e.e }

// corsDetails returns the Method and ResourceType of a refused preflight's
// error document ("" for other errors).
func corsDetails(err error) (method, resourceType string) {
	var ce *corsError
	if errors.As(err, &ce) {
		return ce.method, ce.resourceType
	}
	return "", ""
}

const corsNotAllowed = "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec."

// preflight answers a browser's OPTIONS request by the bucket's rules, as
// AWS: unsigned (the server chain neither authenticates it nor reads its
// body), from the cached bucket. The errors and their order are AWS's as
// recorded against it: no Origin is 400; a missing bucket, or one
// without rules, 403 before the method is looked at; then no
// Access-Control-Request-Method is 400, and no matching rule 403.
func preflight(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return &apiError{400, "BadRequest", "Insufficient information. Origin request header needed."}
	}
	method := r.Header.Get("Access-Control-Request-Method")
	asked := method
	if asked == "" {
		asked = http.MethodOptions
	}
	forbidden := func(msg, resourceType string) error {
		return &corsError{apiError{403, "AccessForbidden", msg}, asked, resourceType}
	}
	cfg, err := s.svc.BucketCORS(r.Context(), c.Bucket)
	switch {
	case errors.Is(err, objects.ErrNoSuchBucket):
		return forbidden("CORSResponse: Bucket not found", "BUCKET")
	case err != nil:
		return err
	case cfg == nil:
		return forbidden("CORSResponse: CORS is not enabled for this bucket.", "BUCKET")
	case method == "":
		return &apiError{400, "BadRequest", "Invalid Access-Control-Request-Method: null"}
	}
	req := cors.Request{Origin: origin, Method: method, Headers: cors.ParseHeaderList(r.Header.Get("Access-Control-Request-Headers"))}
	rule, ok := cfg.Match(req)
	if !ok {
		resourceType := "BUCKET"
		if c.Key != "" {
			resourceType = "OBJECT"
		}
		return forbidden(corsNotAllowed, resourceType)
	}
	rule.SetHeaders(w.Header(), req)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// corsHeaders adds the Access-Control-* headers of the first rule that
// matches a request from a browser (one with an Origin header) to its
// answer, whatever it turns out to be, errors included, as AWS. The
// method matched is the request's own, or the Access-Control-Request-Method
// it carries (AWS matches by that header when present), and any
// Access-Control-Request-Headers must be allowed too. A request that
// matches no rule is answered without CORS headers, not refused: the
// browser refuses it.
//
// Before the request has a slot (cachedOnly), only a bucket the node has
// cached is looked at, so that unauthenticated requests cannot make the
// node read its catalog outside their budget; dispatch looks again, with
// the catalog, once the request holds its slot.
func (s *Server) corsHeaders(w http.ResponseWriter, r *http.Request, c *call, cachedOnly bool) {
	origin := r.Header.Get("Origin")
	if c.corsDone || origin == "" || c.Bucket == "" || c.Op == OpOptionsPreflight {
		return
	}
	var cfg *cors.Config
	if cachedOnly {
		var ok bool
		if cfg, ok = s.svc.CachedBucketCORS(c.Bucket); !ok {
			return
		}
	} else {
		var err error
		if cfg, err = s.svc.BucketCORS(r.Context(), c.Bucket); err != nil {
			cfg = nil
		}
	}
	c.corsDone = true
	if cfg == nil {
		return
	}
	method := r.Header.Get("Access-Control-Request-Method")
	if method == "" {
		method = r.Method
	}
	req := cors.Request{Origin: origin, Method: method, Headers: cors.ParseHeaderList(r.Header.Get("Access-Control-Request-Headers"))}
	if rule, ok := cfg.Match(req); ok {
		rule.SetHeaders(w.Header(), req)
	}
}
