package s3

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/objectlock"
	"github.com/ostiumio/ostium/internal/objects"
)

func init() {
	domainErrors[objects.ErrNoObjectLockConfiguration] = apiError{404, "ObjectLockConfigurationNotFoundError", "Object Lock configuration does not exist for this bucket"}
	domainErrors[objects.ErrNoSuchObjectLock] = apiError{404, "NoSuchObjectLockConfiguration", "The specified object does not have a ObjectLock configuration"}
	domainErrors[objects.ErrInvalidBucketState] = apiError{409, "InvalidBucketState", "The request is not valid with the current state of the bucket."}
	domainErrors[objects.ErrInvalidRetentionPeriod] = apiError{400, "InvalidRetentionPeriod", "Default retention period must be a positive integer value."}
}

// objectLockConfiguration is the document of Get/PutObjectLockConfiguration.
type objectLockConfiguration struct {
	XMLName           xml.Name  `xml:"ObjectLockConfiguration"`
	NS                string    `xml:"xmlns,attr,omitempty"`
	ObjectLockEnabled string    `xml:",omitempty"`
	Rule              *lockRule `xml:",omitempty"`
}

type lockRule struct {
	DefaultRetention *defaultRetention
}

type defaultRetention struct {
	Mode  string `xml:",omitempty"`
	Days  *int   `xml:",omitempty"`
	Years *int   `xml:",omitempty"`
}

// retentionDoc is the document of Get/PutObjectRetention.
type retentionDoc struct {
	XMLName         xml.Name `xml:"Retention"`
	NS              string   `xml:"xmlns,attr,omitempty"`
	Mode            string   `xml:",omitempty"`
	RetainUntilDate string   `xml:",omitempty"`
}

// legalHoldDoc is the document of Get/PutObjectLegalHold.
type legalHoldDoc struct {
	XMLName xml.Name `xml:"LegalHold"`
	NS      string   `xml:"xmlns,attr,omitempty"`
	Status  string
}

// errIntegrityRequired is AWS's answer to an object lock write that
// carries neither Content-MD5 nor a checksum of its body.
var errIntegrityRequired = &apiError{400, "InvalidRequest", "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters"}

// hasIntegrity reports whether a request carries a digest of its body:
// Content-MD5, an x-amz-checksum-* header, or one announced in a
// trailer (checked as the body is read).
func hasIntegrity(r *http.Request) bool {
	if r.Header.Get("Content-MD5") != "" {
		return true
	}
	for k := range r.Header {
		if strings.HasPrefix(strings.ToLower(k), "x-amz-checksum-") && !strings.EqualFold(k, "x-amz-checksum-mode") &&
			!strings.EqualFold(k, "x-amz-checksum-algorithm") && !strings.EqualFold(k, "x-amz-checksum-type") {
			return true
		}
	}
	return strings.Contains(strings.ToLower(r.Header.Get("X-Amz-Trailer")), "x-amz-checksum-")
}

// bypassGovernance reads x-amz-bypass-governance-retention.
func bypassGovernance(r *http.Request) bool {
	v, _ := strconv.ParseBool(strings.TrimSpace(r.Header.Get("x-amz-bypass-governance-retention")))
	return v
}

// lockRequest reads the x-amz-object-lock-* headers of a write (nil: none).
func lockRequest(h http.Header) (*objects.LockRequest, error) {
	mode, date, hold := h.Get("x-amz-object-lock-mode"), h.Get("x-amz-object-lock-retain-until-date"), h.Get("x-amz-object-lock-legal-hold")
	if mode == "" && date == "" && hold == "" {
		return nil, nil
	}
	var lr objects.LockRequest
	if mode != "" {
		m, ok := objectlock.ParseMode(mode)
		if !ok {
			return nil, &apiError{400, "InvalidArgument", "Unknown wormMode directive."}
		}
		lr.Mode = m
	}
	if date != "" {
		t, err := objectlock.ParseDate(date)
		if err != nil {
			return nil, &apiError{400, "InvalidArgument", "The retain until date must be provided in ISO 8601 format"}
		}
		lr.Until = t
	}
	if (mode == "") != (date == "") {
		return nil, &apiError{400, "InvalidArgument", "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied"}
	}
	if hold != "" {
		on, err := objectlock.ParseLegalHold(hold)
		if err != nil {
			return nil, &apiError{400, "InvalidArgument", "Legal Hold must be either of 'ON' or 'OFF'"}
		}
		lr.LegalHold = &on
	}
	return &lr, nil
}

