package sigv4

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// AWS's worked example of a SigV4 form ("Example: Browser-Based Upload
// using HTTP POST (Using AWS Signature Version 4)" in the S3 API
// reference): its policy as the page encodes it, its example keys, and
// the signature it states.
const (
	examplePolicy    = "eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0KICAiY29uZGl0aW9ucyI6IFsNCiAgICB7ImJ1Y2tldCI6ICJzaWd2NGV4YW1wbGVidWNrZXQifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAidXNlci91c2VyMS8iXSwNCiAgICB7ImFjbCI6ICJwdWJsaWMtcmVhZCJ9LA0KICAgIHsic3VjY2Vzc19hY3Rpb25fcmVkaXJlY3QiOiAiaHR0cDovL3NpZ3Y0ZXhhbXBsZWJ1Y2tldC5zMy5hbWF6b25hd3MuY29tL3N1Y2Nlc3NmdWxfdXBsb2FkLmh0bWwifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRDb250ZW50LVR5cGUiLCAiaW1hZ2UvIl0sDQogICAgeyJ4LWFtei1tZXRhLXV1aWQiOiAiMTQzNjUxMjM2NTEyNzQifSwNCiAgICB7IngtYW16LXNlcnZlci1zaWRlLWVuY3J5cHRpb24iOiAiQUVTMjU2In0sDQogICAgWyJzdGFydHMtd2l0aCIsICIkeC1hbXotbWV0YS10YWciLCAiIl0sDQoNCiAgICB7IngtYW16LWNyZWRlbnRpYWwiOiAiQUtJQUlPU0ZPRE5ON0VYQU1QTEUvMjAxNTEyMjkvdXMtZWFzdC0xL3MzL2F3czRfcmVxdWVzdCJ9LA0KICAgIHsieC1hbXotYWxnb3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwNCiAgICB7IngtYW16LWRhdGUiOiAiMjAxNTEyMjlUMDAwMDAwWiIgfQ0KICBdDQp9"
	exampleAccessKey = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	exampleSignature = "8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e"
)

func exampleLookup(_ context.Context, ak string) (string, error) {
	if ak == exampleAccessKey {
		return exampleSecret, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownKey, ak)
}

func exampleForm() PostForm {
	return PostForm{"x-amz-algorithm": "AWS4-HMAC-SHA256", "x-amz-credential": exampleAccessKey + "/20151229/us-east-1/s3/aws4_request",
		"x-amz-date": "20151229T000000Z", "policy": examplePolicy, "x-amz-signature": exampleSignature, "key": "user/user1/${filename}"}
}

func TestVerifyPostAWSExample(t *testing.T) {
	ak, err := VerifyPost(context.Background(), exampleForm(), exampleLookup)
	if err != nil || ak != exampleAccessKey {
		t.Fatalf("AWS's example: %q %v", ak, err)
	}
	code := func(err error) string {
		var e *Error
		if errors.As(err, &e) {
			return e.Code
		}
		if err != nil {
			return err.Error()
		}
		return ""
	}
	for name, tc := range map[string]struct {
		change func(PostForm)
		want   string
	}{
		"policy changed":       {func(f PostForm) { f["policy"] = examplePolicy[:len(examplePolicy)-4] }, "SignatureDoesNotMatch"},
		"other region":         {func(f PostForm) { f["x-amz-credential"] = exampleAccessKey + "/20151229/eu-west-1/s3/aws4_request" }, "SignatureDoesNotMatch"},
		"date not the scope's": {func(f PostForm) { f["x-amz-date"] = "20151230T000000Z" }, "InvalidArgument"},
		"unknown key":          {func(f PostForm) { f["x-amz-credential"] = "AKIDOTHER/20151229/us-east-1/s3/aws4_request" }, "InvalidAccessKeyId"},
		"other algorithm":      {func(f PostForm) { f["x-amz-algorithm"] = "AWS4-HMAC-SHA1" }, "InvalidArgument"},
		"no policy":            {func(f PostForm) { delete(f, "policy") }, "InvalidArgument"},
		"no date":              {func(f PostForm) { delete(f, "x-amz-date") }, "InvalidArgument"},
		"no signature":         {func(f PostForm) { delete(f, "x-amz-signature") }, "InvalidArgument"},
		"policy, no signature": {func(f PostForm) { clear4(f) }, "InvalidArgument"},
		"nothing: anonymous":   {func(f PostForm) { clear4(f); delete(f, "policy") }, ErrNoAuth.Error()},
	} {
		f := exampleForm()
		tc.change(f)
		_, err := VerifyPost(context.Background(), f, exampleLookup)
		if got := code(err); got != tc.want {
			t.Errorf("%s: %q (%v), want %q", name, got, err, tc.want)
		}
	}
}

func clear4(f PostForm) PostForm {
	for _, k := range []string{"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature"} {
		delete(f, k)
	}
	return f
}

// SigV2 forms: the base64 HMAC-SHA1 of the policy field with the secret.
func TestVerifyPostV2(t *testing.T) {
	// Computed with openssl: printf %s POLICY | openssl dgst -sha1 -hmac SECRET -binary | base64
	f := PostForm{"awsaccesskeyid": exampleAccessKey, "policy": examplePolicy, "signature": "QyigO3Da7gYxPW1IXllc6C7gI74="}
	ak, err := VerifyPost(context.Background(), f, exampleLookup)
	if err != nil || ak != exampleAccessKey {
		t.Fatalf("v2: %q %v", ak, err)
	}
	f["signature"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAA="
	if _, err := VerifyPost(context.Background(), f, exampleLookup); !errors.Is(err, errSignature) {
		t.Fatalf("wrong v2 signature: %v", err)
	}
	delete(f, "signature")
	if _, err := VerifyPost(context.Background(), f, exampleLookup); err == nil {
		t.Fatal("v2 without signature passed")
	}
}
