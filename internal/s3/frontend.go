package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/ostiumio/ostium/internal/cors"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/objects"
)

// ErrorOf returns the status, code and message the S3 endpoint answers
// err with, so that another front end of the object service (the
// console) refuses alike.
func ErrorOf(err error) (status int, code, message string) {
	e := toAPIError(lifecycleError(err))
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
	t, r := watch(w, r, s.timing)
	defer t.stop()
	h.ServeHTTP(&idleWriter{ResponseWriter: w, t: t}, s.WithOrigin(r))
}

// Secure tells whether r reached the node over HTTPS: on a TLS
// connection, or from a trusted balancer that says it ended TLS.
func (s *Server) Secure(r *http.Request) bool { return s.secure(r) }

// ParseRange reads a Range header as GetObject does: a single byte
// range, nil for what S3 ignores.
func ParseRange(v string) *objects.ByteRange { return parseRange(v) }

// Acquire takes a request slot from id's budget (nil: the anonymous
// one), as an S3 request does, so that another front end's requests
// count against the same limits; release gives it back. It fails with
// the error ErrorOf maps to 503 SlowDown when none is free.
func (s *Server) Acquire(id *iam.Identity) (release func(), err error) {
	if !s.slots.take(id, 1) {
		return nil, &errSlowDown
	}
	return func() { s.slots.give(id, 1) }, nil
}

// DecodeSetting reads a bucket setting's S3 XML document as the S3
// call that puts it does, so another front end takes S3's documents
// too. It returns, by setting: "versioning" its status (string), "tags"
// []objects.Tag, "cors" cors.Config, "ownership" the ownership (string),
// "public-access-block" iam.PublicAccessBlock, "lifecycle"
// *lifecycle.Configuration, "encryption" objects.EncryptionRule; ok is
// false for another setting.
func DecodeSetting(setting string, doc []byte) (v any, ok bool, err error) {
	// A document of the shape S3's own PUT takes (xmlShaped), so that
	// another front end cannot make the decoder hold many times it.
	unmarshal := func(v any) error {
		if xmlShaped(doc) != nil || xml.Unmarshal(doc, v) != nil {
			return errMalformedXML
		}
		return nil
	}
	switch setting {
	case "versioning":
		var in versioningConfiguration
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		switch in.MfaDelete {
		case "", "Disabled":
		case "Enabled":
			return nil, true, errMFADelete
		default:
			return nil, true, errMalformedXML
		}
		return in.Status, true, nil
	case "tags":
		var in taggingIn
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		tags, err := in.tags()
		return tags, true, err
	case "cors":
		var in corsConfiguration
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		var cfg cors.Config
		for _, rl := range in.Rules {
			cfg.Rules = append(cfg.Rules, cors.Rule{ID: rl.ID, AllowedOrigins: rl.AllowedOrigin, AllowedMethods: rl.AllowedMethod,
				AllowedHeaders: rl.AllowedHeader, ExposeHeaders: rl.ExposeHeader, MaxAgeSeconds: rl.MaxAgeSeconds})
		}
		return cfg, true, nil
	case "ownership":
		var in ownershipControls
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		if len(in.Rules) != 1 || in.Rules[0].ObjectOwnership == "" {
			return nil, true, objects.ErrMalformedXML
		}
		return in.Rules[0].ObjectOwnership, true, nil
	case "public-access-block":
		var in publicAccessBlock
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		return iam.PublicAccessBlock{BlockPublicACLs: in.BlockPublicAcls, IgnorePublicACLs: in.IgnorePublicAcls,
			BlockPublicPolicy: in.BlockPublicPolicy, RestrictPublicBuckets: in.RestrictPublicBuckets}, true, nil
	case "lifecycle":
		if err := xmlShaped(doc); err != nil {
			return nil, true, err
		}
		c, err := lifecycle.Parse(doc)
		return c, true, err
	case "encryption":
		var in sseConfiguration
		if err := unmarshal(&in); err != nil {
			return nil, true, err
		}
		r, err := in.rule()
		return r, true, err
	}
	return nil, false, nil
}

// ValidACL checks the grants of an ACL stated in a document as
// PutBucketAcl checks its body: known grantee types and permissions,
// known groups, an id for a user.
func ValidACL(spec iam.ACLSpec) error {
	for _, g := range spec.Grants {
		if !iam.ValidPermission(g.Permission) {
			return errMalformedACL
		}
		switch g.Type {
		case iam.GranteeUser, iam.GranteeGroup, iam.GranteeEmail:
		default:
			return errMalformedACL
		}
	}
	return validGrants(spec.Grants)
}
