package s3_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// fastLogs delivers access logs within a fraction of a second.
func fastLogs(c *node.Config) {
	c.AccessLogFlush = 50 * time.Millisecond
	c.AccessLogInterval = 200 * time.Millisecond
}

// logDeliveryPolicy is the policy AWS recommends for a target bucket:
// the logging service may put objects under prefix for source's logs.
func logDeliveryPolicy(target, prefix, sourceCondition string) string {
	return `{"Version":"2012-10-17","Statement":[{"Sid":"S3ServerAccessLogsPolicy","Effect":"Allow",
		"Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject",
		"Resource":"arn:aws:s3:::` + target + `/` + prefix + `*",
		"Condition":` + sourceCondition + `}]}`
}

func enableLogging(c *s3.Client, source, target, prefix string, format *types.TargetObjectKeyFormat, grants ...types.TargetGrant) error {
	_, err := c.PutBucketLogging(context.Background(), &s3.PutBucketLoggingInput{Bucket: &source,
		BucketLoggingStatus: &types.BucketLoggingStatus{LoggingEnabled: &types.LoggingEnabled{
			TargetBucket: &target, TargetPrefix: &prefix, TargetObjectKeyFormat: format, TargetGrants: grants}}})
	return err
}

// logRecord is one parsed access log line.
type logRecord struct {
	fields []string
	key    string // the log object's key
}

// Field positions of AWS's server access log format.
const (
	fOwner = iota
	fBucket
	fTime
	fRemoteIP
	fRequester
	fRequestID
	fOperation
	fKey
	fRequestURI
	fStatus
	fErrorCode
	fBytesSent
	fObjectSize
	fTotalTime
	fTurnaround
	fReferer
	fUserAgent
	fVersionID
	fHostID
	fSigVersion
	fCipher
	fAuthType
	fHost
	fTLSVersion
	fAccessPoint
	fACLRequired
	fieldCount
)

// logField reads the fields of a record as a log reader would: split at
// spaces, except inside [brackets] and "quotes".
var logField = regexp.MustCompile(`\[[^\]]*\]|"(?:[^"\\]|\\.)*"|[^ ]+`)

// readLogs returns the records delivered under prefix in bucket.
func readLogs(t *testing.T, c *s3.Client, bucket, prefix string) []logRecord {
	t.Helper()
	ctx := context.Background()
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	if err != nil {
		t.Fatal(err)
	}
	var recs []logRecord
	for _, o := range out.Contents {
		for _, line := range strings.Split(strings.TrimSuffix(string(get(t, c, bucket, *o.Key)), "\n"), "\n") {
			fs := logField.FindAllString(line, -1)
			if len(fs) != fieldCount {
				t.Fatalf("record of %d fields, want %d: %q", len(fs), fieldCount, line)
			}
			recs = append(recs, logRecord{fs, *o.Key})
		}
	}
	return recs
}

