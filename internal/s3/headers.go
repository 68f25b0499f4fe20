package s3

import (
	"encoding/base64"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
)

const metaPrefix = "X-Amz-Meta-"

// storageClasses are the classes S3 accepts in x-amz-storage-class. All are
// stored alike here; the class is recorded and returned.
var storageClasses = map[string]bool{
	"STANDARD": true, "REDUCED_REDUNDANCY": true, "STANDARD_IA": true, "ONEZONE_IA": true,
	"INTELLIGENT_TIERING": true, "GLACIER": true, "DEEP_ARCHIVE": true, "GLACIER_IR": true,
	"OUTPOSTS": true, "SNOW": true, "EXPRESS_ONEZONE": true,
}

func storageClass(h http.Header) (string, error) {
	sc := h.Get("x-amz-storage-class")
	if sc != "" && !storageClasses[sc] {
		return "", objects.ErrInvalidStorageClass
	}
	return sc, nil
}

// metaFromHeaders collects what S3 stores with an object from a PUT, POST
// ?uploads or a copy with REPLACE.
func metaFromHeaders(h http.Header) catalog.Meta {
	m := catalog.Meta{
		ContentType:        h.Get("Content-Type"),
		ContentDisposition: h.Get("Content-Disposition"),
		ContentLanguage:    h.Get("Content-Language"),
		CacheControl:       h.Get("Cache-Control"),
		Expires:            h.Get("Expires"),
	}
	// aws-chunked is transport framing, not the object's encoding.
	var enc []string
	for _, e := range strings.Split(h.Get("Content-Encoding"), ",") {
		if e = strings.TrimSpace(e); e != "" && e != "aws-chunked" {
			enc = append(enc, e)
		}
	}
	m.ContentEncoding = strings.Join(enc, ",")
	for k, v := range h {
		if len(k) > len(metaPrefix) && strings.EqualFold(k[:len(metaPrefix)], metaPrefix) {
			if m.User == nil {
				m.User = map[string]string{}
			}
			m.User[strings.ToLower(k[len(metaPrefix):])] = metaValue(strings.Join(v, ","))
		}
	}
	return m
}

// metaValue is the user metadata value S3 stores for one sent in a
// header. As AWS documents, RFC 2047 encoded-words in it are decoded
// before it is stored ("=?UTF-8?B?Y2Fmw6k=?=" is stored as "café"): that
// is how a client sends what a header cannot carry, and botocore refuses
// non-ASCII metadata outright. Raw bytes beyond ASCII, which
// aws-sdk-go-v2 sends as the value's UTF-8, are kept as UTF-8 when they
// are valid UTF-8 (AWS reads each byte as an ISO-8859-1 character, so
// such a value comes back from it doubly encoded), else read as
// ISO-8859-1, HTTP's historical charset of header bytes.
func metaValue(v string) string {
	if strings.Contains(v, "=?") {
		if d, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
			v = d
		}
	}
	if utf8.ValidString(v) {
		return v
	}
	r := make([]rune, len(v))
	for i := 0; i < len(v); i++ {
		r[i] = rune(v[i])
	}
	return string(r)
}

// metaHeader is a stored user metadata value as a response header, as
// AWS answers it: as it is when it is printable US-ASCII, RFC 2047
// encoded (=?UTF-8?B?...?=) when it holds any other character. ok is
// false for an ASCII value with control characters, which no header can
// carry: AWS leaves such a value out and counts it in x-amz-missing-meta.
func metaHeader(v string) (h string, ok bool) {
	ascii, ctl := true, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 0x80:
			ascii = false
		case c < 0x20 && c != '\t' || c == 0x7f:
			ctl = true
		}
	}
	switch {
	case !ascii:
		return "=?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte(metaValue(v))) + "?=", true
	case ctl:
		return "", false
	}
	return v, true
}

// setObjectHeaders writes an object's stored headers on a GET/HEAD/PUT
// response.
func setObjectHeaders(h http.Header, o catalog.Object, withChecksums bool) {
	h.Set("ETag", o.ETag)
	h.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
	ct := o.Meta.ContentType
	if ct == "" {
		ct = "binary/octet-stream"
	}
	h.Set("Content-Type", ct)
	for k, v := range map[string]string{
		"Content-Encoding": o.Meta.ContentEncoding, "Content-Disposition": o.Meta.ContentDisposition,
		"Content-Language": o.Meta.ContentLanguage, "Cache-Control": o.Meta.CacheControl,
		"Expires": o.Meta.Expires,
	} {
		if v != "" {
			h.Set(k, v)
		}
	}
	missing := 0
	for k, v := range o.Meta.User {
		if hv, ok := metaHeader(v); ok {
			h["X-Amz-Meta-"+k] = []string{hv}
		} else {
			missing++
		}
	}
	if missing > 0 {
		h.Set("x-amz-missing-meta", strconv.Itoa(missing))
	}
	if o.StorageClass != "" && o.StorageClass != "STANDARD" {
		h.Set("x-amz-storage-class", o.StorageClass)
	}
	if withChecksums {
		setChecksumHeaders(h, o.Meta.Checksums, o.Meta.ChecksumType)
	}
}

