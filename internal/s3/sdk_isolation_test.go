package s3_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// tenancy is a node with two tenants: acme (ann, admin; bob and cy,
// users; two application credentials of bob's on his bucket) and beta
// (carl). Buckets acme-bob and beta-carl hold an object "k".
type tenancy struct {
	srv     *nodetest.Server
	admin   *admin.Client
	clients map[string]*s3.Client // by identity name; "anonymous" signs nothing
}

func newTenancy(t *testing.T, config ...func(*node.Config)) *tenancy {
	t.Helper()
	ctx := context.Background()
	opt := nodetest.Options{TLS: true}
	if len(config) > 0 {
		opt.Config = config[0]
	}
	srv := nodetest.Start(t, opt)
	ten := &tenancy{srv: srv, admin: admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()),
		clients: map[string]*s3.Client{"root": client(t, srv, srv.URL, false)}}
	do := func(method, path string, in, out any) {
		t.Helper()
		if err := ten.admin.Do(ctx, method, path, in, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	key := func(name, tenant, user string) {
		var k admin.Key
		do("POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k)
		ten.clients[name] = client(t, srv, srv.URL, false, k.AccessKey, k.SecretKey)
	}
	for _, tn := range []string{"acme", "beta"} {
		do("POST", "/tenants", map[string]string{"name": tn}, nil)
	}
	for _, u := range []struct{ tenant, name, role string }{{"acme", "ann", "admin"}, {"acme", "bob", "user"}, {"acme", "cy", "user"}, {"beta", "carl", "user"}} {
		do("POST", "/tenants/"+u.tenant+"/users", map[string]string{"name": u.name, "role": u.role}, nil)
		key(u.name, u.tenant, u.name)
	}
	anon := client(t, srv, srv.URL, false)
	ten.clients["anonymous"] = s3.New(anon.Options(), func(o *s3.Options) { o.Credentials = aws.AnonymousCredentials{} })
	for _, b := range []struct{ owner, name string }{{"bob", "acme-bob"}, {"carl", "beta-carl"}} {
		c := ten.clients[b.owner]
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.name)}); err != nil {
			t.Fatalf("%s creates %s: %v", b.owner, b.name, err)
		}
		put(t, c, b.name, "k", []byte("data of "+b.name))
	}
	// Application credentials name buckets that exist, their tenant's.
	for _, ro := range []bool{true, false} {
		var k admin.Key
		do("POST", "/tenants/acme/users/bob/appcreds", map[string]any{"buckets": []string{"acme-bob"}, "read_only": ro}, &k)
		ten.clients[map[bool]string{true: "app-ro", false: "app-rw"}[ro]] = client(t, srv, srv.URL, false, k.AccessKey, k.SecretKey)
	}
	return ten
}

// canonicalID is the canonical id the admin API reports for tenant/user:
// random, so tests ask rather than derive it.
func (ten *tenancy) canonicalID(t *testing.T, tenant, user string) string {
	t.Helper()
	var u admin.User
	if err := ten.admin.Do(context.Background(), "GET", "/tenants/"+tenant+"/users/"+user, nil, &u); err != nil || u.CanonicalID == "" {
		t.Fatalf("canonical id of %s/%s: %+v %v", tenant, user, u, err)
	}
	return u.CanonicalID
}

