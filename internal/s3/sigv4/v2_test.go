package sigv4

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// AWS's documented Signature V2 upload: the x-amz-* headers are in the
// string to sign with their names lower-cased and sorted, values trimmed
// and a repeated header's values joined by a comma. The signature is the
// HMAC-SHA1 of the string to sign AWS's documentation shows, computed
// apart (python3 hmac) with the example secret.
func TestSignatureV2AmzHeaders(t *testing.T) {
	at := time.Date(2007, 3, 27, 21, 6, 8, 0, time.UTC)
	opt := Options{V2Resource: "/static.example.com/db-backup.dat.gz", Now: func() time.Time { return at }}
	r := httptest.NewRequest("PUT", "http://static.example.com:8080/db-backup.dat.gz", nil)
	h := r.Header
	h.Set("Date", "Tue, 27 Mar 2007 21:06:08 +0000")
	h["x-amz-acl"] = []string{"public-read"} // as sent, not canonicalised
	h.Set("Content-Type", "application/x-download")
	h.Set("Content-MD5", "4gJE4saaMU4BqNR0kLY+lw==")
	h.Add("X-Amz-Meta-ReviewedBy", "joe@example.com")
	h.Add("X-Amz-Meta-ReviewedBy", "  jane@example.com ")
	h.Set("X-Amz-Meta-FileChecksum", "0x02661779")
	h.Set("X-Amz-Meta-ChecksumAlgorithm", "crc32")
	h.Set("Content-Disposition", "attachment; filename=database.dat")
	h.Set("Authorization", "AWS "+testAK+":jtBQa0Aq+DkULFI8qrpwIjGEx0E=")
	if _, err := Verify(context.Background(), r, lookup, opt); err != nil {
		t.Fatal(err)
	}
	if got := h.Values("X-Amz-Meta-ReviewedBy")[1]; got != "  jane@example.com " {
		t.Fatalf("verifying rewrote a header value: %q", got)
	}
	// Any x-amz-* header added after signing is part of the string to
	// sign, so it breaks the signature: nothing unsigned is honoured.
	h.Set("X-Amz-Copy-Source", "/other/secret")
	_, err := Verify(context.Background(), r, lookup, opt)
	wantCode(t, err, "SignatureDoesNotMatch")
}

// With X-Amz-Date, the Date line of the string to sign is empty and
// x-amz-date is signed among the x-amz-* headers (AWS's documented
// DELETE; signature of that string computed apart with python3).
func TestSignatureV2AmzDate(t *testing.T) {
	at := time.Date(2007, 3, 27, 21, 20, 26, 0, time.UTC)
	opt := Options{V2Resource: "/johnsmith/photos/puppy.jpg", Now: func() time.Time { return at }}
	r := httptest.NewRequest("DELETE", "http://s3.us-west-1.amazonaws.com/johnsmith/photos/puppy.jpg", nil)
	r.Header.Set("Date", "Tue, 27 Mar 2007 21:20:27 +0000")
	r.Header.Set("X-Amz-Date", "Tue, 27 Mar 2007 21:20:26 +0000")
	r.Header.Set("Authorization", "AWS "+testAK+":R4dJ53KECjStyBO5iTBJZ4XVOaI=")
	if _, err := Verify(context.Background(), r, lookup, opt); err != nil {
		t.Fatal(err)
	}
	r.Header.Set("X-Amz-Date", "Tue, 27 Mar 2007 21:20:25 +0000")
	_, err := Verify(context.Background(), r, lookup, opt)
	wantCode(t, err, "SignatureDoesNotMatch")
}

// presignV2 signs a V2 query-string GET of /b/k expiring at exp.
func presignV2(exp time.Time) *http.Request {
	e := strconv.FormatInt(exp.Unix(), 10)
	mac := hmac.New(sha1.New, []byte(testSecret))
	mac.Write([]byte("GET\n\n\n" + e + "\n/b/k"))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return httptest.NewRequest("GET", "http://s3.example.com/b/k?AWSAccessKeyId="+testAK+"&Expires="+e+"&Signature="+url.QueryEscape(sig), nil)
}

// A presigned V2 URL may expire at most a week ahead by default, like a
// V4 URL (S3 itself bounds only V4 URLs; V2 query errors are 403
// AccessDenied there, so this refusal is one too). The bound is
// configurable.
func TestPresignV2MaxAge(t *testing.T) {
	now := time.Now()
	opt := Options{V2Resource: "/b/k", Now: func() time.Time { return now }}
	if _, err := Verify(context.Background(), presignV2(now.Add(7*24*time.Hour-time.Minute)), lookup, opt); err != nil {
		t.Fatalf("a URL of just under a week: %v", err)
	}
	_, err := Verify(context.Background(), presignV2(now.Add(8*24*time.Hour)), lookup, opt)
	wantCode(t, err, "AccessDenied")
	_, err = Verify(context.Background(), presignV2(now.Add(-time.Second)), lookup, opt)
	wantCode(t, err, "AccessDenied")

	opt.PresignV2MaxAge = 30 * 24 * time.Hour
	if _, err := Verify(context.Background(), presignV2(now.Add(8*24*time.Hour)), lookup, opt); err != nil {
		t.Fatalf("8 days under a 30-day bound: %v", err)
	}
	opt.PresignV2MaxAge = time.Hour
	_, err = Verify(context.Background(), presignV2(now.Add(2*time.Hour)), lookup, opt)
	wantCode(t, err, "AccessDenied")
}