// waitLogs polls until records for every wanted operation arrived; an
// operation may name a key too ("REST.GET.OBJECT doc").
func waitLogs(t *testing.T, c *s3.Client, bucket, prefix string, ops ...string) []logRecord {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		recs := readLogs(t, c, bucket, prefix)
		seen := map[string]bool{}
		for _, r := range recs {
			seen[r.fields[fOperation]] = true
			seen[r.fields[fOperation]+" "+r.fields[fKey]] = true
		}
		missing := ""
		for _, op := range ops {
			if !seen[op] {
				missing = op
			}
		}
		if missing == "" {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s record delivered; have %d records", missing, len(recs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func find(t *testing.T, recs []logRecord, op, key string) logRecord {
	t.Helper()
	for _, r := range recs {
		if r.fields[fOperation] == op && r.fields[fKey] == key {
			return r
		}
	}
	t.Fatalf("no %s record of %s", op, key)
	return logRecord{}
}

// Logging is refused until the target's owner lets the logging service
// in; then every request on the source is delivered to the target as a
// record in AWS's format, under TargetPrefix + date + unique string.
func TestAccessLogsDelivered(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true, Config: fastLogs}, "src")
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("logs")}); err != nil {
		t.Fatal(err)
	}
	// As AWS: no such target; a target whose owner allows nothing.
	wantCode(t, enableLogging(c, "src", "nowhere", "access/", nil), "InvalidTargetBucketForLogging")
	wantCode(t, enableLogging(c, "src", "logs", "access/", nil), "InvalidTargetBucketForLogging")
	// A policy for another source lets nothing in either.
	if err := putPolicy(t, c, "logs", logDeliveryPolicy("logs", "access/", `{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::other"}}`)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, enableLogging(c, "src", "logs", "access/", nil), "InvalidTargetBucketForLogging")
	// Target grants need ACLs, which the target (BucketOwnerEnforced) has not.
	grant := types.TargetGrant{Grantee: &types.Grantee{Type: types.TypeCanonicalUser, ID: aws.String(iam.RootCanonicalID)}, Permission: types.BucketLogsPermissionRead}
	if err := putPolicy(t, c, "logs", logDeliveryPolicy("logs", "access/", `{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"}}`)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, enableLogging(c, "src", "logs", "access/", nil, grant), "AccessControlListNotSupported")
	// No log object could have a key that long.
	wantCode(t, enableLogging(c, "src", "logs", "access/"+strings.Repeat("p", 1100), nil), "InvalidArgument")

	got, err := c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("src")})
	if err != nil || got.LoggingEnabled != nil {
		t.Fatalf("logging before it is enabled: %+v, %v", got, err)
	}
	if err := enableLogging(c, "src", "logs", "access/", nil); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("src")})
	if err != nil || got.LoggingEnabled == nil || *got.LoggingEnabled.TargetBucket != "logs" || *got.LoggingEnabled.TargetPrefix != "access/" {
		t.Fatalf("GetBucketLogging = %+v, %v", got, err)
	}

	body := []byte("hello world")
	put(t, c, "src", "a b/c.txt", body)
	if string(get(t, c, "src", "a b/c.txt")) != string(body) {
		t.Fatal("read back")
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("src"), Key: aws.String("missing")})
	wantCode(t, err, "NoSuchKey")
	if _, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("src")}); err != nil {
		t.Fatal(err)
	}
	anon := s3.New(c.Options(), func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	_, err = anon.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("src"), Key: aws.String("a b/c.txt")})
	wantCode(t, err, "AccessDenied")

	recs := waitLogs(t, c, "logs", "access/", "REST.PUT.OBJECT", "REST.GET.OBJECT", "REST.GET.BUCKET", "REST.PUT.LOGGING_STATUS")
	keyName := regexp.MustCompile(`^access/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-[0-9A-F]{16}$`)
	for _, r := range recs {
		if !keyName.MatchString(r.key) {
			t.Fatalf("log object key %q is not TargetPrefix + YYYY-MM-DD-hh-mm-ss-UNIQUE", r.key)
		}
		if r.fields[fOwner] != iam.RootCanonicalID || r.fields[fBucket] != "src" || r.fields[fHostID] != r.fields[fRequestID] {
			t.Fatalf("record %q", r.fields)
		}
	}
	p := find(t, recs, "REST.PUT.OBJECT", "a%20b/c.txt").fields
	if p[fStatus] != "200" || p[fErrorCode] != "-" || p[fRequester] != iam.RootCanonicalID || p[fObjectSize] != "11" ||
		p[fSigVersion] != "SigV4" || p[fAuthType] != "AuthHeader" || !strings.HasPrefix(p[fTLSVersion], "TLSv1.") ||
		!strings.HasPrefix(p[fRequestURI], `"PUT /src/a%20b/c.txt`) || p[fRemoteIP] != "127.0.0.1" ||
		!regexp.MustCompile(`^\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\]$`).MatchString(p[fTime]) {
		t.Fatalf("PUT record %q", p)
	}
	g := find(t, recs, "REST.GET.OBJECT", "a%20b/c.txt").fields
	if g[fStatus] != "200" || g[fBytesSent] != "11" || g[fObjectSize] != "11" || g[fRequester] != iam.RootCanonicalID {
		t.Fatalf("GET record %q", g)
	}
	m := find(t, recs, "REST.GET.OBJECT", "missing").fields
	if m[fStatus] != "404" || m[fErrorCode] != "NoSuchKey" {
		t.Fatalf("GET of a missing key: %q", m)
	}
	var anonRec []string
	for _, r := range recs {
		if r.fields[fOperation] == "REST.GET.OBJECT" && r.fields[fRequester] == "-" {
			anonRec = r.fields
		}
	}
	if anonRec == nil || anonRec[fStatus] != "403" || anonRec[fErrorCode] != "AccessDenied" || anonRec[fSigVersion] != "-" {
		t.Fatalf("anonymous GET record %q", anonRec)
	}

	// Turned off, no more records come.
	if _, err := c.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: aws.String("src"), BucketLoggingStatus: &types.BucketLoggingStatus{}}); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("src")})
	if err != nil || got.LoggingEnabled != nil {
		t.Fatalf("logging after it is turned off: %+v, %v", got, err)
	}
	before := len(waitLogs(t, c, "logs", "access/", "REST.PUT.LOGGING_STATUS"))
	put(t, c, "src", "after", body)
	time.Sleep(time.Second)
	for _, r := range readLogs(t, c, "logs", "access/")[before:] {
		if r.fields[fKey] == "after" {
			t.Fatalf("a request after logging was turned off was logged: %q", r.fields)
		}
	}
}