// opGroups are the S3 operation groups of the matrix. Each returns the
// S3 error code, "" on success.
var opGroups = []struct {
	name string
	do   func(c *s3.Client, bucket, who string) error
}{
	{"ListObjects", func(c *s3.Client, b, _ string) error {
		_, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: &b})
		return err
	}},
	{"GetObject", func(c *s3.Client, b, _ string) error {
		out, err := c.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &b, Key: aws.String("k")})
		if err == nil {
			out.Body.Close()
		}
		return err
	}},
	{"PutObject", func(c *s3.Client, b, who string) error {
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &b, Key: aws.String("w-" + who), Body: bytes.NewReader([]byte("x"))})
		return err
	}},
	{"DeleteObject", func(c *s3.Client, b, who string) error {
		_, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &b, Key: aws.String("w-" + who)})
		return err
	}},
	{"Multipart", func(c *s3.Client, b, who string) error {
		_, err := c.CreateMultipartUpload(context.Background(), &s3.CreateMultipartUploadInput{Bucket: &b, Key: aws.String("mp-" + who)})
		return err
	}},
	{"CopyFrom", func(c *s3.Client, b, who string) error {
		// Reading b by copying into a bucket everyone may write: the
		// root's scratch bucket is no use (most may not write it), so
		// copy within b itself, which needs read and write.
		_, err := c.CopyObject(context.Background(), &s3.CopyObjectInput{Bucket: &b, Key: aws.String("c-" + who), CopySource: aws.String(b + "/k")})
		return err
	}},
	{"GetBucketAcl", func(c *s3.Client, b, _ string) error {
		_, err := c.GetBucketAcl(context.Background(), &s3.GetBucketAclInput{Bucket: &b})
		return err
	}},
	{"PutBucketAcl", func(c *s3.Client, b, _ string) error {
		// Sets the ACL the bucket has already (beta-shared is public-read,
		// the others private), so an allowed cell changes nothing.
		acl := types.BucketCannedACLPrivate
		if b == "beta-shared" {
			acl = types.BucketCannedACLPublicRead
		}
		_, err := c.PutBucketAcl(context.Background(), &s3.PutBucketAclInput{Bucket: &b, ACL: acl})
		return err
	}},
	{"DeleteBucket", func(c *s3.Client, b, _ string) error {
		// The bucket is not empty: an allowed caller meets BucketNotEmpty,
		// so the matrix never deletes what the next cell needs.
		_, err := c.DeleteBucket(context.Background(), &s3.DeleteBucketInput{Bucket: &b})
		return err
	}},
}

// share makes beta-shared, carl's bucket with grants: its policy gives
// acme's user cy read and write, its ACL and the ACL of its object "k"
// give everyone read (ACLs enabled with ObjectWriter, public access
// block lifted).
func (ten *tenancy) share(t *testing.T) {
	t.Helper()
	ctx, carl, b := context.Background(), ten.clients["carl"], aws.String("beta-shared")
	steps := []func() error{
		func() error {
			_, err := carl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: b, ObjectOwnership: types.ObjectOwnershipObjectWriter})
			return err
		},
		func() error {
			_, err := carl.DeletePublicAccessBlock(ctx, &s3.DeletePublicAccessBlockInput{Bucket: b})
			return err
		},
		func() error {
			_, err := carl.PutBucketAcl(ctx, &s3.PutBucketAclInput{Bucket: b, ACL: types.BucketCannedACLPublicRead})
			return err
		},
		func() error {
			_, err := carl.PutObject(ctx, &s3.PutObjectInput{Bucket: b, Key: aws.String("k"), Body: strings.NewReader("shared"), ACL: types.ObjectCannedACLPublicRead})
			return err
		},
		func() error {
			return putPolicy(t, carl, *b, `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},
				"Action":["s3:ListBucket","s3:GetObject","s3:PutObject","s3:DeleteObject"],"Resource":["arn:aws:s3:::beta-shared","arn:aws:s3:::beta-shared/*"]}]}`)
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("sharing beta-shared, step %d: %v", i, err)
		}
	}
}

// TestIsolationMatrix: every identity kind x every operation group x own
// tenant's, other tenant's and granted bucket, each cell the exact
// outcome.
func TestIsolationMatrix(t *testing.T) {
	ten := newTenancy(t)
	ten.share(t)
	expect := isolationExpect()
	for who, byBucket := range expect {
		for bucket, want := range byBucket {
			for i, g := range opGroups {
				err := g.do(ten.clients[who], bucket, who)
				if got := apiCode(err); got != want[i] || (want[i] == "" && err != nil) {
					t.Errorf("%s %s on %s: got %q (%v), want %q", who, g.name, bucket, got, err, want[i])
				}
			}
		}
	}
}

