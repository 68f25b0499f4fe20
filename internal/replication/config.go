// Package replication is S3's bucket replication: the configuration
// document (PutBucketReplication's rules) and its validation with AWS's
// errors, which rule a version matches, the events the write path queues
// for it (an objects.Observer), and the leased worker that delivers them
// to a bucket of the same Ostium or to a registered remote S3 endpoint.
package replication

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits and values of AWS.
const (
	MaxRules    = 1000
	MaxIDLength = 255
	MaxTagKey   = 128
	MaxTagValue = 256
	MaxRoleLen  = 2048
	Enabled     = "Enabled"
	Disabled    = "Disabled"
)

// Sink is the outbox consumer replication's events are for.
const Sink = "replication"

// Replication statuses, as x-amz-replication-status reports them.
const (
	StatusPending   = "PENDING"
	StatusCompleted = "COMPLETED"
	StatusFailed    = "FAILED"
	StatusReplica   = "REPLICA"
)

// MetaSourceVersion is the user metadata a replica written through S3
// (at a remote endpoint) carries: the source's version id, by which a
// delivery repeated after a crash, or a later change of the source's
// metadata, finds the replica.
const MetaSourceVersion = "ostium-replica-of"

// IsReplica tells, from a version's replication status and user
// metadata, a replica: written by replication here (REPLICA), or by
// another Ostium site's replication through S3, which marks it with the
// version it copies. A replica is never replicated again; only changes
// of its metadata may go back, by replica modification sync.
func IsReplica(status string, user map[string]string) bool {
	return status == StatusReplica || user[MetaSourceVersion] != ""
}

// Error is a configuration refused as AWS refuses it: Code is AWS's
// (MalformedXML, InvalidArgument, InvalidRequest).
type Error struct {
	Code, Message string
}

func (e *Error) Error() string { return "replication: " + e.Code + ": " + e.Message }

func malformed() error            { return &Error{"MalformedXML", malformedMsg} }
func invalidArg(msg string) error { return &Error{"InvalidArgument", msg} }
func invalidReq(msg string) error { return &Error{"InvalidRequest", msg} }

const malformedMsg = "The XML you provided was not well-formed or did not validate against our published schema"

// Configuration is a bucket's replication configuration: the document of
// Put/GetBucketReplication and (as JSON) what the catalog keeps, with
// the principal that wrote it, whose rights every delivery to a bucket
// of this Ostium is checked against.
type Configuration struct {
	XMLName xml.Name `xml:"ReplicationConfiguration" json:"-"`
	NS      string   `xml:"xmlns,attr,omitempty" json:"-"`
	// Role is kept as given: Ostium has no IAM roles to assume; the
	// writer's own rights stand in for it (Writer).
	Role  string `xml:"Role" json:"role"`
	Rules []Rule `xml:"Rule" json:"rules"`
	// Writer is who put the configuration; never in the document.
	Writer Writer `xml:"-" json:"writer"`
}

// Writer names the principal that put a configuration: deliveries to a
// bucket of this Ostium are authorized as it, at PUT time and again at
// each delivery.
type Writer struct {
	Tenant      string `json:"tenant,omitempty"`
	User        string `json:"user,omitempty"`
	CanonicalID string `json:"id,omitempty"`
	Root        bool   `json:"root,omitempty"`
	// App is an application credential's limits, which stay with it.
	App *AppLimits `json:"app,omitempty"`
}

// AppLimits are an application credential's (iam.AppLimits).
type AppLimits struct {
	Buckets  []string `json:"buckets,omitempty"`
	ReadOnly bool     `json:"readOnly,omitempty"`
}