// PartitionedPrefix keys carry the source's account, region, bucket and
// the date, as AWS writes them.
func TestAccessLogsPartitioned(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{Config: fastLogs}, "src")
	ctx := context.Background()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("logs")}); err != nil {
		t.Fatal(err)
	}
	if err := putPolicy(t, c, "logs", logDeliveryPolicy("logs", "", `{"StringEquals":{"aws:SourceAccount":"`+iam.RootCanonicalID+`"}}`)); err != nil {
		t.Fatal(err)
	}
	format := &types.TargetObjectKeyFormat{PartitionedPrefix: &types.PartitionedPrefix{PartitionDateSource: types.PartitionDateSourceEventTime}}
	if err := enableLogging(c, "src", "logs", "p/", format); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("src")})
	if err != nil || got.LoggingEnabled.TargetObjectKeyFormat == nil || got.LoggingEnabled.TargetObjectKeyFormat.PartitionedPrefix == nil ||
		got.LoggingEnabled.TargetObjectKeyFormat.PartitionedPrefix.PartitionDateSource != types.PartitionDateSourceEventTime {
		t.Fatalf("GetBucketLogging = %+v, %v", got.LoggingEnabled, err)
	}
	put(t, c, "src", "k", []byte("x"))
	recs := waitLogs(t, c, "logs", "p/", "REST.PUT.OBJECT")
	want := regexp.MustCompile(`^p/` + iam.RootCanonicalID + `/us-east-1/src/\d{4}/\d\d/\d\d/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-[0-9A-F]{16}$`)
	if !want.MatchString(recs[0].key) {
		t.Fatalf("partitioned key %q", recs[0].key)
	}
}

