// Package notify is S3's event notifications as data: a bucket's
// notification configuration (AWS's XML, its validation and its
// matching), the ARNs of the targets a provider enables, and the event
// documents AWS sends. It does no I/O; package notify/delivery writes the
// events with the changes and delivers them.
package notify

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"sync"
)

// Error is a configuration refused as AWS refuses it: Code is AWS's
// error code (InvalidArgument, MalformedXML), with AWS's message.
type Error struct {
	Code, Message string
}

func (e *Error) Error() string { return "notify: " + e.Code + ": " + e.Message }

func invalidArg(msg string) error { return &Error{Code: "InvalidArgument", Message: msg} }
func malformed() error {
	return &Error{Code: "MalformedXML", Message: "The XML you provided was not well-formed or did not validate against our published schema"}
}

// Configuration is a bucket's NotificationConfiguration, in AWS's XML.
type Configuration struct {
	XMLName     xml.Name              `xml:"NotificationConfiguration" json:"-"`
	NS          string                `xml:"xmlns,attr,omitempty" json:"-"`
	Topics      []TopicConfiguration  `xml:"TopicConfiguration" json:"t,omitempty"`
	Queues      []QueueConfiguration  `xml:"QueueConfiguration" json:"q,omitempty"`
	Functions   []LambdaConfiguration `xml:"CloudFunctionConfiguration" json:"f,omitempty"`
	EventBridge *struct{}             `xml:"EventBridgeConfiguration" json:"-"`
}

// Rule is what every kind of configuration has: an id, the events and
// the key filter.
type Rule struct {
	ID     string   `xml:"Id,omitempty" json:"id"`
	Events []string `xml:"Event" json:"e"`
	Filter *Filter  `xml:"Filter,omitempty" json:"k,omitempty"`
}

// TopicConfiguration sends to an SNS-like topic; in Ostium, any target
// the provider registered under an sns ARN.
type TopicConfiguration struct {
	Rule
	Topic string `xml:"Topic" json:"a"`
}

// QueueConfiguration sends to a queue (an sqs ARN).
type QueueConfiguration struct {
	Rule
	Queue string `xml:"Queue" json:"a"`
}

// LambdaConfiguration sends to a function (a lambda ARN); its XML name
// is CloudFunctionConfiguration, as the SDKs send it.
type LambdaConfiguration struct {
	Rule
	CloudFunction string `xml:"CloudFunction" json:"a"`
}

// Filter is a rule's key filter.
type Filter struct {
	Key struct {
		Rules []FilterRule `xml:"FilterRule" json:"r"`
	} `xml:"S3Key" json:"k"`
}

// FilterRule is a prefix or a suffix the key must have.
type FilterRule struct {
	Name  string `xml:"Name" json:"n"`
	Value string `xml:"Value" json:"v"`
}

// Destination is one configuration whatever its kind, as the rest of the
// package handles it.
type Destination struct {
	Rule
	ARN     string
	Service string // sns, sqs or lambda: what the element may name
}

// Destinations lists the configurations in document order, topics
// first, then queues, then functions.
func (c *Configuration) Destinations() []Destination {
	var ds []Destination
	for _, t := range c.Topics {
		ds = append(ds, Destination{t.Rule, t.Topic, "sns"})
	}
	for _, q := range c.Queues {
		ds = append(ds, Destination{q.Rule, q.Queue, "sqs"})
	}
	for _, f := range c.Functions {
		ds = append(ds, Destination{f.Rule, f.CloudFunction, "lambda"})
	}
	return ds
}

// Prefix and Suffix are the rule's key filter ("" when none).
func (r Rule) Prefix() string { return r.filter("prefix") }
func (r Rule) Suffix() string { return r.filter("suffix") }

func (r Rule) filter(name string) string {
	if r.Filter == nil {
		return ""
	}
	for _, fr := range r.Filter.Key.Rules {
		if strings.EqualFold(fr.Name, name) {
			return fr.Value
		}
	}
	return ""
}

// Parse reads a PutBucketNotificationConfiguration document. An empty
// configuration is valid: it removes every notification.
func Parse(doc []byte) (*Configuration, error) {
	var c Configuration
	if err := xml.Unmarshal(doc, &c); err != nil {
		return nil, malformed()
	}
	if c.XMLName.Local != "NotificationConfiguration" {
		return nil, malformed()
	}
	return &c, nil
}

// maxDestinations bounds a configuration; AWS allows 100 rules.
const maxDestinations = 100

