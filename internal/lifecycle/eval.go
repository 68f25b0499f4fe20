package lifecycle

import (
	"net/http"
	"strings"
	"time"
)

// Day is a lifecycle day as AWS counts it.
const Day = 24 * time.Hour

// DueAt is when something that began at start is days old as AWS counts
// it: start plus the days, rounded up to the next midnight UTC. A day
// lasts day (Day, unless a test node shortens it), and midnight is then
// a multiple of day.
func DueAt(start time.Time, days int, day time.Duration) time.Time {
	if day <= 0 {
		day = Day
	}
	// AWS: created 2014-01-15 10:30 UTC with 3 days expires 2014-01-19
	// 00:00 UTC; created at midnight, the next midnight after the days.
	return start.UTC().Add(time.Duration(days+1) * day).Truncate(day)
}

// Version is what evaluation needs of one version of a key.
type Version struct {
	Key          string
	Size         int64
	Tags         map[string]string
	LastModified time.Time
	IsLatest     bool
	DeleteMarker bool
	// NoncurrentSince is when a noncurrent version stopped being current:
	// the creation of the next newer version of its key.
	NoncurrentSince time.Time
	// NewerNoncurrent counts the noncurrent versions of the key newer
	// than this one.
	NewerNoncurrent int
	// OnlyVersion: no other version of the key exists (what makes a
	// current delete marker an expired object delete marker).
	OnlyVersion bool
	// StorageClass is the class the version is in ("" = STANDARD).
	StorageClass string
}

// Action is what a rule set says is due for a version.
type Action int

const (
	// None: nothing is due.
	None Action = iota
	// ExpireCurrent: the current version expires, as DeleteObject without
	// a version id (a delete marker in a versioned bucket).
	ExpireCurrent
	// RemoveVersion: this version (a noncurrent one, or an expired object
	// delete marker) is removed for good.
	RemoveVersion
	// Move: this version moves to storage class Due.Class (a transition).
	Move
)

func (a Action) String() string {
	return [...]string{"none", "expire", "remove-version", "move"}[a]
}

// Due is an action and the rule that asked for it.
type Due struct {
	Action Action
	RuleID string
	Class  string // Move's storage class
}

// matches tells whether the rule applies to an object of this key, size
// and tags. Delete markers have no size and no tags: size predicates do
// not apply to them and tag predicates never match them.
func (r *Rule) matches(key string, size int64, tags map[string]string, marker bool) bool {
	if r.Status != Enabled {
		return false
	}
	if r.Prefix != nil {
		return strings.HasPrefix(key, *r.Prefix)
	}
	f := r.Filter
	if f == nil {
		return true
	}
	sizeOK := func(gt, lt *int64) bool {
		return marker || (gt == nil || size > *gt) && (lt == nil || size < *lt)
	}
	tagOK := func(t Tag) bool {
		v, ok := tags[t.Key]
		return ok && v == t.Value
	}
	if f.Prefix != nil && !strings.HasPrefix(key, *f.Prefix) || f.Tag != nil && !tagOK(*f.Tag) ||
		!sizeOK(f.ObjectSizeGreaterThan, f.ObjectSizeLessThan) {
		return false
	}
	if a := f.And; a != nil {
		if a.Prefix != nil && !strings.HasPrefix(key, *a.Prefix) || !sizeOK(a.ObjectSizeGreaterThan, a.ObjectSizeLessThan) {
			return false
		}
		for _, t := range a.Tags {
			if !tagOK(t) {
				return false
			}
		}
	}
	return true
}

// hasTags tells whether the rule's filter names tags.
func (r *Rule) hasTags() bool {
	f := r.Filter
	return f != nil && (f.Tag != nil || f.And != nil && len(f.And.Tags) > 0)
}

// expiry is when a current object created at created expires by this
// rule's Expiration (Days or Date), if it has one.
func (r *Rule) expiry(created time.Time, day time.Duration) (time.Time, bool) {
	e := r.Expiration
	switch {
	case e == nil:
		return time.Time{}, false
	case e.Days != nil:
		return DueAt(created, *e.Days, day), true
	case e.Date != nil:
		return e.Date.Time, true
	}
	return time.Time{}, false
}