// Rule is one replication rule.
type Rule struct {
	ID       string `xml:"ID,omitempty" json:"id"`
	Priority *int   `xml:"Priority,omitempty" json:"priority,omitempty"`
	Status   string `xml:"Status" json:"status"`
	// Prefix is the rule-level prefix of the first schema (V1), which
	// AWS still accepts in place of a Filter.
	Prefix                    *string                  `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Filter                    *Filter                  `xml:"Filter,omitempty" json:"filter,omitempty"`
	Destination               *Destination             `xml:"Destination" json:"destination"`
	DeleteMarkerReplication   *StatusElem              `xml:"DeleteMarkerReplication,omitempty" json:"deleteMarkers,omitempty"`
	ExistingObjectReplication *StatusElem              `xml:"ExistingObjectReplication,omitempty" json:"existing,omitempty"`
	SourceSelectionCriteria   *SourceSelectionCriteria `xml:"SourceSelectionCriteria,omitempty" json:"selection,omitempty"`
}

// StatusElem is an element holding only a Status.
type StatusElem struct {
	Status string `xml:"Status" json:"status"`
}

func (s *StatusElem) enabled() bool { return s != nil && s.Status == Enabled }

// SourceSelectionCriteria selects versions beyond the filter.
type SourceSelectionCriteria struct {
	ReplicaModifications   *StatusElem `xml:"ReplicaModifications,omitempty" json:"replicaModifications,omitempty"`
	SseKmsEncryptedObjects *StatusElem `xml:"SseKmsEncryptedObjects,omitempty" json:"sseKms,omitempty"`
}

// Filter selects the versions a rule applies to; at most one of its
// fields is set (several predicates go in And).
type Filter struct {
	Prefix *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tag    *Tag    `xml:"Tag,omitempty" json:"tag,omitempty"`
	And    *And    `xml:"And,omitempty" json:"and,omitempty"`
}

// And is a conjunction of a prefix and tags.
type And struct {
	Prefix *string `xml:"Prefix,omitempty" json:"prefix,omitempty"`
	Tags   []Tag   `xml:"Tag" json:"tags,omitempty"`
}

// Tag is an object tag a filter asks for.
type Tag struct {
	Key   string `xml:"Key" json:"key"`
	Value string `xml:"Value" json:"value"`
}

// Destination is where a rule's versions go.
type Destination struct {
	// Bucket is arn:aws:s3:::NAME for a bucket of this Ostium, or
	// arn:ostium:replication::TARGET:NAME for bucket NAME of the remote
	// endpoint registered as TARGET.
	Bucket                   string                    `xml:"Bucket" json:"bucket"`
	Account                  string                    `xml:"Account,omitempty" json:"account,omitempty"`
	StorageClass             string                    `xml:"StorageClass,omitempty" json:"storageClass,omitempty"`
	AccessControlTranslation *AccessControlTranslation `xml:"AccessControlTranslation,omitempty" json:"act,omitempty"`
	EncryptionConfiguration  *EncryptionConfiguration  `xml:"EncryptionConfiguration,omitempty" json:"encryption,omitempty"`
	// ReplicationTime and Metrics (S3 RTC) are read only to be refused:
	// no time is guaranteed here.
	ReplicationTime *struct{} `xml:"ReplicationTime" json:"-"`
	Metrics         *struct{} `xml:"Metrics" json:"-"`
}

// AccessControlTranslation gives the replicas to the destination's owner.
type AccessControlTranslation struct {
	Owner string `xml:"Owner" json:"owner"`
}

// EncryptionConfiguration names the KMS key replicas are sealed with.
type EncryptionConfiguration struct {
	ReplicaKmsKeyID string `xml:"ReplicaKmsKeyID,omitempty" json:"kmsKey,omitempty"`
}

// StorageClasses AWS accepts for a destination.
var StorageClasses = []string{"STANDARD", "REDUCED_REDUNDANCY", "STANDARD_IA", "ONEZONE_IA",
	"INTELLIGENT_TIERING", "GLACIER", "DEEP_ARCHIVE", "OUTPOSTS", "GLACIER_IR"}

// Parse reads and validates a PutBucketReplication document.
func Parse(doc []byte) (*Configuration, error) {
	var c Configuration
	if err := xml.Unmarshal(doc, &c); err != nil {
		return nil, malformed()
	}
	if c.XMLName.Local != "ReplicationConfiguration" {
		return nil, malformed()
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks a configuration as AWS does, with its codes.
func (c *Configuration) Validate() error {
	if c.Role == "" || len(c.Role) > MaxRoleLen {
		return malformed()
	}
	if len(c.Rules) == 0 || len(c.Rules) > MaxRules {
		return malformed()
	}
	ids := map[string]bool{}
	priorities := map[int]bool{}
	v2 := false
	for i := range c.Rules {
		if c.Rules[i].v2() {
			v2 = true
		}
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		if err := r.validate(v2); err != nil {
			return err
		}
		if r.ID != "" {
			if ids[r.ID] {
				return invalidArg("Rule Id must be unique")
			}
			ids[r.ID] = true
		}
		if r.Priority != nil {
			if priorities[*r.Priority] {
				return invalidReq(fmt.Sprintf("Found duplicate priority %d", *r.Priority))
			}
			priorities[*r.Priority] = true
		}
	}
	if !v2 {
		// The first schema's rules may not overlap.
		for i := range c.Rules {
			for j := i + 1; j < len(c.Rules); j++ {
				a, b := deref(c.Rules[i].Prefix), deref(c.Rules[j].Prefix)
				if strings.HasPrefix(a, b) || strings.HasPrefix(b, a) {
					return invalidReq("Found overlapping prefixes '" + a + "' and '" + b + "' for same destination bucket")
				}
			}
		}
	}
	return nil
}

// v2 tells whether a rule is of the current schema (Filter), whose rules
// need a priority and DeleteMarkerReplication.
func (r *Rule) v2() bool {
	return r.Filter != nil || r.Priority != nil || r.DeleteMarkerReplication != nil || r.ExistingObjectReplication != nil
}

func (r *Rule) validate(v2 bool) error {
	if len(r.ID) > MaxIDLength || !utf8.ValidString(r.ID) {
		return invalidArg("The ID of a rule cannot be longer than 255 characters")
	}
	if r.Status != Enabled && r.Status != Disabled {
		return malformed()
	}
	if r.Destination == nil || r.Destination.Bucket == "" {
		return malformed()
	}
	if _, err := ParseARN(r.Destination.Bucket); err != nil {
		return err
	}
	if r.Destination.ReplicationTime != nil || r.Destination.Metrics != nil {
		return &Error{"NotImplemented", "S3 Replication Time Control is not implemented"}
	}
	if sc := r.Destination.StorageClass; sc != "" && !contains(StorageClasses, sc) {
		return malformed()
	}
	if act := r.Destination.AccessControlTranslation; act != nil {
		if act.Owner != "Destination" {
			return malformed()
		}
		if r.Destination.Account == "" {
			return invalidReq("Destination Account must be specified when AccessControlTranslation is specified")
		}
	}
	for _, s := range []*StatusElem{r.DeleteMarkerReplication, r.ExistingObjectReplication} {
		if s != nil && s.Status != Enabled && s.Status != Disabled {
			return malformed()
		}
	}
	if ssc := r.SourceSelectionCriteria; ssc != nil {
		for _, s := range []*StatusElem{ssc.ReplicaModifications, ssc.SseKmsEncryptedObjects} {
			if s != nil && s.Status != Enabled && s.Status != Disabled {
				return malformed()
			}
		}
	}
	if !v2 {
		if r.Prefix == nil {
			return malformed()
		}
		return nil
	}
	// The current schema, as AWS checks it.
	if r.Prefix != nil {
		return invalidReq("Prefix cannot be used with Filter. Use Filter.Prefix instead")
	}
	if r.Filter == nil {
		return malformed()
	}
	if r.Priority == nil {
		return invalidReq("Priority must be specified for this version of Cross Region Replication configuration schema. Please refer to S3 Developer Guide for more information.")
	}
	if *r.Priority < 0 {
		return invalidArg("Priority must be a non-negative integer")
	}
	if r.DeleteMarkerReplication == nil {
		return invalidReq("DeleteMarkerReplication must be specified for this version of Cross Region Replication configuration schema. Please refer to S3 Developer Guide for more information.")
	}
	if r.DeleteMarkerReplication.enabled() && r.Filter.hasTags() {
		return invalidReq("Delete marker replication is not supported if any Tag filter is specified. Please refer to S3 Developer Guide for more information.")
	}
	return r.Filter.validate()
}

func (f *Filter) hasTags() bool {
	return f.Tag != nil || f.And != nil && len(f.And.Tags) > 0
}

func (f *Filter) validate() error {
	n := 0
	for _, set := range []bool{f.Prefix != nil, f.Tag != nil, f.And != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return malformed()
	}
	tags := f.And.tags()
	if f.Tag != nil {
		tags = append(tags, *f.Tag)
	}
	if f.And != nil && len(f.And.Tags)+btoi(f.And.Prefix != nil) < 2 {
		return malformed()
	}
	seen := map[string]bool{}
	for _, t := range tags {
		if t.Key == "" || len(t.Key) > MaxTagKey || len(t.Value) > MaxTagValue {
			return invalidArg("Invalid Tag")
		}
		if seen[t.Key] {
			return invalidArg("Duplicate Tag Keys are not allowed.")
		}
		seen[t.Key] = true
	}
	return nil
}

func (a *And) tags() []Tag {
	if a == nil {
		return nil
	}
	return append([]Tag(nil), a.Tags...)
}

// ARN is a destination bucket: of this Ostium when Target is "".
type ARN struct {
	Target, Bucket string
}

// String is the ARN as a configuration names it.
func (a ARN) String() string {
	if a.Target == "" {
		return "arn:aws:s3:::" + a.Bucket
	}
	return "arn:ostium:replication::" + a.Target + ":" + a.Bucket
}

// ParseARN reads a destination's bucket ARN.
func ParseARN(s string) (ARN, error) {
	bad := invalidArg("Invalid bucket ARN.")
	if name, ok := strings.CutPrefix(s, "arn:aws:s3:::"); ok {
		if name == "" || strings.ContainsAny(name, "/:") {
			return ARN{}, bad
		}
		return ARN{Bucket: name}, nil
	}
	if rest, ok := strings.CutPrefix(s, "arn:ostium:replication::"); ok {
		target, name, ok := strings.Cut(rest, ":")
		if !ok || target == "" || name == "" || strings.ContainsAny(name, "/:") {
			return ARN{}, bad
		}
		return ARN{Target: target, Bucket: name}, nil
	}
	return ARN{}, bad
}

// Match returns the enabled rule that applies to a version of key with
// tags, the one of highest priority when several do (as AWS: the larger
// number wins; of the first schema, the first listed); nil when none.
func (c *Configuration) Match(key string, tags map[string]string) *Rule {
	if c == nil {
		return nil
	}
	var best *Rule
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.Status != Enabled || !r.matches(key, tags) {
			continue
		}
		if best == nil || prio(r) > prio(best) {
			best = r
		}
	}
	return best
}

// MatchDeleteMarker returns the rule that replicates a delete marker
// on key: only rules without tag filters can, and only with
// DeleteMarkerReplication Enabled (the first schema: always).
func (c *Configuration) MatchDeleteMarker(key string) *Rule {
	r := c.Match(key, nil)
	if r == nil || !r.ReplicatesDeleteMarkers() {
		return nil
	}
	return r
}

// PerDestination returns, for each destination, the enabled rule of
// highest priority that applies to a version of key with tags (as AWS
// decides each destination of a multi-destination configuration on its
// own rules); for a delete marker, only rules that replicate them.
func (c *Configuration) PerDestination(key string, tags map[string]string, deleteMarker bool) []*Rule {
	if c == nil {
		return nil
	}
	var out []*Rule
	for _, d := range c.Destinations() {
		var best *Rule
		for i := range c.Rules {
			r := &c.Rules[i]
			if a, err := ParseARN(r.Destination.Bucket); err != nil || a != d || r.Status != Enabled || !r.matches(key, tags) {
				continue
			}
			if best == nil || prio(r) > prio(best) {
				best = r
			}
		}
		if best != nil && deleteMarker && !best.ReplicatesDeleteMarkers() {
			best = nil
		}
		if best != nil {
			out = append(out, best)
		}
	}
	return out
}

// ReplicatesDeleteMarkers tells whether a rule sends delete markers:
// with DeleteMarkerReplication Enabled, and (as AWS) rules of the first
// schema always do.
func (r *Rule) ReplicatesDeleteMarkers() bool {
	if !r.v2() {
		return true
	}
	return r.DeleteMarkerReplication.enabled() && !r.Filter.hasTags()
}

// ReplicatesExisting tells whether a rule asks for existing versions.
func (r *Rule) ReplicatesExisting() bool { return r.ExistingObjectReplication.enabled() }

// ReplicatesReplicas tells whether a rule sends changes made to the
// metadata of replicas (tags, ACL, retention, legal hold) to its
// destination: replica modification sync, which with a rule each way
// keeps two buckets' metadata in step. A replica itself is never
// replicated again, as on AWS.
func (r *Rule) ReplicatesReplicas() bool {
	return r.SourceSelectionCriteria != nil && r.SourceSelectionCriteria.ReplicaModifications.enabled()
}

func prio(r *Rule) int {
	if r.Priority == nil {
		return -1
	}
	return *r.Priority
}

func (r *Rule) matches(key string, tags map[string]string) bool {
	if r.Prefix != nil {
		return strings.HasPrefix(key, *r.Prefix)
	}
	f := r.Filter
	if f == nil {
		return true
	}
	prefix := deref(f.Prefix)
	want := f.And.tags()
	if f.And != nil {
		prefix = deref(f.And.Prefix)
	}
	if f.Tag != nil {
		want = append(want, *f.Tag)
	}
	if !strings.HasPrefix(key, prefix) {
		return false
	}
	for _, t := range want {
		if v, ok := tags[t.Key]; !ok || v != t.Value {
			return false
		}
	}
	return true
}

// Destinations returns the distinct destinations of the enabled rules.
func (c *Configuration) Destinations() []ARN {
	var out []ARN
	for _, r := range c.Rules {
		a, err := ParseARN(r.Destination.Bucket)
		if err == nil && !contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// Encode is what the catalog keeps: JSON, the writer included.
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
		return nil, fmt.Errorf("replication: decode: %w", err)
	}
	return &c, nil
}

// ErrNoConfiguration: a bucket has no replication configuration.
var ErrNoConfiguration = errors.New("replication: no configuration")

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
