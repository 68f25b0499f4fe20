package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// `ostium admin iam` validates a policy (telling the line of a problem),
// creates it, attaches it to a user, and explains why the user may read
// an object: the managed policy's statement, printed with its source.
func TestAdminIAMCommands(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	cli := func(args ...string) string {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return out
	}
	cli("admin", "tenant", "create", "acme")
	cli("admin", "user", "create", "acme", "ann", "--role", "admin")
	cli("admin", "user", "create", "acme", "alice")
	keyOut := cli("admin", "--json", "key", "create", "acme", "ann")
	ak, sk := field(keyOut, "access_key"), field(keyOut, "secret_key")
	s3c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(ak, sk, ""), HTTPClient: srv.Client()})
	if _, err := s3c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("reports")}); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	good := filepath.Join(dir, "good.json")
	os.WriteFile(bad, []byte("{\"Version\": \"2012-10-17\",\n \"Statement\": {\"Effect\": \"Allow\", \"Action\": \"s3:GetObject\",\n  \"Resource\": \"reports/*\"}}"), 0o600)
	os.WriteFile(good, []byte("{\"Version\": \"2012-10-17\",\n \"Statement\": {\"Sid\": \"ReadReports\", \"Effect\": \"Allow\", \"Action\": \"s3:GetObject\",\n  \"Resource\": \"arn:aws:s3:::reports/*\"}}"), 0o600)
	out, err := runCLI(t, "admin", "iam", "validate", "acme", "--document-file", bad)
	if err == nil || !strings.Contains(out, "LINE  COLUMN  SEVERITY  MESSAGE") || !strings.Contains(out, "3     15      error     Resource reports/* must be in ARN format") {
		t.Fatalf("validate bad: %v\n%s", err, out)
	}
	cli("admin", "iam", "validate", "acme", "--document-file", good)
	cli("admin", "iam", "policy", "create", "acme", "read-reports", "--document-file", good)
	cli("admin", "iam", "principal", "attach", "acme", "user", "alice", "read-reports")
	out = cli("admin", "iam", "explain", "acme", "alice", "s3:GetObject", "reports/q1.csv")
	for _, want := range []string{"arn:aws:iam::acme:user/alice s3:GetObject on arn:aws:s3:::reports/q1.csv: allowed",
		"Allow ReadReports: managed policy arn:aws:iam::acme:policy/read-reports (v1) attached to user alice, line 2",
		`"Resource": "arn:aws:s3:::reports/*"`} {
		if !strings.Contains(out, want) {
			t.Fatalf("explain: want %q in\n%s", want, out)
		}
	}
	out = cli("admin", "iam", "explain", "acme", "alice", "s3:PutObject", "reports/q1.csv")
	if !strings.Contains(out, ": implicitDeny") || !strings.Contains(out, "no statement applies") {
		t.Fatalf("explain put:\n%s", out)
	}
	out = cli("admin", "--json", "iam", "explain", "acme", "alice", "s3:ListBucket", "reports", "--context", "s3:prefix=2024/")
	if field(out, "decision") != "implicitDeny" {
		t.Fatalf("explain list: %s", out)
	}
}

// field is a top-level string field of a JSON object.
func field(js, name string) string {
	i := strings.Index(js, `"`+name+`": "`)
	if i < 0 {
		return ""
	}
	rest := js[i+len(name)+5:]
	return rest[:strings.IndexByte(rest, '"')]
}