// Evaluate says what is due for version v at now. An expiration wins
// over a transition due at once (as on AWS); several expirations due at
// once give the first rule's id.
func (c *Configuration) Evaluate(v Version, now time.Time, day time.Duration) Due {
	if c == nil {
		return Due{}
	}
	if d := c.expiration(v, now, day); d.Action != None {
		return d
	}
	return c.transition(v, now, day)
}

// expiration is what the rules' expirations say is due for v at now.
func (c *Configuration) expiration(v Version, now time.Time, day time.Duration) Due {
	for i := range c.Rules {
		r := &c.Rules[i]
		if !r.matches(v.Key, v.Size, v.Tags, v.DeleteMarker) {
			continue
		}
		switch {
		case v.IsLatest && v.DeleteMarker:
			// AWS: only a delete marker that is the key's only version
			// (an expired object delete marker) is removed, by
			// ExpiredObjectDeleteMarker at once, or by an expiration of
			// current versions once the marker is old enough for it.
			if !v.OnlyVersion || r.Expiration == nil {
				continue
			}
			if dm := r.Expiration.ExpiredObjectDeleteMarker; dm != nil && *dm {
				return Due{Action: RemoveVersion, RuleID: r.ID}
			}
			if at, ok := r.expiry(v.LastModified, day); ok && !now.Before(at) {
				return Due{Action: RemoveVersion, RuleID: r.ID}
			}
		case v.IsLatest:
			if at, ok := r.expiry(v.LastModified, day); ok && !now.Before(at) {
				return Due{Action: ExpireCurrent, RuleID: r.ID}
			}
		default:
			nv := r.NoncurrentVersionExpiration
			if nv == nil || nv.NoncurrentDays == nil {
				continue
			}
			if nv.NewerNoncurrentVersions != nil && v.NewerNoncurrent < *nv.NewerNoncurrentVersions {
				continue
			}
			if !now.Before(DueAt(v.NoncurrentSince, *nv.NoncurrentDays, day)) {
				return Due{Action: RemoveVersion, RuleID: r.ID}
			}
		}
	}
	return Due{}
}

// Expiry is when a current object expires by the rule set, and by which
// rule: the earliest of the enabled rules with an Expiration that apply
// to it. ok is false when none does.
func (c *Configuration) Expiry(key string, size int64, tags map[string]string, created time.Time, day time.Duration) (at time.Time, ruleID string, ok bool) {
	if c == nil {
		return
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		if !r.matches(key, size, tags, false) {
			continue
		}
		if t, has := r.expiry(created, day); has && (!ok || t.Before(at)) {
			at, ruleID, ok = t, r.ID, true
		}
	}
	return
}

// ExpirationHeader is the x-amz-expiration value AWS sends for an object
// expiring at at by rule id.
func ExpirationHeader(at time.Time, id string) string {
	return `expiry-date="` + at.UTC().Format(http.TimeFormat) + `", rule-id="` + id + `"`
}

// AbortDue tells whether a multipart upload of key initiated at
// initiated is due to be aborted at now, and by which rule. Uploads
// have no tags (rules with tags cannot abort) and no size yet: size
// predicates do not apply to them.
func (c *Configuration) AbortDue(key string, initiated, now time.Time, day time.Duration) (string, bool) {
	if c == nil {
		return "", false
	}
	for i := range c.Rules {
		r := &c.Rules[i]
		a := r.AbortIncompleteMultipartUpload
		if a == nil || a.DaysAfterInitiation == nil || r.hasTags() || !r.matches(key, 0, nil, true) {
			continue
		}
		if !now.Before(DueAt(initiated, *a.DaysAfterInitiation, day)) {
			return r.ID, true
		}
	}
	return "", false
}

// Aborts tells whether any enabled rule aborts uploads (so that a bucket
// without one needs no walk of its uploads).
func (c *Configuration) Aborts() bool {
	for i := range c.Rules {
		if c.Rules[i].Status == Enabled && c.Rules[i].AbortIncompleteMultipartUpload != nil {
			return true
		}
	}
	return false
}

// Versions tells whether any enabled rule acts on versions (so that a
// bucket with only abort rules needs no walk of its versions).
func (c *Configuration) Versions() bool {
	for i := range c.Rules {
		r := &c.Rules[i]
		if r.Status == Enabled && (r.Expiration != nil || r.NoncurrentVersionExpiration != nil ||
			len(r.Transitions) > 0 || len(r.NoncurrentTransitions) > 0) {
			return true
		}
	}
	return false
}
