// Package redact keeps credentials out of what a node logs: the
// signature of a presigned URL or an Authorization header, a session
// token, and an SSE-C customer key, wherever a URL, a header or an error
// carrying one is written. String is the one function; Handler applies it
// to every line of a node's log, and the S3 server access log's
// Request-URI goes through it too (as AWS's own access logs leave the
// signature out of theirs).
package redact

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// Mask replaces a secret's value.
const Mask = "REDACTED"

// secrets are the names, as a query parameter (name=value), a header
// (name: value) or an Authorization header's part (name=value), whose
// values are credentials. "signature" covers X-Amz-Signature, SigV2's
// Signature= and the Authorization header's Signature=. The access key
// and the rest of X-Amz-Credential hold no secret and stay, as do the
// SSE-C key's MD5 (which S3 answers with anyway), so that a log still
// tells who asked for what.
var secrets = []string{
	"signature",
	"x-amz-security-token",
	"x-amz-server-side-encryption-customer-key",
	"x-amz-copy-source-server-side-encryption-customer-key",
	// MinIO's clients send AssumeRoleWithLDAPIdentity's password in the
	// query string.
	"ldappassword",
}

// String returns s with the value of every secret it names replaced by
// Mask: in a URL or query (name=value, up to the next & or space), a
// header line or a printed http.Header (name: value, name:[value]), or
// a SigV2 Authorization header (AWS AKID:signature).
func String(s string) string {
	if !strings.ContainsAny(s, "=:") {
		return s
	}
	lower := strings.ToLower(s)
	var b strings.Builder
	last := 0 // s[:last] is written
	for i := 0; i < len(lower); {
		name, ok := secretAt(lower, i)
		if !ok {
			i++
			continue
		}
		j := i + len(name)
		if strings.HasSuffix(name, "-md5") { // not a secret: skip it whole
			i = j
			continue
		}
		// The separator: =, or : with spaces or a [ after it.
		switch {
		case j < len(s) && s[j] == '=':
			j++
		case j < len(s) && s[j] == ':':
			j++
			for j < len(s) && (s[j] == ' ' || s[j] == '[') {
				j++
			}
		default:
			i = j
			continue
		}
		end := j
		for end < len(s) && !strings.ContainsRune("&, \"]\n\t;", rune(s[end])) {
			end++
		}
		if end > j {
			b.WriteString(s[last:j])
			b.WriteString(Mask)
			last = end
		}
		i = end
	}
	if last == 0 {
		return v2Authorization(encodedNames(s))
	}
	b.WriteString(s[last:])
	return v2Authorization(encodedNames(b.String()))
}

// encodedNames masks the value of a query parameter whose name is a
// secret's with some of its characters percent-encoded
// (X-Amz-%53ignature=...): a server decodes the name before it reads the
// parameter, so such a URL authenticates as its plain form does.
func encodedNames(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '?' && s[i] != '&' {
			continue
		}
		start := i + 1
		eq := start
		for eq < len(s) && !strings.ContainsRune("=&, \"]\n\t;#", rune(s[eq])) {
			eq++
		}
		if eq >= len(s) || s[eq] != '=' || !strings.Contains(s[start:eq], "%") {
			continue
		}
		name, err := url.QueryUnescape(s[start:eq])
		if err != nil || !secretName(strings.ToLower(name)) {
			continue
		}
		end := eq + 1
		for end < len(s) && !strings.ContainsRune("&, \"]\n\t;#", rune(s[end])) {
			end++
		}
		if end > eq+1 {
			b.WriteString(s[last : eq+1])
			b.WriteString(Mask)
			last = end
		}
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretName tells whether a parameter's decoded, lower-cased name is a
// secret's (an SSE-C key's MD5 is not).
func secretName(name string) bool {
	for i := range name {
		if n, ok := secretAt(name, i); ok {
			return !strings.HasSuffix(n, "-md5")
		}
	}
	return false
}

// secretAt reports the secret name lower holds at i, if any: the longest
// that matches, with the MD5 header of an SSE-C key named as such so
// that it is left alone.
func secretAt(lower string, i int) (string, bool) {
	best := ""
	for _, n := range secrets {
		if strings.HasPrefix(lower[i:], n) && len(n) > len(best) {
			best = n
		}
	}
	if best == "" {
		return "", false
	}
	if strings.HasPrefix(lower[i+len(best):], "-md5") {
		return best + "-md5", true
	}
	return best, true
}

// v2Authorization masks the signature of a SigV2 Authorization header
// value ("AWS AKID:signature"), which names no parameter.
func v2Authorization(s string) string {
	i := strings.Index(s, "AWS ")
	if i < 0 {
		return s
	}
	rest := s[i+4:]
	colon := strings.IndexByte(rest, ':')
	if colon <= 0 || strings.ContainsAny(rest[:colon], " ,=") {
		return s
	}
	end := colon + 1
	for end < len(rest) && !strings.ContainsRune(" ,\"]\n\t;", rune(rest[end])) {
		end++
	}
	if end == colon+1 || rest[colon+1:end] == Mask {
		return s
	}
	return s[:i+4] + rest[:colon+1] + Mask + v2Authorization(rest[end:])
}

// Handler wraps h so that every attribute of every record (strings,
// errors, anything printed, in groups too) and the message pass through
// String: a URL logged by a panic, a warning or an error from a library
// loses its secrets as the request line's does.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool { out.AddAttrs(attr(a)); return true })
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = attr(a)
	}
	return handler{h.next.WithAttrs(out)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.next.WithGroup(name)} }

func attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); String(s) != s {
			return slog.String(a.Key, String(s))
		}
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, ga := range g {
			out[i] = attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if r := String(s); r != s {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
