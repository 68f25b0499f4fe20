// Package objectlock holds S3 Object Lock's rules as pure functions: a
// bucket's lock configuration and its validation, retention modes and
// dates, and the decisions whether a version may be removed or its
// retention changed. The catalog enforces the removal rule in the
// transaction that removes a version; the object service and the
// protocol layer use the rest.
package objectlock

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Mode is a retention mode.
type Mode string

const (
	// Governance protects a version from everyone but a caller who asks
	// to bypass it and has s3:BypassGovernanceRetention.
	Governance Mode = "GOVERNANCE"
	// Compliance protects a version from everyone, the provider
	// included, until its date passes; it can never be shortened.
	Compliance Mode = "COMPLIANCE"
)

// ParseMode accepts a mode as AWS spells it.
func ParseMode(s string) (Mode, bool) {
	switch m := Mode(s); m {
	case Governance, Compliance:
		return m, true
	}
	return "", false
}

// AWS's bounds on a default retention period.
const (
	MaxDays  = 36500
	MaxYears = 100
)

// Errors of the rules; the object service maps each to AWS's answer.
var (
	// ErrLocked: the version is under legal hold or retention that the
	// caller may not bypass.
	ErrLocked = errors.New("objectlock: version is locked")
	// ErrInvalid: a configuration, mode or date is not valid.
	ErrInvalid = errors.New("objectlock: invalid")
)

// Invalid is an ErrInvalid with the message AWS gives. Period marks a
// default retention period that is not positive, which AWS answers with
// a code of its own (InvalidRetentionPeriod).
type Invalid struct {
	Message string
	Period  bool
}

func (e *Invalid) Error() string { return "objectlock: " + e.Message }
func (e *Invalid) Unwrap() error { return ErrInvalid }

func invalid(msg string) error { return &Invalid{Message: msg} }

// Config is a bucket's object lock configuration. A bucket with lock
// enabled has one (Enabled), with or without a default retention.
type Config struct {
	Enabled bool `json:"enabled"`
	// DefaultMode with Days or Years is the retention a new version gets
	// when its write names none; empty Mode: no default.
	DefaultMode Mode `json:"mode,omitempty"`
	Days        int  `json:"days,omitempty"`
	Years       int  `json:"years,omitempty"`
}

// HasDefault reports whether new versions get a default retention.
func (c Config) HasDefault() bool { return c.DefaultMode != "" }

// Validate applies AWS's rules: a default names a mode and exactly one
// of Days and Years, a positive count no larger than AWS allows.
func (c Config) Validate() error {
	if !c.Enabled {
		return invalid("ObjectLockEnabled must be Enabled")
	}
	if c.DefaultMode == "" {
		if c.Days != 0 || c.Years != 0 {
			return invalid("DefaultRetention must specify a Mode")
		}
		return nil
	}
	if _, ok := ParseMode(string(c.DefaultMode)); !ok {
		return invalid("Unknown wormMode directive.")
	}
	switch {
	case c.Days != 0 && c.Years != 0:
		return invalid("DefaultRetention takes Days or Years, not both")
	case c.Days == 0 && c.Years == 0:
		return invalid("DefaultRetention must specify Days or Years")
	case c.Days < 0 || c.Years < 0:
		return &Invalid{Message: "Default retention period must be a positive integer value.", Period: true}
	case c.Days > MaxDays || c.Years > MaxYears:
		return invalid("Default retention period is too large.")
	}
	return nil
}

// DefaultUntil is the retain-until date of a version created at t under
// the default retention (zero if none): days of 24 hours, or calendar
// years, as AWS counts them.
func (c Config) DefaultUntil(t time.Time) time.Time {
	switch {
	case !c.HasDefault():
		return time.Time{}
	case c.Years > 0:
		return t.UTC().AddDate(c.Years, 0, 0)
	}
	return t.UTC().Add(time.Duration(c.Days) * 24 * time.Hour)
}

// Encode is how the catalog keeps a configuration (SettingObjectLock).
func (c Config) Encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Decode reads a stored configuration; "" is a bucket without lock.
func Decode(s string) (Config, error) {
	var c Config
	if s == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("objectlock: decode configuration: %w", err)
	}
	return c, nil
}

// Lock is one version's protection.
type Lock struct {
	Mode        Mode // "" = no retention
	RetainUntil time.Time
	LegalHold   bool
}

// Retained reports whether the version's retention is in force at now.
func (l Lock) Retained(now time.Time) bool {
	return l.Mode != "" && now.Before(l.RetainUntil)
}

// Protected reports whether anything keeps the version at now.
func (l Lock) Protected(now time.Time) bool { return l.LegalHold || l.Retained(now) }

// MayRemove decides whether a version may be removed at now. bypass is
// true only when the caller asked to bypass governance retention and is
// permitted to (s3:BypassGovernanceRetention): it lifts a GOVERNANCE
// retention, never a COMPLIANCE one nor a legal hold.
func MayRemove(l Lock, bypass bool, now time.Time) error {
	switch {
	case l.LegalHold:
		return ErrLocked
	case !l.Retained(now):
		return nil
	case l.Mode == Governance && bypass:
		return nil
	}
	return ErrLocked
}

// Retention is what PutObjectRetention asks for; a zero Mode removes
// the retention.
type Retention struct {
	Mode  Mode
	Until time.Time
}

// ValidRetention checks a new retention as AWS does: a known mode with a
// date in the future, or neither.
func ValidRetention(r Retention, now time.Time) error {
	if r.Mode == "" {
		if !r.Until.IsZero() {
			return invalid("x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied")
		}
		return nil
	}
	if _, ok := ParseMode(string(r.Mode)); !ok {
		return invalid("Unknown wormMode directive.")
	}
	if r.Until.IsZero() {
		return invalid("x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied")
	}
	if !r.Until.After(now) {
		return invalid("The retain until date must be in the future!")
	}
	return nil
}

// MayChange decides whether a version's retention may go from cur to
// next at now. A retention no longer in force may be replaced freely.
// One in force may be extended in its own mode by anyone allowed to set
// retention. Any other change (shortening, removing, or changing the
// mode, GOVERNANCE to COMPLIANCE included) needs a governance bypass
// (bypass: asked and permitted) on a GOVERNANCE retention, and is never
// allowed on a COMPLIANCE one. That is AWS's rule: in governance mode no
// one may "alter its lock settings" without the bypass, and AWS answers
// a GOVERNANCE to COMPLIANCE change without it with 403 AccessDenied.
func MayChange(cur Lock, next Retention, bypass bool, now time.Time) error {
	if !cur.Retained(now) {
		return nil
	}
	extends := next.Mode == cur.Mode && !next.Until.Before(cur.RetainUntil)
	switch {
	case extends:
		return nil
	case cur.Mode == Governance && bypass:
		return nil
	}
	return ErrLocked
}

// ParseDate reads a retain-until date as AWS writes it (ISO 8601, UTC,
// with or without fractional seconds).
func ParseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, invalid("The retain until date must be provided in ISO 8601 format")
	}
	return t.UTC(), nil
}

// FormatDate writes a retain-until date as AWS does.
func FormatDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ParseLegalHold reads a legal hold status, ON or OFF.
func ParseLegalHold(s string) (bool, error) {
	switch s {
	case "ON":
		return true, nil
	case "OFF":
		return false, nil
	}
	return false, invalid("Legal Hold must be either of 'ON' or 'OFF'")
}

// LegalHoldStatus writes a legal hold as AWS does.
func LegalHoldStatus(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}