// ListBuckets shows each identity what it may see, and CreateBucket is
// for people, not application credentials.
func TestIsolationBucketList(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	want := map[string]string{
		"root": "acme-bob beta-carl", "ann": "acme-bob", "bob": "acme-bob", "cy": "",
		"app-ro": "acme-bob", "app-rw": "acme-bob", "carl": "beta-carl",
	}
	for who, names := range want {
		out, err := ten.clients[who].ListBuckets(ctx, &s3.ListBucketsInput{})
		if err != nil {
			t.Fatalf("%s ListBuckets: %v", who, err)
		}
		var got []string
		for _, b := range out.Buckets {
			got = append(got, *b.Name)
		}
		if strings.Join(got, " ") != names {
			t.Errorf("%s sees %v, want %q", who, got, names)
		}
	}
	_, err := ten.clients["anonymous"].ListBuckets(ctx, &s3.ListBucketsInput{})
	wantCode(t, err, "AccessDenied")

	for who, code := range map[string]string{"ann": "", "cy": "", "app-rw": "AccessDenied", "app-ro": "AccessDenied", "anonymous": "AccessDenied"} {
		name := "cb-" + strings.ReplaceAll(who, "app-", "app")
		_, err := ten.clients[who].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &name})
		if apiCode(err) != code || (code == "" && err != nil) {
			t.Errorf("%s CreateBucket: %v, want %q", who, err, code)
		}
	}
	// A bucket name is global: beta cannot take acme's, and learns only
	// that it is taken.
	_, err = ten.clients["carl"].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "BucketAlreadyExists")
	_, err = ten.clients["root"].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("admin")})
	wantCode(t, err, "BucketAlreadyExists")
	// The owner in listings is the creating user's canonical id.
	out, err := ten.clients["bob"].ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("acme-bob"), FetchOwner: aws.Bool(true)})
	if err != nil || len(out.Contents) == 0 || out.Contents[0].Owner == nil || *out.Contents[0].Owner.ID == "" {
		t.Fatalf("listing with owner: %+v, %v", out, err)
	}
	var users []admin.User
	if err := ten.admin.Do(ctx, "GET", "/tenants/acme/users", nil, &users); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(users, func(u admin.User) bool { return u.Name == "bob" })
	if *out.Contents[0].Owner.ID != users[i].CanonicalID {
		t.Errorf("owner %s, want bob's canonical id %s", *out.Contents[0].Owner.ID, users[i].CanonicalID)
	}
}

