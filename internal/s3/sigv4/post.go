package sigv4

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// PostForm is what authenticates a browser form upload (S3's POST
// Object): the fields as sent, by their lower-cased names. SigV4 forms
// sign with x-amz-algorithm, x-amz-credential, x-amz-date and
// x-amz-signature; SigV2 forms with AWSAccessKeyId and signature. Either
// signs the policy field, as sent (its base64 text).
type PostForm map[string]string

// postField is AWS's refusal of a form missing a field it needs.
func postField(name string) *Error {
	return invalidArgument("Bucket POST must contain a field named '" + name + "'.  If it is specified, please check the order of the fields.")
}

// VerifyPost checks a form's signature of its policy and returns the
// access key that signed it; ErrNoAuth when the form carries neither a
// signature nor a policy (an anonymous upload). The signature is the one
// thing verified here: the policy's expiration and conditions are the
// caller's to check (package postpolicy), as is the signing date, which
// AWS bounds by the policy's expiration, not by the clock skew.
func VerifyPost(ctx context.Context, f PostForm, lookup LookupFunc) (accessKey string, err error) {
	policy, hasPolicy := f["policy"]
	_, v4 := f["x-amz-signature"]
	_, v2 := f["signature"]
	_, v2Key := f["awsaccesskeyid"]
	switch {
	case v4 || f["x-amz-credential"] != "" || f["x-amz-algorithm"] != "":
		return verifyPostV4(ctx, f, policy, hasPolicy, lookup)
	case v2 || v2Key:
		return verifyPostV2(ctx, f, policy, hasPolicy, lookup)
	case hasPolicy:
		return "", postField("AWSAccessKeyId")
	}
	return "", ErrNoAuth
}

func verifyPostV4(ctx context.Context, f PostForm, policy string, hasPolicy bool, lookup LookupFunc) (string, error) {
	for _, name := range []string{"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature"} {
		if f[name] == "" {
			return "", postField(name)
		}
	}
	if !hasPolicy {
		return "", postField("policy")
	}
	if f["x-amz-algorithm"] != algorithm {
		return "", invalidArgument("Only AWS4-HMAC-SHA256 is supported")
	}
	s, err := parseCredential(f["x-amz-credential"], invalidArgument, nil)
	if err != nil {
		return "", err
	}
	t, err := time.Parse(amzDateForm, f["x-amz-date"])
	if err != nil {
		return "", invalidArgument("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
	}
	if t.Format("20060102") != s.date {
		return "", invalidArgument("Invalid credential date. Date is not the same as X-Amz-Date.")
	}
	sec, err := secret(ctx, lookup, s.accessKey)
	if err != nil {
		return "", err
	}
	want := hex.EncodeToString(hmacSHA256(signingKey(sec, s.date, s.region, s.service), policy))
	if !hmac.Equal([]byte(want), []byte(f["x-amz-signature"])) {
		return "", errSignature
	}
	return s.accessKey, nil
}

func verifyPostV2(ctx context.Context, f PostForm, policy string, hasPolicy bool, lookup LookupFunc) (string, error) {
	ak := f["awsaccesskeyid"]
	switch {
	case ak == "":
		return "", postField("AWSAccessKeyId")
	case f["signature"] == "":
		return "", postField("signature")
	case !hasPolicy:
		return "", postField("policy")
	}
	sec, err := secret(ctx, lookup, ak)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha1.New, []byte(sec))
	mac.Write([]byte(policy))
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(f["signature"])) {
		return "", errSignature
	}
	return ak, nil
}
