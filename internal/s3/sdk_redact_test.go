package s3_test

import (
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Presigned requests (SigV4 and SigV2) and SSE-C requests, logged at
// debug level through the handler `serve` installs, leave no signature,
// token or customer key in the node's log, which still names each
// request (method, URI, the access key in X-Amz-Credential); the S3
// server access log keeps its fields and format, with the signature
// masked as AWS masks it in the Request-URI of its own access logs.
func TestLogsKeepNoCredentials(t *testing.T) {
	var logged syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(node.LogConfig{Level: "debug", Format: "json"}.Handler(&logged)))
	defer slog.SetDefault(prev)

	c, srv := nodeWithBucket(t, nodetest.Options{TLS: true, Config: fastLogs}, "src")
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("logs")}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, c, "logs", logDeliveryPolicy("logs", "access/", `{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := enableLogging(c, "src", "logs", "access/", nil); err != nil {
		t.Fatal(err)
	}
	put(t, c, "src", "doc", []byte("presigned body"))

	var secrets []string
	fetch := func(u string, h http.Header) {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
		}
	}
	// SigV4 presigned.
	pre, err := s3.NewPresignClient(c).PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("src"), Key: aws.String("doc")}, s3.WithPresignExpires(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(pre.URL)
	secrets = append(secrets, u.Query().Get("X-Amz-Signature"))
	fetch(pre.URL, nil)
	// The same URL with a letter of the signature's name percent-encoded,
	// which the server decodes and takes as the same parameter.
	fetch(strings.Replace(pre.URL, "X-Amz-Signature=", "X-Amz-%53ignature=", 1), nil)
	// SigV2 presigned.
	exp := strconv.FormatInt(time.Now().Add(time.Minute).Unix(), 10)
	mac := hmac.New(sha1.New, []byte(nodetest.SecretKey))
	mac.Write([]byte("GET\n\n\n" + exp + "\n/src/doc"))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	secrets = append(secrets, sig, url.QueryEscape(sig))
	fetch(srv.URL+"/src/doc?AWSAccessKeyId="+nodetest.AccessKey+"&Expires="+exp+"&Signature="+url.QueryEscape(sig), nil)
	// SSE-C: a write and a read with the customer's key.
	key := []byte("0123456789abcdef0123456789abcdef")
	sum := md5.Sum(key)
	ckey, cmd5 := base64.StdEncoding.EncodeToString(key), base64.StdEncoding.EncodeToString(sum[:])
	secrets = append(secrets, ckey, string(key))
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("sealed"), Body: strings.NewReader("secret body"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(ckey), SSECustomerKeyMD5: aws.String(cmd5)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("src"), Key: aws.String("sealed"),
		SSECustomerAlgorithm: aws.String("AES256"), SSECustomerKey: aws.String(ckey), SSECustomerKeyMD5: aws.String(cmd5)}); err != nil {
		t.Fatal(err)
	}

	// Records arrive in batches: wait for the last request's.
	recs := waitLogs(t, c, "logs", "access/", "REST.GET.OBJECT sealed")
	var access []string
	for _, r := range recs {
		access = append(access, strings.Join(r.fields, " "))
	}
	delivered := strings.Join(access, "\n")
	for _, s := range secrets {
		if strings.Contains(logged.String(), s) {
			t.Errorf("the node's log holds %q:\n%s", s, logged.String())
		}
		if strings.Contains(delivered, s) {
			t.Errorf("the access log holds %q:\n%s", s, delivered)
		}
	}
	// What the lines are for is still there.
	for _, want := range []string{`"uri":"/src/doc?X-Amz-Algorithm=AWS4-HMAC-SHA256&`, "X-Amz-Credential=" + nodetest.AccessKey + "%2F", "X-Amz-Signature=REDACTED",
		"Signature=REDACTED", `"op":"PutObject"`, `"key":"sealed"`} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("the node's log lacks %q:\n%s", want, logged.String())
		}
	}
	var v4, v2 bool
	for _, r := range recs {
		uri := r.fields[fRequestURI]
		v4 = v4 || strings.Contains(uri, "X-Amz-Credential="+nodetest.AccessKey) && strings.Contains(uri, "X-Amz-Signature=REDACTED") && r.fields[fAuthType] == "QueryString"
		v2 = v2 || strings.Contains(uri, "AWSAccessKeyId="+nodetest.AccessKey) && strings.Contains(uri, "&Signature=REDACTED")
	}
	if !v4 || !v2 {
		t.Errorf("access log records of the presigned GETs (SigV4 %v, SigV2 %v):\n%s", v4, v2, delivered)
	}
}
