package security_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// deleteObjects sends a DeleteObjects request naming keys in bucket,
// signed with c, and returns each key's outcome: "" deleted, else the
// error code its result reports. The request itself must succeed (AWS
// answers 200 and reports refusals per key).
func deleteObjects(t *testing.T, srv *nodetest.Server, c creds, bucket string, keys ...string) map[string]string {
	t.Helper()
	var body strings.Builder
	body.WriteString("<Delete>")
	for _, k := range keys {
		body.WriteString("<Object><Key>")
		xml.EscapeText(&body, []byte(k))
		body.WriteString("</Key></Object>")
	}
	body.WriteString("</Delete>")
	sum := md5.Sum([]byte(body.String()))
	h := http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}
	st, b := do(t, srv, signed(t, srv, c, "POST", "/"+bucket+"?delete", []byte(body.String()), h))
	if st != 200 {
		t.Fatalf("DeleteObjects on %s: %d %s, want 200 with per-key results", bucket, st, b)
	}
	var res struct {
		Deleted []struct{ Key string }
		Error   []struct{ Key, Code string }
	}
	if err := xml.Unmarshal(b, &res); err != nil {
		t.Fatalf("DeleteObjects result %s: %v", b, err)
	}
	out := map[string]string{}
	for _, d := range res.Deleted {
		out[d.Key] = ""
	}
	for _, e := range res.Error {
		out[e.Key] = e.Code
	}
	if len(out) != len(keys) {
		t.Fatalf("DeleteObjects reported %d keys of %d: %s", len(out), len(keys), b)
	}
	return out
}

func putObjects(t *testing.T, srv *nodetest.Server, c creds, bucket string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if st, b := do(t, srv, signed(t, srv, c, "PUT", "/"+bucket+"/"+k, []byte("data of "+k), nil)); st != 200 {
			t.Fatalf("PUT %s/%s: %d %s", bucket, k, st, b)
		}
	}
}

func putPolicy(t *testing.T, srv *nodetest.Server, c creds, bucket, doc string) (int, []byte) {
	t.Helper()
	return do(t, srv, signed(t, srv, c, "PUT", "/"+bucket+"?policy", []byte(doc), nil))
}