// TestIsolationDeleteObjects: DeleteObjects decides each key against its
// own ARN, as DeleteObject does, and reports a refused key as
// AccessDenied in its result while the others are deleted (AWS answers
// 200 with per-key errors, even to a caller who may delete nothing). An
// anonymous caller no policy lets delete is refused with 403 before its
// body is read: anonymous clients may not make the node read documents
// they cannot send.
// beta-shared's policy lets acme's cy delete under public/ only and
// denies deletion under keep/ to everyone, its owner carl included.
func TestIsolationDeleteObjects(t *testing.T) {
	ten := newTenancy(t)
	ten.share(t)
	ctx, root := context.Background(), ten.clients["root"]
	err := putPolicy(t, ten.clients["carl"], "beta-shared", `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":["s3:ListBucket","s3:GetObject","s3:PutObject"],
		 "Resource":["arn:aws:s3:::beta-shared","arn:aws:s3:::beta-shared/*"]},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":"s3:DeleteObject","Resource":"arn:aws:s3:::beta-shared/public/*"},
		{"Effect":"Deny","Principal":"*","Action":"s3:DeleteObject","Resource":"arn:aws:s3:::beta-shared/keep/*"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"public/a", "keep/a", "other/a"}
	const ok, denied = "", "AccessDenied"
	// want[identity][bucket] is the outcome per key, in keys' order.
	all, none := []string{ok, ok, ok}, []string{denied, denied, denied}
	want := map[string]map[string][]string{
		"root":      {"acme-bob": all, "beta-shared": all},
		"ann":       {"acme-bob": all, "beta-shared": none},
		"bob":       {"acme-bob": all, "beta-shared": none}, // public-read grants READ, not WRITE
		"cy":        {"acme-bob": none, "beta-shared": {ok, denied, denied}},
		"carl":      {"acme-bob": none, "beta-shared": {ok, denied, ok}}, // the owner, but the Deny wins
		"app-rw":    {"acme-bob": all, "beta-shared": none},
		"app-ro":    {"acme-bob": none, "beta-shared": none},
		"anonymous": {"acme-bob": nil, "beta-shared": nil}, // 403 before the body
	}
	for who, byBucket := range want {
		for bucket, codes := range byBucket {
			ids := make([]types.ObjectIdentifier, len(keys))
			for i, k := range keys {
				put(t, root, bucket, k, []byte(k))
				ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
			}
			out, err := ten.clients[who].DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: ids}})
			if codes == nil {
				wantCode(t, err, "AccessDenied")
				for _, k := range keys {
					if _, err := root.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)}); err != nil {
						t.Errorf("%s DeleteObjects refused, but %s/%s is gone: %v", who, bucket, k, err)
					}
				}
				continue
			}
			if err != nil {
				t.Errorf("%s DeleteObjects on %s: %v, want 200 with per-key results", who, bucket, err)
				continue
			}
			got := map[string]string{}
			for _, d := range out.Deleted {
				got[*d.Key] = ok
			}
			for _, e := range out.Errors {
				got[*e.Key] = *e.Code
			}
			for i, k := range keys {
				code, reported := got[k]
				if !reported || code != codes[i] {
					t.Errorf("%s DeleteObjects %s/%s: got %q (reported %v), want %q", who, bucket, k, code, reported, codes[i])
				}
				_, herr := root.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
				if exists := herr == nil; exists != (codes[i] == denied) {
					t.Errorf("after %s's DeleteObjects, %s/%s exists: %v (%v)", who, bucket, k, exists, herr)
				}
			}
		}
	}
}

// TestIsolationObjectActionsUseTheirKey: every object action is decided
// on its own object's ARN, not the bucket's: multipart calls on the
// upload's key, CopyObject and UploadPartCopy read their source as
// s3:GetObject on the source key (whose own ACL may grant it), and object
// ACL calls on the object's key. cy's policy on beta-shared reaches up/*
// for writes and pub/* for reads only.
func TestIsolationObjectActionsUseTheirKey(t *testing.T) {
	ten := newTenancy(t)
	ten.share(t)
	ctx, carl, cy := context.Background(), ten.clients["carl"], ten.clients["cy"]
	b := aws.String("beta-shared")
	err := putPolicy(t, carl, *b, `{"Statement":[
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},
		 "Action":["s3:PutObject","s3:AbortMultipartUpload","s3:ListMultipartUploadParts"],"Resource":"arn:aws:s3:::beta-shared/up/*"},
		{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":["s3:GetObject","s3:GetObjectAcl"],"Resource":"arn:aws:s3:::beta-shared/pub/*"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pub/src", "other/src"} {
		put(t, carl, *b, k, []byte("source "+k))
	}
	upload := func(c *s3.Client, key string) *string {
		t.Helper()
		out, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String(key)})
		if err != nil {
			t.Fatalf("CreateMultipartUpload %s: %v", key, err)
		}
		return out.UploadId
	}
	// Uploads of carl's (the owner) under up/ and elsewhere.
	up, no := upload(carl, "up/x"), upload(carl, "no/x")
	part := func(key string, id *string) error {
		_, err := cy.UploadPart(ctx, &s3.UploadPartInput{Bucket: b, Key: aws.String(key), UploadId: id, PartNumber: aws.Int32(1), Body: strings.NewReader("p")})
		return err
	}
	listParts := func(key string, id *string) error {
		_, err := cy.ListParts(ctx, &s3.ListPartsInput{Bucket: b, Key: aws.String(key), UploadId: id})
		return err
	}
	partCopy := func(src string) error {
		_, err := cy.UploadPartCopy(ctx, &s3.UploadPartCopyInput{Bucket: b, Key: aws.String("up/x"), UploadId: up, PartNumber: aws.Int32(2), CopySource: aws.String("beta-shared/" + src)})
		return err
	}
	copyObj := func(src, dst string) error {
		_, err := cy.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String(dst), CopySource: aws.String("beta-shared/" + src)})
		return err
	}
	getACL := func(key string) error {
		_, err := cy.GetObjectAcl(ctx, &s3.GetObjectAclInput{Bucket: b, Key: aws.String(key)})
		return err
	}
	const ok, denied = "", "AccessDenied"
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"CreateMultipartUpload up/y", func() error {
			_, err := cy.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("up/y")})
			return err
		}(), ok},
		{"CreateMultipartUpload no/y", func() error {
			_, err := cy.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: b, Key: aws.String("no/y")})
			return err
		}(), denied},
		{"UploadPart up/x", part("up/x", up), ok},
		{"UploadPart no/x", part("no/x", no), denied},
		{"ListParts up/x", listParts("up/x", up), ok},
		{"ListParts no/x", listParts("no/x", no), denied},
		{"UploadPartCopy from pub/src", partCopy("pub/src"), ok},
		{"UploadPartCopy from other/src", partCopy("other/src"), denied},
		{"UploadPartCopy from k (its ACL is public-read)", partCopy("k"), ok},
		{"CopyObject pub/src to up/c", copyObj("pub/src", "up/c"), ok},
		{"CopyObject other/src to up/c", copyObj("other/src", "up/c"), denied},
		{"CopyObject k to up/c (its ACL is public-read)", copyObj("k", "up/c"), ok},
		{"CopyObject pub/src to no/c", copyObj("pub/src", "no/c"), denied},
		{"GetObjectAcl pub/src", getACL("pub/src"), ok},
		{"GetObjectAcl other/src", getACL("other/src"), denied},
		{"CompleteMultipartUpload no/x", func() error {
			_, err := cy.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: b, Key: aws.String("no/x"), UploadId: no,
				MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: aws.String(`"x"`)}}}})
			return err
		}(), denied},
		{"AbortMultipartUpload no/x", func() error {
			_, err := cy.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: b, Key: aws.String("no/x"), UploadId: no})
			return err
		}(), denied},
		{"AbortMultipartUpload up/x", func() error {
			_, err := cy.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: b, Key: aws.String("up/x"), UploadId: up})
			return err
		}(), ok},
	} {
		if got := apiCode(c.err); got != c.want || (c.want == ok && c.err != nil) {
			t.Errorf("cy %s: %q (%v), want %q", c.name, got, c.err, c.want)
		}
	}
}

// isolationExpect is the matrix's expected outcomes: per identity and
// bucket, the S3 error code of each of opGroups ("" = success). The
// console's column (console_isolation_test.go) holds its API to them.
func isolationExpect() map[string]map[string][]string {
	const (
		ok     = ""
		denied = "AccessDenied"
	)
	// expect[identity][bucket] lists the outcome per group, in opGroups'
	// order: ListObjects GetObject PutObject DeleteObject Multipart
	// CopyFrom GetBucketAcl PutBucketAcl DeleteBucket.
	all := []string{ok, ok, ok, ok, ok, ok, ok, ok, "BucketNotEmpty"}
	none := []string{denied, denied, denied, denied, denied, denied, denied, denied, denied}
	// beta-shared's public-read ACL grants READ, not READ_ACP; its policy
	// gives cy objects, not the bucket's settings.
	publicRead := []string{ok, ok, denied, denied, denied, denied, denied, denied, denied}
	policyReadWrite := []string{ok, ok, ok, ok, ok, ok, denied, denied, denied}
	// Application credentials stay within their buckets whatever is
	// granted elsewhere, and never change who else may reach them.
	appRead := []string{ok, ok, denied, denied, denied, denied, ok, denied, denied}
	appReadWrite := []string{ok, ok, ok, ok, ok, ok, ok, denied, denied}
	expect := map[string]map[string][]string{
		"root":      {"acme-bob": all, "beta-carl": all, "beta-shared": all},
		"ann":       {"acme-bob": all, "beta-carl": none, "beta-shared": publicRead},       // tenant admin
		"bob":       {"acme-bob": all, "beta-carl": none, "beta-shared": publicRead},       // owner
		"cy":        {"acme-bob": none, "beta-carl": none, "beta-shared": policyReadWrite}, // colleague
		"app-ro":    {"acme-bob": appRead, "beta-carl": none, "beta-shared": none},
		"app-rw":    {"acme-bob": appReadWrite, "beta-carl": none, "beta-shared": none},
		"carl":      {"acme-bob": none, "beta-carl": all, "beta-shared": all},
		"anonymous": {"acme-bob": none, "beta-carl": none, "beta-shared": publicRead},
	}
	return expect
}
