package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// escape is AWS's URI encoding: unreserved characters stay, everything
// else becomes %XX (upper case); '/' stays too when keepSlash.
func escape(s string, keepSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && keepSlash {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// EscapePath encodes a path as AWS's SDKs send it: every byte but the
// unreserved characters and '/' as %XX.
func EscapePath(p string) string { return escape(p, true) }

// canonicalURI is the request path encoded once by AWS's rules. Encoding
// the decoded path (rather than taking the bytes as sent) accepts every
// client that encodes as the SDKs do, whatever it left unencoded on the
// wire.
func canonicalURI(r *http.Request) string {
	p := r.URL.Path
	if p == "" {
		p = "/"
	}
	return escape(p, true)
}

// canonicalQuery sorts and encodes the query, leaving out skip (the
// presigned signature itself).
func canonicalQuery(q url.Values, skip string) string {
	type kv struct{ k, v string }
	pairs := make([]kv, 0, len(q))
	for k, vs := range q {
		if k == skip {
			continue
		}
		ek := escape(k, false)
		for _, v := range vs {
			pairs = append(pairs, kv{ek, escape(v, false)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.k)
		b.WriteByte('=')
		b.WriteString(p.v)
	}
	return b.String()
}

// canonicalHeaders writes "name:value\n" for each signed header, values
// trimmed and their runs of blanks squeezed; see collapse for spacesOnly.
func canonicalHeaders(r *http.Request, signed []string, spacesOnly bool) string {
	squeeze := collapse
	if spacesOnly {
		squeeze = collapseSpaces
	}
	var b strings.Builder
	for _, name := range signed {
		b.WriteString(name)
		b.WriteByte(':')
		switch name {
		case "host":
			b.WriteString(r.Host)
		case "content-length":
			// net/http keeps the header for server requests, but a
			// client may sign the length of a request it sent without it.
			if v := r.Header.Get("Content-Length"); v != "" {
				b.WriteString(strings.TrimSpace(v))
			} else if r.ContentLength >= 0 {
				b.WriteString(itoa(r.ContentLength))
			}
		case "transfer-encoding":
			b.WriteString(strings.Join(r.TransferEncoding, ","))
		default:
			vs := r.Header.Values(name)
			for i, v := range vs {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(squeeze(v))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// collapse trims a header value and turns each run of white space into
// one space, as botocore (boto3, the aws cli) does. The AWS SDKs for Go
// and Java squeeze only spaces (collapseSpaces); the two differ on values
// with tabs, so a signature that fails one way is tried the other
// (blanksOtherThanSpace).
func collapse(v string) string {
	if !strings.Contains(v, "  ") && !blanksOtherThanSpace(v) {
		return strings.Trim(v, " ")
	}
	return strings.Join(strings.Fields(v), " ")
}

// collapseSpaces squeezes runs of spaces into one and trims white space
// at both ends, as the AWS SDK for Go does (strings.TrimSpace over its
// StripExcessSpaces: a tab at an end goes, one inside stays).
func collapseSpaces(v string) string {
	v = strings.Trim(v, " ")
	for strings.Contains(v, "  ") {
		v = strings.ReplaceAll(v, "  ", " ")
	}
	return strings.TrimSpace(v)
}

// blanksOtherThanSpace tells whether v holds white space that collapse
// and collapseSpaces treat differently.
func blanksOtherThanSpace(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c >= 0x80 {
			return true
		}
	}
	return false
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// keyCache holds derived signing keys: four HMACs saved per request, and
// a key only changes with the day, the region or the secret.
var keyCache struct {
	sync.Mutex
	m map[string][]byte
}

const keyCacheMax = 4096

// signingKey derives (or recalls) the key of secret for date and region.
func signingKey(secret, date, region, service string) []byte {
	id := secret + "\x00" + date + "\x00" + region + "\x00" + service
	keyCache.Lock()
	k, ok := keyCache.m[id]
	keyCache.Unlock()
	if ok {
		return k
	}
	k = hmacSHA256(hmacSHA256(hmacSHA256(hmacSHA256([]byte("AWS4"+secret), date), region), service), "aws4_request")
	keyCache.Lock()
	if keyCache.m == nil || len(keyCache.m) >= keyCacheMax {
		keyCache.m = map[string][]byte{}
	}
	keyCache.m[id] = k
	keyCache.Unlock()
	return k
}
