// Package lifecycle is S3's bucket lifecycle: the configuration document
// (PutBucketLifecycleConfiguration's rules), its validation with AWS's
// errors, what a rule set says is due for a version or an upload at a
// given time, and the worker that applies it under a catalog lease.
//
// Days are counted as AWS counts them: from the object's creation (or the
// time a version became noncurrent, or an upload's initiation), the
// number of days added, rounded up to the next midnight UTC. A node can
// make a day last seconds (Ceph RGW's rgw_lc_debug_interval), so that the
// whole of lifecycle can be tested end to end with real clients.
package lifecycle

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of AWS.
const (
	MaxRules       = 1000
	MaxIDLength    = 255
	MaxTagKey      = 128
	MaxTagValue    = 256
	MaxNewerKept   = 100 // NewerNoncurrentVersions
	Enabled        = "Enabled"
	Disabled       = "Disabled"
	expirationDate = "2006-01-02T15:04:05.000Z"
)

// Error is a configuration refused as AWS refuses it: Code is AWS's
// (MalformedXML, InvalidArgument, InvalidRequest, NotImplemented).
type Error struct {
	Code, Message string
}

func (e *Error) Error() string { return "lifecycle: " + e.Code + ": " + e.Message }

func malformed(msg string) error  { return &Error{"MalformedXML", msg} }
func invalidArg(msg string) error { return &Error{"InvalidArgument", msg} }
func invalidReq(msg string) error { return &Error{"InvalidRequest", msg} }

// Configuration is a bucket's lifecycle configuration: the document of
// Put/GetBucketLifecycleConfiguration, and (as JSON) what the catalog
// keeps.
type Configuration struct {
	XMLName xml.Name `xml:"LifecycleConfiguration" json:"-"`
	NS      string   `xml:"xmlns,attr,omitempty" json:"-"`
	Rules   []Rule   `xml:"Rule" json:"rules"`
}