// Tenant beta's user names tenant acme's keys in a DeleteObjects: each
// key is refused on its own (AccessDenied in the result, as AWS) and
// every object is still there. A user whom acme's policy lets delete
// only under public/ deletes there and nowhere else, even when it names
// both in one request; an explicit Deny on keep/ stops even the bucket's
// owner.
func TestDeleteObjectsDecidesEachKey(t *testing.T) {
	srv := start(t, nodetest.Options{})
	ann := newUser(t, srv, "acme", "ann", "admin")
	bob := newUser(t, srv, "acme", "bob", "user")
	carl := newUser(t, srv, "beta", "carl", "user")
	if st, b := do(t, srv, signed(t, srv, bob, "PUT", "/acme-data", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	keys := []string{"public/a", "secret/b", "keep/c"}
	putObjects(t, srv, bob, "acme-data", keys...)

	got := deleteObjects(t, srv, carl, "acme-data", keys...)
	for _, k := range keys {
		if got[k] != "AccessDenied" || !exists(t, srv, "acme-data", k) {
			t.Errorf("beta's carl deleting acme-data/%s: %q, exists %v; want AccessDenied and still there", k, got[k], exists(t, srv, "acme-data", k))
		}
	}

	if st, b := putPolicy(t, srv, ann, "acme-data", `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::beta:user/carl"},"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::acme-data/public/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::acme-data/keep/*"}]}`); st != 204 {
		t.Fatalf("put policy: %d %s", st, b)
	}
	got = deleteObjects(t, srv, carl, "acme-data", keys...)
	want := map[string]string{"public/a": "", "secret/b": "AccessDenied", "keep/c": "AccessDenied"}
	for _, k := range keys {
		if got[k] != want[k] || exists(t, srv, "acme-data", k) != (want[k] != "") {
			t.Errorf("carl, allowed public/*, deleting acme-data/%s: %q, want %q", k, got[k], want[k])
		}
	}
	// The owner meets the Deny on keep/ too; the rest it deletes.
	got = deleteObjects(t, srv, bob, "acme-data", "secret/b", "keep/c")
	if got["secret/b"] != "" || got["keep/c"] != "AccessDenied" || !exists(t, srv, "acme-data", "keep/c") {
		t.Errorf("owner bob under a Deny on keep/*: %v", got)
	}
}

// A user deleted and created again under its old name is a new principal:
// it owns none of the old one's buckets, holds none of its ACL grants and
// is matched by none of the policies that named the old one.
func TestRecreatedUserOwnsNothing(t *testing.T) {
	srv := start(t, nodetest.Options{})
	ctx := context.Background()
	ann := newUser(t, srv, "acme", "ann", "admin")
	bob := newUser(t, srv, "acme", "bob", "user")
	cy := newUser(t, srv, "acme", "cy", "user")
	for _, b := range []struct {
		who    creds
		bucket string
	}{{bob, "bob-data"}, {ann, "shared-data"}} {
		if st, body := do(t, srv, signed(t, srv, b.who, "PUT", "/"+b.bucket, nil, nil)); st != 200 {
			t.Fatalf("create %s: %d %s", b.bucket, st, body)
		}
		putObjects(t, srv, b.who, b.bucket, "k")
	}
	if st, b := putPolicy(t, srv, ann, "shared-data", `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},
		"Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::shared-data/*"}]}`); st != 204 {
		t.Fatalf("put policy: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, cy, "GET", "/shared-data/k", nil, nil)); st != 200 {
		t.Fatalf("cy reads what the policy grants: %d %s", st, b)
	}
	// And an object ACL grants cy, by canonical id, in a bucket with ACLs.
	a := adminClient(srv)
	var cyUser admin.User
	if err := a.Do(ctx, "GET", "/tenants/acme/users/cy", nil, &cyUser); err != nil {
		t.Fatal(err)
	}
	if st, b := do(t, srv, signed(t, srv, ann, "PUT", "/acl-data", nil, http.Header{"X-Amz-Object-Ownership": {"ObjectWriter"}})); st != 200 {
		t.Fatalf("create acl-data: %d %s", st, b)
	}
	grant := http.Header{"X-Amz-Grant-Read": {`id="` + cyUser.CanonicalID + `"`}}
	if st, b := do(t, srv, signed(t, srv, ann, "PUT", "/acl-data/g", []byte("granted"), grant)); st != 200 {
		t.Fatalf("put acl-data/g with a grant to cy: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, cy, "GET", "/acl-data/g", nil, nil)); st != 200 {
		t.Fatalf("cy reads what its ACL grant allows: %d %s", st, b)
	}

	for _, u := range []string{"bob", "cy"} {
		if err := a.Do(ctx, "DELETE", "/tenants/acme/users/"+u, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	bob2, cy2 := newUser(t, srv, "acme", "bob", "user"), newUser(t, srv, "acme", "cy", "user")

	out, err := sdk(srv, bob2).ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil || len(out.Buckets) != 0 {
		t.Fatalf("the new bob lists %+v (%v), want no bucket", out, err)
	}
	st, b := do(t, srv, signed(t, srv, bob2, "GET", "/bob-data/k", nil, nil))
	wantError(t, st, b, 403, "AccessDenied")
	if got := deleteObjects(t, srv, bob2, "bob-data", "k"); got["k"] != "AccessDenied" || !exists(t, srv, "bob-data", "k") {
		t.Errorf("the new bob deleting the old bob's object: %v", got)
	}
	_, err = sdk(srv, bob2).DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("bob-data")})
	if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Errorf("the new bob deleting the old bob's bucket: %v, want AccessDenied", err)
	}
	st, b = do(t, srv, signed(t, srv, cy2, "GET", "/shared-data/k", nil, nil))
	wantError(t, st, b, 403, "AccessDenied")
	st, b = do(t, srv, signed(t, srv, cy2, "GET", "/acl-data/g", nil, nil))
	wantError(t, st, b, 403, "AccessDenied")
	if got := deleteObjects(t, srv, cy2, "shared-data", "k"); got["k"] != "AccessDenied" {
		t.Errorf("the new cy deleting under the old cy's policy: %v", got)
	}
	// The tenant admin still reaches the bucket the old bob left.
	if st, b := do(t, srv, signed(t, srv, ann, "GET", "/bob-data/k", nil, nil)); st != 200 {
		t.Errorf("tenant admin reads bob-data/k: %d %s", st, b)
	}
	// Putting the policy again names the new cy; a principal that does
	// not exist is refused, as AWS.
	doc := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/%s"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::shared-data/*"}]}`
	if st, b := putPolicy(t, srv, ann, "shared-data", strings.Replace(doc, "%s", "cy", 1)); st != 204 {
		t.Fatalf("put policy again: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, cy2, "GET", "/shared-data/k", nil, nil)); st != 200 {
		t.Errorf("the new cy under a policy put since: %d %s", st, b)
	}
	st, b = putPolicy(t, srv, ann, "shared-data", strings.Replace(doc, "%s", "nobody", 1))
	wantError(t, st, b, 400, "MalformedPolicy")
}

// A policy that denies everything to everyone cannot lock the tenant out
// of its bucket: its admin, like an AWS account's root user, still reads
// and deletes the policy, while the bucket's owner (a user) stays denied
// until then.
func TestPolicyCannotLockOutTenantAdmin(t *testing.T) {
	srv := start(t, nodetest.Options{})
	ann := newUser(t, srv, "acme", "ann", "admin")
	bob := newUser(t, srv, "acme", "bob", "user")
	if st, b := do(t, srv, signed(t, srv, bob, "PUT", "/bob-data", nil, nil)); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	putObjects(t, srv, bob, "bob-data", "k")
	if st, b := putPolicy(t, srv, bob, "bob-data", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*",
		"Resource":["arn:aws:s3:::bob-data","arn:aws:s3:::bob-data/*"]}]}`); st != 204 {
		t.Fatalf("put deny-all policy: %d %s", st, b)
	}
	for _, r := range []struct{ method, path string }{{"GET", "/bob-data/k"}, {"GET", "/bob-data?policy"}, {"DELETE", "/bob-data?policy"}, {"PUT", "/bob-data?policy"}} {
		st, b := do(t, srv, signed(t, srv, bob, r.method, r.path, []byte(`{}`), nil))
		wantError(t, st, b, 403, "AccessDenied")
	}
	st, b := do(t, srv, signed(t, srv, ann, "GET", "/bob-data/k", nil, nil))
	wantError(t, st, b, 403, "AccessDenied") // the policy still binds the admin's other actions
	if st, b := do(t, srv, signed(t, srv, ann, "GET", "/bob-data?policy", nil, nil)); st != 200 || !strings.Contains(string(b), `"Deny"`) {
		t.Fatalf("tenant admin reads the policy: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, ann, "DELETE", "/bob-data?policy", nil, nil)); st != 204 {
		t.Fatalf("tenant admin deletes the policy: %d %s", st, b)
	}
	if st, b := do(t, srv, signed(t, srv, bob, "GET", "/bob-data/k", nil, nil)); st != 200 {
		t.Fatalf("owner reads once the policy is gone: %d %s", st, b)
	}
}