// setLockHeaders answers a version's lock on GET and HEAD, as AWS.
func setLockHeaders(h http.Header, l objectlock.Lock) {
	if l.Mode != "" {
		h.Set("x-amz-object-lock-mode", string(l.Mode))
		h.Set("x-amz-object-lock-retain-until-date", objectlock.FormatDate(l.RetainUntil))
	}
	if l.LegalHold {
		h.Set("x-amz-object-lock-legal-hold", "ON")
	}
}

// readLockDocument reads an object lock document, which AWS accepts
// only with a digest of it.
func readLockDocument(r *http.Request, c *call, v any) error {
	if !hasIntegrity(r) {
		return &apiError{400, "InvalidRequest", "Content-MD5 OR x-amz-checksum- HTTP header is required for this request"}
	}
	return readXML(r, c, v)
}

func getObjectLockConfiguration(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	conf, err := s.svc.GetObjectLockConfiguration(r.Context(), c.id, c.Bucket)
	if err != nil {
		return err
	}
	out := objectLockConfiguration{NS: s3NS, ObjectLockEnabled: "Enabled"}
	if conf.HasDefault() {
		d := &defaultRetention{Mode: string(conf.DefaultMode)}
		if conf.Years > 0 {
			d.Years = &conf.Years
		} else {
			d.Days = &conf.Days
		}
		out.Rule = &lockRule{DefaultRetention: d}
	}
	writeXML(w, http.StatusOK, out)
	return nil
}

func putObjectLockConfiguration(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var doc objectLockConfiguration
	if err := readLockDocument(r, c, &doc); err != nil {
		return err
	}
	if doc.ObjectLockEnabled != "Enabled" {
		return errMalformedXML
	}
	conf := objectlock.Config{Enabled: true}
	if doc.Rule != nil {
		d := doc.Rule.DefaultRetention
		if d == nil || d.Mode == "" || (d.Days == nil) == (d.Years == nil) {
			return errMalformedXML
		}
		// As AWS: a mode other than the two it spells is not in its
		// schema (MalformedXML); a period that is not positive is the
		// service's InvalidRetentionPeriod.
		mode, ok := objectlock.ParseMode(d.Mode)
		if !ok {
			return errMalformedXML
		}
		conf.DefaultMode = mode
		if d.Days != nil {
			conf.Days = *d.Days
			if conf.Days == 0 {
				conf.Days = -1 // present and not positive
			}
		} else {
			conf.Years = *d.Years
			if conf.Years == 0 {
				conf.Years = -1
			}
		}
	}
	if err := s.svc.PutObjectLockConfiguration(r.Context(), c.id, c.Bucket, conf); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func getObjectRetention(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	ret, err := s.svc.GetObjectRetention(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"))
	if err != nil {
		return err
	}
	writeXML(w, http.StatusOK, retentionDoc{NS: s3NS, Mode: string(ret.Mode), RetainUntilDate: objectlock.FormatDate(ret.Until)})
	return nil
}

func putObjectRetention(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var doc retentionDoc
	if err := readLockDocument(r, c, &doc); err != nil {
		return err
	}
	var ret objectlock.Retention
	if doc.Mode != "" {
		m, ok := objectlock.ParseMode(doc.Mode)
		if !ok {
			return errMalformedXML
		}
		ret.Mode = m
	}
	if doc.RetainUntilDate != "" {
		t, err := objectlock.ParseDate(doc.RetainUntilDate)
		if err != nil {
			return &apiError{400, "InvalidArgument", "The retain until date must be provided in ISO 8601 format"}
		}
		ret.Until = t
	}
	if err := s.svc.PutObjectRetention(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"), ret, bypassGovernance(r)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func getObjectLegalHold(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	on, err := s.svc.GetObjectLegalHold(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"))
	if err != nil {
		return err
	}
	writeXML(w, http.StatusOK, legalHoldDoc{NS: s3NS, Status: objectlock.LegalHoldStatus(on)})
	return nil
}

func putObjectLegalHold(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
	var doc legalHoldDoc
	if err := readLockDocument(r, c, &doc); err != nil {
		return err
	}
	on, err := objectlock.ParseLegalHold(doc.Status)
	if err != nil {
		return errMalformedXML
	}
	if err := s.svc.PutObjectLegalHold(r.Context(), c.id, c.Bucket, c.Key, c.Query.Get("versionId"), on); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
