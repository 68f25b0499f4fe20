package bench

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// policyStatements is the size of the policy measured: 20 statements,
// none of which grants the reader (the owner), so every request evaluates
// them all.
const policyStatements = 20

// tenantBucket starts a node with a tenant user owning a bucket of 256
// objects of 4 KiB, and returns a target signing as that user: the root
// would skip the policy altogether.
func tenantBucket(b *testing.B, policy string) *target {
	srv := nodetest.Start(b, nodetest.Options{})
	ctx := context.Background()
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, nil)
	var k admin.Key
	for _, call := range []struct {
		path string
		in   any
		out  any
	}{
		{"/tenants", map[string]string{"name": "acme"}, nil},
		{"/tenants/acme/users", map[string]string{"name": "alice"}, nil},
		{"/tenants/acme/users/alice/keys", nil, &k},
	} {
		if err := c.Do(ctx, "POST", call.path, call.in, call.out); err != nil {
			b.Fatal(err)
		}
	}
	t := newTarget(srv.URL)
	t.creds = aws.Credentials{AccessKeyID: k.AccessKey, SecretAccessKey: k.SecretKey}
	if _, err := t.do(ctx, http.MethodPut, "/bench", nil); err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 4<<10)
	for i := range 256 {
		if _, err := t.do(ctx, http.MethodPut, fmt.Sprintf("/bench/obj-%06d", i), body); err != nil {
			b.Fatal(err)
		}
	}
	if policy != "" {
		if _, err := t.do(ctx, http.MethodPut, "/bench?policy", []byte(policy)); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// twentyStatements grants other tenants' users reads under their own
// prefixes, with conditions, as a shared bucket's policy might.
func twentyStatements() string {
	var st []string
	for i := range policyStatements {
		st = append(st, fmt.Sprintf(`{"Sid":"s%d","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::partner%d:root"},
			"Action":["s3:GetObject","s3:ListBucket"],"Resource":"arn:aws:s3:::bench/partner%d/*",
			"Condition":{"IpAddress":{"aws:SourceIp":"10.%d.0.0/16"},"Bool":{"aws:SecureTransport":"false"}}}`, i, i, i, i))
	}
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(st, ",") + `]}`
}

// BenchmarkGet4KiBPolicy: small GETs by a tenant user on its own bucket,
// with no policy and with a policy of 20 statements, in one run.
func BenchmarkGet4KiBPolicy(b *testing.B) {
	get := func(t *target) func(context.Context, int64) (int64, error) {
		return func(ctx context.Context, i int64) (int64, error) {
			return t.do(ctx, http.MethodGet, fmt.Sprintf("/bench/obj-%06d", i%256), nil)
		}
	}
	none, twenty := get(tenantBucket(b, "")), get(tenantBucket(b, twentyStatements()))
	b.Run("policy=none", func(b *testing.B) { run(b, none) })
	b.Run(fmt.Sprintf("policy=%d-statements", policyStatements), func(b *testing.B) { run(b, twenty) })
}