// Validate checks a configuration as AWS does, except for its targets
// (Targets.Check). It fills in the ids AWS makes up for rules without
// one.
func (c *Configuration) Validate() error {
	if c.EventBridge != nil {
		return invalidArg("EventBridge is not available on this endpoint: name a target the provider registered in a TopicConfiguration")
	}
	ds := c.Destinations()
	if len(ds) > maxDestinations {
		return invalidArg(fmt.Sprintf("A notification configuration may hold at most %d rules", maxDestinations))
	}
	ids := map[string]bool{}
	fill := func(r *Rule) error {
		if r.ID == "" {
			r.ID = newID()
		}
		if len(r.ID) > 255 {
			return invalidArg("The ID of a configuration may not be longer than 255 characters")
		}
		if ids[r.ID] {
			return invalidArg("Configurations must have unique IDs")
		}
		ids[r.ID] = true
		return nil
	}
	for i := range c.Topics {
		if err := fill(&c.Topics[i].Rule); err != nil {
			return err
		}
	}
	for i := range c.Queues {
		if err := fill(&c.Queues[i].Rule); err != nil {
			return err
		}
	}
	for i := range c.Functions {
		if err := fill(&c.Functions[i].Rule); err != nil {
			return err
		}
	}
	ds = c.Destinations()
	for _, d := range ds {
		if d.ARN == "" || len(d.Events) == 0 {
			return malformed()
		}
		for _, e := range d.Events {
			if !Produced(e) {
				return invalidArg("The event is not supported for notifications: " + e)
			}
		}
		if err := d.checkFilter(); err != nil {
			return err
		}
	}
	// Two rules whose events overlap may not both match a key: AWS
	// refuses overlapping prefixes with overlapping suffixes.
	for i, a := range ds {
		for _, b := range ds[i+1:] {
			if eventsOverlap(a.Events, b.Events) && overlap(a.Prefix(), b.Prefix(), strings.HasPrefix) &&
				overlap(a.Suffix(), b.Suffix(), strings.HasSuffix) {
				return invalidArg("Configuration is ambiguously defined. Cannot have overlapping suffixes in two rules if the prefixes are overlapping for the same event type.")
			}
		}
	}
	return nil
}

func (d Destination) checkFilter() error {
	if d.Filter == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, fr := range d.Filter.Key.Rules {
		name := strings.ToLower(fr.Name)
		switch {
		case name != "prefix" && name != "suffix":
			return invalidArg("filter rule name must be either prefix or suffix")
		case seen[name]:
			return invalidArg("Cannot specify more than one " + name + " rule in a filter.")
		case len(fr.Value) > 1024:
			return invalidArg("filter rule value must not be longer than 1024 characters")
		}
		seen[name] = true
	}
	return nil
}

// overlap tells whether two prefixes (or suffixes) can match one key:
// one of them extends the other ("" extends nothing and is extended by
// everything).
func overlap(a, b string, ext func(s, x string) bool) bool {
	return ext(a, b) || ext(b, a)
}

func eventsOverlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if Matches(x, y) || Matches(y, x) {
				return true
			}
		}
	}
	return false
}

// Matches tells whether the configured event pattern (s3:ObjectCreated:*
// or a name) covers an event name, or a narrower pattern.
func Matches(pattern, name string) bool {
	if pattern == name {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return false
}

// Match tells whether rule r wants an event of this name on this key.
func (r Rule) Match(name, key string) bool {
	if !strings.HasPrefix(key, r.Prefix()) || !strings.HasSuffix(key, r.Suffix()) {
		return false
	}
	for _, e := range r.Events {
		if Matches(e, name) {
			return true
		}
	}
	return false
}

func newID() string {
	var b [24]byte
	rand.Read(b[:])
	return base64.RawStdEncoding.EncodeToString(b[:])
}

// Encode is the configuration as the bucket setting keeps it ("" for
// one without rules).
func (c *Configuration) Encode() string {
	if c == nil || len(c.Destinations()) == 0 {
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// decoded memoizes Decode by the stored document: the write path then
// pays a map lookup per change, not a JSON parse. The document is its
// own key, so nothing needs invalidating; the map starts over past its
// bound.
var decoded struct {
	sync.RWMutex
	m map[string]*Configuration
}

const maxDecoded = 1024

// Decode reads a stored configuration (nil for ""). The result is shared:
// callers must not change it.
func Decode(doc string) (*Configuration, error) {
	if doc == "" {
		return nil, nil
	}
	decoded.RLock()
	c, ok := decoded.m[doc]
	decoded.RUnlock()
	if ok {
		return c, nil
	}
	c = &Configuration{}
	if err := json.Unmarshal([]byte(doc), c); err != nil {
		return nil, fmt.Errorf("notify: decode configuration: %w", err)
	}
	decoded.Lock()
	if decoded.m == nil || len(decoded.m) >= maxDecoded {
		decoded.m = map[string]*Configuration{}
	}
	decoded.m[doc] = c
	decoded.Unlock()
	return c, nil
}