func setChecksumHeaders(h http.Header, sums map[string]string, typ string) {
	for algo, v := range sums {
		h.Set("x-amz-checksum-"+strings.ToLower(algo), v)
	}
	if len(sums) > 0 && typ != "" {
		h.Set("x-amz-checksum-type", typ)
	}
}

// responseOverrides are the GET query parameters that replace response
// headers (used by presigned links).
var responseOverrides = map[string]string{
	"response-content-type":        "Content-Type",
	"response-content-language":    "Content-Language",
	"response-expires":             "Expires",
	"response-cache-control":       "Cache-Control",
	"response-content-disposition": "Content-Disposition",
	"response-content-encoding":    "Content-Encoding",
}

func parseHTTPTime(v string) time.Time {
	if v == "" {
		return time.Time{}
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return time.Time{} // S3 ignores unparseable dates
	}
	return t
}

// conditions reads If-* headers, or x-amz-copy-source-if-* with prefix.
func conditions(h http.Header, prefix string) objects.Conditions {
	return objects.Conditions{
		IfMatch:           h.Get(prefix + "If-Match"),
		IfNoneMatch:       h.Get(prefix + "If-None-Match"),
		IfModifiedSince:   parseHTTPTime(h.Get(prefix + "If-Modified-Since")),
		IfUnmodifiedSince: parseHTTPTime(h.Get(prefix + "If-Unmodified-Since")),
	}
}

// parseRange reads a single byte range; S3 ignores what it cannot parse
// (including multiple ranges) and serves the whole object.
func parseRange(v string) *objects.ByteRange {
	spec, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return nil
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return nil
	}
	if first == "" {
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return nil
		}
		if n == 0 {
			return &objects.ByteRange{First: 1 << 62, Last: -1} // unsatisfiable, as S3
		}
		return &objects.ByteRange{Suffix: n}
	}
	f, err := strconv.ParseInt(first, 10, 64)
	if err != nil || f < 0 {
		return nil
	}
	if last == "" {
		return &objects.ByteRange{First: f, Last: -1}
	}
	l, err := strconv.ParseInt(last, 10, 64)
	if err != nil || l < f {
		return nil
	}
	return &objects.ByteRange{First: f, Last: l}
}

// checksumRequest finds which checksums a write asks for and the values it
// declares in headers; trailer-borne values arrive after the body.
func checksumRequest(h http.Header) (algos []string, declared map[string]string, err error) {
	add := func(a string) {
		for _, x := range algos {
			if x == a {
				return
			}
		}
		algos = append(algos, a)
	}
	for _, a := range objects.ChecksumAlgorithms() {
		name := "x-amz-checksum-" + strings.ToLower(a)
		if v := h.Get(name); v != "" {
			if !validChecksumValue(a, v) {
				return nil, nil, &apiError{400, "InvalidRequest", "Value for " + name + " header is invalid."}
			}
			add(a)
			if declared == nil {
				declared = map[string]string{}
			}
			declared[a] = v
		}
	}
	for _, hn := range []string{"x-amz-sdk-checksum-algorithm", "x-amz-checksum-algorithm"} {
		if v := h.Get(hn); v != "" {
			a, ok := objects.ChecksumAlgorithm(v)
			if !ok {
				return nil, nil, &apiError{400, "InvalidRequest", "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]"}
			}
			add(a)
		}
	}
	for _, t := range strings.Split(h.Get("x-amz-trailer"), ",") {
		t = strings.ToLower(strings.TrimSpace(t))
		if a, ok := strings.CutPrefix(t, "x-amz-checksum-"); ok {
			if a, ok := objects.ChecksumAlgorithm(a); ok {
				add(a)
			}
		}
	}
	return algos, declared, nil
}

var checksumLen = map[string]int{"CRC32": 4, "CRC32C": 4, "CRC64NVME": 8, "SHA1": 20, "SHA256": 32}

func validChecksumValue(algo, v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	return err == nil && len(b) == checksumLen[algo]
}
