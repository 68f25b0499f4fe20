package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/ostiumio/ostium/internal/iam"
)

// accessControlPolicy is the document of Get/Put Bucket/Object Acl.
type accessControlPolicy struct {
	XMLName xml.Name   `xml:"AccessControlPolicy"`
	NS      string     `xml:"xmlns,attr,omitempty"`
	Owner   *owner     `xml:",omitempty"`
	Grants  []aclGrant `xml:"AccessControlList>Grant"`
}

type aclGrant struct {
	Grantee    aclGrantee
	Permission string
}

// aclGrantee is written with its xsi:type; reading matches the attribute
// by its local name, whatever prefix the client bound.
type aclGrantee struct {
	XSI          string `xml:"xmlns:xsi,attr,omitempty"`
	Type         string `xml:"xsi:type,attr"`
	ID           string `xml:",omitempty"`
	DisplayName  string `xml:",omitempty"`
	URI          string `xml:",omitempty"`
	EmailAddress string `xml:",omitempty"`
}

type aclGranteeIn struct {
	Type         string `xml:"type,attr"`
	ID           string
	URI          string
	EmailAddress string
}

const xsiNS = "http://www.w3.org/2001/XMLSchema-instance"

// grantHeaders are the x-amz-grant-* headers and the permission each gives.
var grantHeaders = [...]struct{ header, perm string }{
	{"x-amz-grant-read", iam.PermRead},
	{"x-amz-grant-write", iam.PermWrite},
	{"x-amz-grant-read-acp", iam.PermReadACP},
	{"x-amz-grant-write-acp", iam.PermWriteACP},
	{"x-amz-grant-full-control", iam.PermFullControl},
}

var (
	errMalformedACL  = &apiError{400, "MalformedACLError", "The XML you provided was not well-formed or did not validate against our published schema"}
	errCannedAndGrnt = &apiError{400, "InvalidRequest", "Specifying both Canned ACLs and Header Grants is not allowed"}
	errMissingACL    = &apiError{400, "MissingSecurityHeader", "Your request was missing a required header"}
)

// aclHeaders reads the ACL a request states in its headers: x-amz-acl
// or x-amz-grant-*, not both.
func aclHeaders(r *http.Request) (iam.ACLSpec, error) {
	spec := iam.ACLSpec{Canned: r.Header.Get("x-amz-acl")}
	for _, h := range grantHeaders {
		v := r.Header.Get(h.header)
		if v == "" {
			continue
		}
		gs, err := iam.ParseGrantHeader(v, h.perm)
		if err != nil {
			return spec, &apiError{400, "InvalidArgument", err.Error()}
		}
		spec.Grants = append(spec.Grants, gs...)
		if spec.Grants == nil {
			spec.Grants = []iam.Grant{}
		}
	}
	if spec.Canned != "" && spec.Grants != nil {
		return spec, errCannedAndGrnt
	}
	return spec, validGrants(spec.Grants)
}

// validGrants refuses grants to groups S3 does not know.
func validGrants(gs []iam.Grant) error {
	for _, g := range gs {
		switch {
		case g.Type == iam.GranteeGroup && g.URI != iam.AllUsers && g.URI != iam.AuthenticatedUsers && g.URI != iam.LogDelivery:
			return &apiError{400, "InvalidArgument", "Invalid group uri"}
		case g.Type == iam.GranteeUser && g.ID == "":
			return &apiError{400, "InvalidArgument", "Invalid id"}
		}
	}
	return nil
}

// aclRequest reads the ACL a PutBucketAcl or PutObjectAcl sets: from the
// headers if they state one, else from the body.
func aclRequest(r *http.Request, c *call) (iam.ACLSpec, error) {
	spec, err := aclHeaders(r)
	if err != nil || spec.Stated() {
		return spec, err
	}
	if r.ContentLength == 0 {
		return spec, errMissingACL
	}
	var doc struct {
		Grants []struct {
			Grantee    aclGranteeIn
			Permission string
		} `xml:"AccessControlList>Grant"`
	}
	if err := readXML(r, c, &doc); err != nil {
		if err == errMalformedXML {
			return spec, errMalformedACL
		}
		return spec, err
	}
	spec.Grants = []iam.Grant{}
	for _, g := range doc.Grants {
		if !iam.ValidPermission(g.Permission) {
			return spec, errMalformedACL
		}
		grant := iam.Grant{Type: g.Grantee.Type, ID: g.Grantee.ID, URI: g.Grantee.URI, Email: g.Grantee.EmailAddress, Permission: g.Permission}
		switch g.Grantee.Type {
		case iam.GranteeUser, iam.GranteeGroup, iam.GranteeEmail:
		default:
			return spec, errMalformedACL
		}
		spec.Grants = append(spec.Grants, grant)
	}
	return spec, validGrants(spec.Grants)
}

func writeACL(w http.ResponseWriter, acl iam.ACL) {
	out := accessControlPolicy{NS: s3NS, Owner: ownerOf(acl.Owner), Grants: []aclGrant{}}
	for _, g := range acl.Grants {
		ge := aclGrantee{XSI: xsiNS, Type: g.Type, ID: g.ID, URI: g.URI}
		if g.Type == iam.GranteeUser {
			ge.DisplayName = ownerOf(g.ID).DisplayName
		}
		out.Grants = append(out.Grants, aclGrant{ge, g.Permission})
	}
	writeXML(w, http.StatusOK, out)
}

func getBucketACL(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	acl, err := s.svc.GetBucketACL(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	writeACL(w, acl)
	return nil
}

func putBucketACL(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	spec, err := aclRequest(r, c)
	if err != nil {
		return err
	}
	return s.svc.PutBucketACL(r.Context(), c.id, c.Bucket, spec)
}

func getObjectACL(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	acl, err := s.svc.GetObjectACL(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"))
	if err != nil {
		return err
	}
	writeACL(w, acl)
	return nil
}

func putObjectACL(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	spec, err := aclRequest(r, c)
	if err != nil {
		return err
	}
	return s.svc.PutObjectACL(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"), spec)
}
