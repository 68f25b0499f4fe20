package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrMethodNotAllowed] = apiError{405, "MethodNotAllowed", "The specified method is not allowed against this resource."}
	domainErrors[objects.ErrVersioningLocked] = apiError{409, "InvalidBucketState", "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed."}
}

// versioningConfiguration is the document of Get/PutBucketVersioning. A
// bucket never versioned has no Status, as on S3.
type versioningConfiguration struct {
	XMLName   xml.Name `xml:"VersioningConfiguration"`
	NS        string   `xml:"xmlns,attr,omitempty"`
	Status    string   `xml:",omitempty"`
	MfaDelete string   `xml:",omitempty"`
}

// errMFADelete refuses MFA delete: no request here carries an MFA code.
var errMFADelete = &apiError{501, "NotImplemented", "MFA delete is not implemented"}

func getBucketVersioning(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	status, err := s.svc.GetBucketVersioning(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	writeXML(w, http.StatusOK, versioningConfiguration{NS: s3NS, Status: status})
	return nil
}

func putBucketVersioning(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var in versioningConfiguration
	if err := readXML(r, c, &in); err != nil {
		return err
	}
	switch in.MfaDelete {
	case "", "Disabled":
	case "Enabled":
		return errMFADelete
	default:
		return errMalformedXML
	}
	return s.svc.PutBucketVersioning(r.Context(), c.id, c.Bucket, in.Status)
}

// setVersionHeader says which version a response is about; none for an
// object of a bucket never versioned, whose version the service reports
// as "".
func setVersionHeader(h http.Header, o catalog.Object) {
	if o.VersionID != "" {
		h.Set("x-amz-version-id", o.VersionID)
	}
}

// setDeleteMarkerHeaders describes a delete marker that a read met or a
// delete removed or wrote.
func setDeleteMarkerHeaders(h http.Header, o catalog.Object) {
	if o.DeleteMarker {
		h.Set("x-amz-delete-marker", "true")
	}
	setVersionHeader(h, o)
}