// Another tenant's bucket takes logs only when its owner's policy (or, the
// legacy way, its ACL for the LogDelivery group) lets the logging
// service in; only who manages the source may set its logging.
func TestAccessLogsTargetOwnerDecides(t *testing.T) {
	ten := newTenancy(t, fastLogs)
	ctx := context.Background()
	bob, carl := ten.clients["bob"], ten.clients["carl"]

	wantCode(t, enableLogging(carl, "acme-bob", "beta-carl", "", nil), "AccessDenied")
	_, err := carl.GetBucketLogging(ctx, &s3.GetBucketLoggingInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "AccessDenied")
	wantCode(t, enableLogging(bob, "acme-bob", "beta-carl", "from-acme/", nil), "InvalidTargetBucketForLogging")

	// carl lets in logs of acme's buckets only.
	if err := putPolicy(t, carl, "beta-carl", logDeliveryPolicy("beta-carl", "from-acme/", `{"StringEquals":{"aws:SourceAccount":"acme"}}`)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, enableLogging(bob, "acme-bob", "beta-carl", "elsewhere/", nil), "InvalidTargetBucketForLogging")
	if err := enableLogging(bob, "acme-bob", "beta-carl", "from-acme/", nil); err != nil {
		t.Fatal(err)
	}
	put(t, bob, "acme-bob", "logged", []byte("x"))
	recs := waitLogs(t, carl, "beta-carl", "from-acme/", "REST.PUT.OBJECT")
	r := find(t, recs, "REST.PUT.OBJECT", "logged").fields
	if r[fRequester] != "arn:aws:iam::acme:user/bob" || r[fOwner] != ten.canonicalID(t, "acme", "bob") {
		t.Fatalf("record %q", r)
	}

	// The legacy way: the LogDelivery group's WRITE and READ_ACP by ACL.
	if _, err := carl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("beta-legacy"), ObjectOwnership: types.ObjectOwnershipObjectWriter}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, enableLogging(bob, "acme-bob", "beta-legacy", "", nil), "InvalidTargetBucketForLogging")
	if _, err := carl.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: aws.String("beta-legacy"), ACL: types.BucketCannedACL("log-delivery-write")}); err != nil {
		t.Fatal(err)
	}
	if err := enableLogging(bob, "acme-bob", "beta-legacy", "", nil); err != nil {
		t.Fatal(err)
	}

	// Permission withdrawn after logging was set: nothing more arrives.
	if err := enableLogging(bob, "acme-bob", "beta-carl", "from-acme/", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := carl.DeleteBucketPolicy(ctx, &s3.DeleteBucketPolicyInput{Bucket: aws.String("beta-carl")}); err != nil {
		t.Fatal(err)
	}
	before := len(readLogs(t, carl, "beta-carl", "from-acme/"))
	put(t, bob, "acme-bob", "after-revoke", []byte("x"))
	time.Sleep(time.Second)
	if n := len(readLogs(t, carl, "beta-carl", "from-acme/")); n != before {
		t.Fatalf("records delivered after the target's owner withdrew leave: %d, were %d", n, before)
	}
}

// Records a node queued are delivered by another node on the same
// catalog after the first stopped before its delivery ran: queued in the
// catalog, they outlive the node.
func TestAccessLogsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := node.Config{DataDir: dir, ConfigDir: t.TempDir(), Catalog: testenv.CatalogURL(t), RootAccessKey: nodetest.AccessKey, RootSecretKey: nodetest.SecretKey,
		AccessLogFlush: 50 * time.Millisecond, AccessLogInterval: time.Hour}
	n, err := node.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := &nodetest.Server{Node: n, Dir: dir, Catalog: cfg.Catalog, ConfigDir: cfg.ConfigDir}
	first.Server = httptest.NewServer(n.Handler)
	c := client(t, first, first.URL, false)
	ctx := context.Background()
	for _, b := range []string{"src", "logs"} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := putPolicy(t, c, "logs", logDeliveryPolicy("logs", "", `{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := enableLogging(c, "src", "logs", "", nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"one", "two", "three"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(k), Body: bytes.NewReader([]byte(k))}); err != nil {
			t.Fatal(err)
		}
	}
	first.Server.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}

	second := nodetest.StartPeer(t, first, nodetest.Options{Config: func(c *node.Config) {
		c.AccessLogInterval = 100 * time.Millisecond
	}})
	c2 := client(t, second, second.URL, false)
	recs := waitLogs(t, c2, "logs", "", "REST.PUT.OBJECT")
	deadline := time.Now().Add(10 * time.Second)
	for {
		puts := 0
		for _, r := range recs {
			if r.fields[fOperation] == "REST.PUT.OBJECT" {
				puts++
			}
		}
		if puts >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 PUT records delivered after the restart", puts)
		}
		time.Sleep(100 * time.Millisecond)
		recs = readLogs(t, c2, "logs", "")
	}
	for _, k := range []string{"one", "two", "three"} {
		find(t, recs, "REST.PUT.OBJECT", k)
	}
}
