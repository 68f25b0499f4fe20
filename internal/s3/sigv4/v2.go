package sigv4

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// v2SubResources are the query parameters Signature V2 signs as part of
// the resource.
var v2SubResources = map[string]bool{
	"acl": true, "cors": true, "delete": true, "lifecycle": true, "location": true, "logging": true,
	"notification": true, "partNumber": true, "policy": true, "requestPayment": true, "restore": true,
	"tagging": true, "torrent": true, "uploadId": true, "uploads": true, "versionId": true,
	"versioning": true, "versions": true, "website": true, "replication": true, "encryption": true,
	"object-lock": true, "retention": true, "legal-hold": true, "publicAccessBlock": true,
	"ownershipControls": true, "policyStatus": true, "accelerate": true, "select": true,
	"response-cache-control": true, "response-content-disposition": true, "response-content-encoding": true,
	"response-content-language": true, "response-content-type": true, "response-expires": true,
}

func verifyV2Header(ctx context.Context, r *http.Request, authz string, lookup LookupFunc, opt Options) (*Auth, error) {
	ak, sig, ok := strings.Cut(strings.TrimPrefix(authz, "AWS "), ":")
	if !ok || ak == "" || sig == "" {
		return nil, invalidArgument("AWS authorization header is invalid.  Expected AwsAccessKeyId:signature")
	}
	t, err := requestTime(r)
	if err != nil {
		return nil, err
	}
	if d := opt.now().Sub(t); d > MaxSkew || d < -MaxSkew {
		return nil, errSkew
	}
	date := r.Header.Get("Date")
	if r.Header.Get("X-Amz-Date") != "" {
		date = ""
	}
	return verifyV2(ctx, r, ak, sig, date, lookup, opt)
}

func verifyV2Query(ctx context.Context, r *http.Request, q url.Values, lookup LookupFunc, opt Options) (*Auth, error) {
	ak, sig, exp := q.Get("AWSAccessKeyId"), q.Get("Signature"), q.Get("Expires")
	if ak == "" || sig == "" || exp == "" {
		return nil, &Error{http.StatusForbidden, "AccessDenied", "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters"}
	}
	secs, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return nil, &Error{http.StatusForbidden, "AccessDenied", "Invalid date (should be seconds since epoch): " + exp}
	}
	now, expires := opt.now(), time.Unix(secs, 0)
	if now.After(expires) {
		return nil, errExpired
	}
	// A V2 URL carries no signing time, only when it expires, so the
	// bound is on how far ahead that is: a leaked URL is no good for
	// longer than a V4 one would be. (S3 sets no bound on V2 URLs; V2
	// query errors are 403 AccessDenied there, so this is one too.)
	if limit := opt.presignV2MaxAge(); expires.Sub(now) > limit {
		return nil, &Error{http.StatusForbidden, "AccessDenied",
			"Signature Version 2 query-string authentication must expire within " + strconv.FormatInt(int64(limit/time.Second), 10) + " seconds of now"}
	}
	return verifyV2(ctx, r, ak, sig, exp, lookup, opt)
}

func verifyV2(ctx context.Context, r *http.Request, ak, sig, date string, lookup LookupFunc, opt Options) (*Auth, error) {
	sec, err := secret(ctx, lookup, ak)
	if err != nil {
		return nil, err
	}
	resources := []string{opt.V2Resource}
	if strings.Count(opt.V2Resource, "/") == 1 {
		// A bucket's resource is "/bucket/" to AWS (and to botocore), but
		// "/bucket" to clients that sign the path they send.
		resources = append(resources, opt.V2Resource+"/")
	}
	for _, res := range resources {
		mac := hmac.New(sha1.New, []byte(sec))
		mac.Write([]byte(stringToSignV2(r, date, res)))
		want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
		if hmac.Equal([]byte(want), []byte(sig)) {
			return plain(r, ak), nil
		}
	}
	return nil, errSignature
}

// stringToSignV2 is Signature V2's string to sign: the method, the
// Content-MD5, Content-Type and date lines (date is "" when X-Amz-Date
// stands in for Date, Expires in the query form), the canonical x-amz-*
// headers, then the resource and its sub-resources.
func stringToSignV2(r *http.Request, date, resource string) string {
	return r.Method + "\n" + r.Header.Get("Content-Md5") + "\n" + r.Header.Get("Content-Type") + "\n" + date + "\n" +
		amzHeadersV2(r.Header) + resource + subResourcesV2(r.URL.Query())
}

// amzHeadersV2 is "name:value\n" for each x-amz-* header: names lower
// case and sorted, values trimmed, the values of a repeated header (under
// any spelling of its name) joined by commas.
func amzHeadersV2(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	// Sorted, so that the values of a name spelt two ways (possible only
	// in a header map built in-process) join in the same order each time.
	sort.Strings(keys)
	byName := map[string][]string{}
	var names []string
	for _, k := range keys {
		vs := h[k]
		lk := strings.ToLower(k)
		if !strings.HasPrefix(lk, "x-amz-") {
			continue
		}
		if _, ok := byName[lk]; !ok {
			names = append(names, lk)
		}
		for _, v := range vs {
			byName[lk] = append(byName[lk], strings.TrimSpace(v))
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + ":" + strings.Join(byName[n], ",") + "\n")
	}
	return b.String()
}

// subResourcesV2 is "?a&b=v" for the signed sub-resources present, sorted.
func subResourcesV2(q url.Values) string {
	var keys []string
	for k := range q {
		if v2SubResources[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(k)
		if v := q.Get(k); v != "" {
			b.WriteString("=" + v)
		}
	}
	return b.String()
}
