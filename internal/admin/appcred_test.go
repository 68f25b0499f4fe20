package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// s3As is an SDK client of the node signing with the key.
func s3As(srv *nodetest.Server, k admin.Key) *s3.Client {
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(k.AccessKey, k.SecretKey, ""), HTTPClient: srv.Client()})
}

// An application credential names buckets of its own tenant that exist:
// a bucket that is not there is 404 NoSuchBucket, another tenant's (or
// the provider's) 403 AccessDenied, as S3 answers for such buckets, and
// no credential is made. One check in the service serves the API, the
// CLI and the console alike.
func TestAppCredNamesOnlyTheTenantsBuckets(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	for _, tn := range []string{"acme", "beta"} {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": tn}, nil))
		must(t, c.Do(ctx, "POST", "/tenants/"+tn+"/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	}
	var acme, beta admin.Key
	must(t, c.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &acme))
	must(t, c.Do(ctx, "POST", "/tenants/beta/users/ann/keys", nil, &beta))
	for _, b := range []struct {
		k    admin.Key
		name string
	}{{acme, "acme-photos"}, {beta, "beta-photos"}, {admin.Key{AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey}, "provider-photos"}} {
		if _, err := s3As(srv, b.k).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.name)}); err != nil {
			t.Fatalf("create %s: %v", b.name, err)
		}
	}
	ann := admin.NewClient(srv.URL, acme.AccessKey, acme.SecretKey, srv.Client())
	for _, who := range []*admin.Client{c, ann} {
		for _, tc := range []struct {
			buckets []string
			status  int
			code    string
		}{
			{[]string{"acme-photos", "no-such-bucket"}, http.StatusNotFound, "NoSuchBucket"},
			{[]string{"beta-photos"}, http.StatusForbidden, "AccessDenied"},
			{[]string{"acme-photos", "provider-photos"}, http.StatusForbidden, "AccessDenied"},
		} {
			err := who.Do(ctx, "POST", "/tenants/acme/users/ann/appcreds", map[string]any{"buckets": tc.buckets}, nil)
			wantCode(t, err, tc.status, tc.code)
			if err != nil && !strings.Contains(err.Error(), tc.buckets[len(tc.buckets)-1]) {
				t.Errorf("%v: the error does not name the bucket: %v", tc.buckets, err)
			}
		}
	}
	var keys []admin.Key
	must(t, c.Do(ctx, "GET", "/tenants/acme/users/ann/keys", nil, &keys))
	if len(keys) != 1 {
		t.Fatalf("refused credentials were made: %+v", keys)
	}
	var app admin.Key
	must(t, ann.Do(ctx, "POST", "/tenants/acme/users/ann/appcreds", map[string]any{"buckets": []string{"acme-photos"}}, &app))
	if _, err := s3As(srv, app).HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("acme-photos")}); err != nil {
		t.Errorf("the credential on its bucket: %v", err)
	}
}