// Rule is one lifecycle rule.
type Rule struct {
	ID     string  `xml:"ID,omitempty" json:"id"`
	Filter *Filter `xml:"Filter,omitempty" json:"filter,omitempty"`
	// Prefix is the rule-level prefix of the first lifecycle API, which
	// AWS still accepts in place of a Filter.
	Prefix                         *string                         `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Status                         string                          `xml:"Status" json:"status"`
	Expiration                     *Expiration                     `xml:"Expiration,omitempty" json:"expiration,omitempty"`
	NoncurrentVersionExpiration    *NoncurrentVersionExpiration    `xml:"NoncurrentVersionExpiration,omitempty" json:"noncurrent,omitempty"`
	AbortIncompleteMultipartUpload *AbortIncompleteMultipartUpload `xml:"AbortIncompleteMultipartUpload,omitempty" json:"abort,omitempty"`
	// Transitions move objects to another storage class's platform
	// (transition.go).
	Transitions           []Transition                  `xml:"Transition" json:"transitions,omitempty"`
	NoncurrentTransitions []NoncurrentVersionTransition `xml:"NoncurrentVersionTransition" json:"noncurrent_transitions,omitempty"`
}

// Filter selects the objects a rule applies to; at most one of its
// fields is set (several predicates go in And).
type Filter struct {
	Prefix                *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tag                   *Tag    `xml:"Tag,omitempty" json:"tag,omitempty"`
	ObjectSizeGreaterThan *int64  `xml:"ObjectSizeGreaterThan,omitempty" json:"gt,omitempty"`
	ObjectSizeLessThan    *int64  `xml:"ObjectSizeLessThan,omitempty" json:"lt,omitempty"`
	And                   *And    `xml:"And,omitempty" json:"and,omitempty"`
}

// And is the conjunction of several predicates.
type And struct {
	Prefix                *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tags                  []Tag   `xml:"Tag" json:"tags,omitempty"`
	ObjectSizeGreaterThan *int64  `xml:"ObjectSizeGreaterThan,omitempty" json:"gt,omitempty"`
	ObjectSizeLessThan    *int64  `xml:"ObjectSizeLessThan,omitempty" json:"lt,omitempty"`
}

// Tag is an object tag a rule requires.
type Tag struct {
	Key   string `xml:"Key" json:"k"`
	Value string `xml:"Value" json:"v"`
}

// Expiration expires current versions after Days or on Date, or removes
// expired object delete markers.
type Expiration struct {
	Days                      *int  `xml:"Days,omitempty" json:"days,omitempty"`
	Date                      *Date `xml:"Date,omitempty" json:"date,omitempty"`
	ExpiredObjectDeleteMarker *bool `xml:"ExpiredObjectDeleteMarker,omitempty" json:"dm,omitempty"`
}

// NoncurrentVersionExpiration removes noncurrent versions NoncurrentDays
// after they became noncurrent, keeping the NewerNoncurrentVersions
// newest of them.
type NoncurrentVersionExpiration struct {
	NoncurrentDays          *int `xml:"NoncurrentDays,omitempty" json:"days,omitempty"`
	NewerNoncurrentVersions *int `xml:"NewerNoncurrentVersions,omitempty" json:"keep,omitempty"`
}

// AbortIncompleteMultipartUpload aborts uploads DaysAfterInitiation after
// they began.
type AbortIncompleteMultipartUpload struct {
	DaysAfterInitiation *int `xml:"DaysAfterInitiation,omitempty" json:"days,omitempty"`
}

// Date is an Expiration date: midnight UTC, written in ISO 8601.
type Date struct{ time.Time }

// dateLayouts are the forms of ISO 8601 AWS's clients send.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02"}

func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (d *Date) UnmarshalXML(dec *xml.Decoder, start xml.StartElement) error {
	var s string
	if err := dec.DecodeElement(&s, &start); err != nil {
		return err
	}
	t, ok := parseDate(s)
	if !ok {
		return invalidArg("Invalid date: " + s)
	}
	d.Time = t
	return nil
}

func (d Date) MarshalXML(enc *xml.Encoder, start xml.StartElement) error {
	return enc.EncodeElement(d.UTC().Format(expirationDate), start)
}

func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.UTC().Format(time.RFC3339)) }

func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, s)
	d.Time = t.UTC()
	return err
}

// Parse reads and validates a PutBucketLifecycleConfiguration document.
// Rules without an ID get a random one, as on AWS.
func Parse(doc []byte) (*Configuration, error) {
	var c Configuration
	if err := xml.Unmarshal(doc, &c); err != nil {
		var le *Error
		if errors.As(err, &le) {
			return nil, le
		}
		return nil, malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks a configuration as AWS does, and names the rules
// that have no ID.
func (c *Configuration) Validate() error {
	if len(c.Rules) == 0 {
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	if len(c.Rules) > MaxRules {
		return invalidReq(fmt.Sprintf("Lifecycle configuration cannot have more than %d rules", MaxRules))
	}
	ids := map[string]bool{}
	for i := range c.Rules {
		r := &c.Rules[i]
		if err := r.validate(); err != nil {
			return err
		}
		if r.ID == "" {
			r.ID = newID()
		}
		if ids[r.ID] {
			return invalidArg("Rule ID must be unique. Found same ID for more than one rule")
		}
		ids[r.ID] = true
	}
	return nil
}

func newID() string {
	var b [20]byte
	rand.Read(b[:])
	return strings.TrimRight(base32.StdEncoding.EncodeToString(b[:]), "=")
}

func (r *Rule) validate() error {
	if len(r.ID) > MaxIDLength {
		return invalidArg("ID length should not exceed allowed limit of 255")
	}
	if r.Status != Enabled && r.Status != Disabled {
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	switch {
	case r.Filter != nil && r.Prefix != nil:
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	case r.Filter == nil && r.Prefix == nil:
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	if r.Filter != nil {
		if err := r.Filter.validate(); err != nil {
			return err
		}
	}
	if r.Expiration == nil && r.NoncurrentVersionExpiration == nil && r.AbortIncompleteMultipartUpload == nil &&
		len(r.Transitions) == 0 && len(r.NoncurrentTransitions) == 0 {
		return invalidReq("At least one action needs to be specified in a rule")
	}
	tags := r.Filter != nil && (r.Filter.Tag != nil || r.Filter.And != nil && len(r.Filter.And.Tags) > 0)
	if e := r.Expiration; e != nil {
		n := 0
		for _, set := range []bool{e.Days != nil, e.Date != nil, e.ExpiredObjectDeleteMarker != nil} {
			if set {
				n++
			}
		}
		switch {
		case n == 0:
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case n > 1:
			// AWS: ExpiredObjectDeleteMarker cannot be specified with
			// Days or Date, nor Days with Date.
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case e.Days != nil && *e.Days <= 0:
			return invalidArg("'Days' for Expiration action must be a positive integer")
		case e.Date != nil && !e.Date.Equal(e.Date.Truncate(24*time.Hour)):
			return invalidArg("'Date' must be at midnight GMT")
		case e.ExpiredObjectDeleteMarker != nil && *e.ExpiredObjectDeleteMarker && tags:
			return invalidReq("ExpiredObjectDeleteMarker cannot be specified with a tag-based filter")
		}
	}
	if nv := r.NoncurrentVersionExpiration; nv != nil {
		switch {
		case nv.NoncurrentDays == nil:
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case *nv.NoncurrentDays <= 0:
			return invalidArg("'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer")
		case nv.NewerNoncurrentVersions != nil && (*nv.NewerNoncurrentVersions <= 0 || *nv.NewerNoncurrentVersions > MaxNewerKept):
			return invalidArg("'NewerNoncurrentVersions' for NoncurrentVersionExpiration action must be a positive integer up to 100")
		}
	}
	if err := r.validTransitions(); err != nil {
		return err
	}
	if a := r.AbortIncompleteMultipartUpload; a != nil {
		switch {
		case a.DaysAfterInitiation == nil:
			return malformed("The XML you provided was not well-formed or did not validate against our published schema")
		case *a.DaysAfterInitiation <= 0:
			return invalidArg("'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer")
		case tags:
			return invalidReq("AbortIncompleteMultipartUpload cannot be specified with Tags.")
		}
	}
	return nil
}

func (f *Filter) validate() error {
	n := 0
	for _, set := range []bool{f.Prefix != nil, f.Tag != nil, f.ObjectSizeGreaterThan != nil, f.ObjectSizeLessThan != nil, f.And != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		// Several predicates go in And.
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	if f.Tag != nil {
		if err := validTag(*f.Tag); err != nil {
			return err
		}
	}
	if err := validSizes(f.ObjectSizeGreaterThan, f.ObjectSizeLessThan); err != nil {
		return err
	}
	a := f.And
	if a == nil {
		return nil
	}
	if a.Prefix == nil && len(a.Tags) == 0 && a.ObjectSizeGreaterThan == nil && a.ObjectSizeLessThan == nil {
		return malformed("The XML you provided was not well-formed or did not validate against our published schema")
	}
	seen := map[string]bool{}
	for _, t := range a.Tags {
		if err := validTag(t); err != nil {
			return err
		}
		if seen[t.Key] {
			return invalidReq("Duplicate Tag Keys are not allowed.")
		}
		seen[t.Key] = true
	}
	return validSizes(a.ObjectSizeGreaterThan, a.ObjectSizeLessThan)
}

func validTag(t Tag) error {
	switch {
	case t.Key == "" || utf8.RuneCountInString(t.Key) > MaxTagKey || !utf8.ValidString(t.Key):
		return invalidReq("The TagKey you have provided is invalid")
	case utf8.RuneCountInString(t.Value) > MaxTagValue || !utf8.ValidString(t.Value):
		return invalidReq("The TagValue you have provided is invalid")
	}
	return nil
}

func validSizes(gt, lt *int64) error {
	switch {
	case gt != nil && *gt < 0:
		return invalidArg("ObjectSizeGreaterThan must be a non-negative integer")
	case lt != nil && *lt <= 0:
		return invalidArg("ObjectSizeLessThan must be a positive integer")
	case gt != nil && lt != nil && *gt >= *lt:
		return invalidArg("ObjectSizeGreaterThan must be less than ObjectSizeLessThan")
	}
	return nil
}

// Encode is the configuration as the catalog keeps it.
func (c *Configuration) Encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Decode reads what Encode wrote; "" is no configuration (nil).
func Decode(s string) (*Configuration, error) {
	if s == "" {
		return nil, nil
	}
	var c Configuration
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("lifecycle: decode: %w", err)
	}
	return &c, nil
}
