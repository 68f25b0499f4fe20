// Package accesslog is S3 server access logging: records of the requests
// on logged buckets in AWS's format, buffered on each node and queued in
// the catalog in batches, then delivered as objects to their target
// buckets by a job that one node of a cluster runs at a time.
//
// Delivery is at least once: a record leaves the catalog's queue only
// after the object holding it is committed, so a crash in between
// delivers it twice, never loses it. What a node holds in memory before
// its next flush (a second by default) is lost if the node crashes; AWS
// too calls access logs best-effort.
package accesslog

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Entry is what one request's record tells, gathered by the protocol
// layer after the response.
type Entry struct {
	Source    string // the logged bucket
	Owner     string // its owner's canonical id
	Target    string // where the record goes
	KeyPrefix string // the log object's key before its date (objects.LogKeyPrefix)
	Partition string // "", "EventTime" or "DeliveryTime"

	Time       time.Time // when the request arrived
	RemoteIP   string
	Requester  string // canonical id; "" for anonymous
	RequestID  string
	Operation  string // REST.PUT.OBJECT, ...
	Key        string // unescaped; "" for none
	Method     string
	RequestURI string // as sent: path and query
	Proto      string
	Status     int
	ErrorCode  string
	BytesSent  int64
	ObjectSize int64 // -1: none
	TotalTime  time.Duration
	Turnaround time.Duration // -1: unknown
	Referer    string
	UserAgent  string
	VersionID  string
	HostID     string
	SigVersion string // SigV2, SigV4 or ""
	Cipher     string
	AuthType   string // AuthHeader, QueryString or ""
	Host       string
	TLSVersion string // TLSv1.2, TLSv1.3 or ""
	// ACLRequired is set when an ACL, not a policy or ownership, let the
	// request through.
	ACLRequired bool
}

// Line formats e as AWS writes a server access log record: fields
// separated by spaces, "-" for an empty one, the request line, referrer
// and user agent in quotes.
func (e *Entry) Line() string {
	var b strings.Builder
	b.Grow(512)
	field := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if s == "" {
			b.WriteByte('-')
			return
		}
		writeSafe(&b, s, false)
	}
	quoted := func(s string) {
		b.WriteString(` "`)
		if s == "" {
			b.WriteByte('-')
		} else {
			writeSafe(&b, s, true)
		}
		b.WriteByte('"')
	}
	num := func(n int64) {
		if n <= 0 {
			field("")
			return
		}
		field(strconv.FormatInt(n, 10))
	}
	field(e.Owner)
	field(e.Source)
	b.WriteString(" [" + e.Time.UTC().Format("02/Jan/2006:15:04:05 -0700") + "]")
	field(e.RemoteIP)
	field(e.Requester)
	field(e.RequestID)
	field(e.Operation)
	key := ""
	if e.Key != "" {
		key = (&url.URL{Path: e.Key}).EscapedPath()
	}
	field(key)
	quoted(e.Method + " " + e.RequestURI + " " + e.Proto)
	field(strconv.Itoa(e.Status))
	field(e.ErrorCode)
	num(e.BytesSent)
	if e.ObjectSize < 0 {
		field("")
	} else {
		field(strconv.FormatInt(e.ObjectSize, 10))
	}
	field(strconv.FormatInt(e.TotalTime.Milliseconds(), 10))
	if e.Turnaround < 0 {
		field("")
	} else {
		field(strconv.FormatInt(e.Turnaround.Milliseconds(), 10))
	}
	quoted(e.Referer)
	quoted(e.UserAgent)
	field(e.VersionID)
	field(e.HostID)
	field(e.SigVersion)
	field(e.Cipher)
	field(e.AuthType)
	field(e.Host)
	field(e.TLSVersion)
	field("") // access point ARN: Ostium has no access points
	if e.ACLRequired {
		field("Yes")
	} else {
		field("")
	}
	return b.String()
}

// writeSafe writes s so that a record stays one line of valid UTF-8 with
// its fields apart: control bytes, invalid UTF-8 and (in unquoted
// fields) spaces are escaped as \xNN; in quoted ones, quotes and
// backslashes are escaped.
func writeSafe(b *strings.Builder, s string, inQuotes bool) {
	const hex = "0123456789ABCDEF"
	esc := func(c byte) { b.WriteString(`\x`); b.WriteByte(hex[c>>4]); b.WriteByte(hex[c&15]) }
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				esc(c)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		switch {
		case c < 0x20 || c == 0x7f || c == ' ' && !inQuotes:
			esc(c)
		case inQuotes && (c == '"' || c == '\\'):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		i++
	}
}
