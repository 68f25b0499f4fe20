package s3_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
)

// Suspending a tenant stops all its access at once, its own and anyone's
// to its buckets but the provider's; resuming restores it.
func TestSuspendedTenantLosesAllAccess(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	if err := ten.admin.Do(ctx, "POST", "/tenants/acme/suspend", nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"ann", "bob", "app-ro"} {
		_, err := ten.clients[who].ListBuckets(ctx, &s3.ListBucketsInput{})
		wantCode(t, err, "AccessDenied")
		err = opGroups[1].do(ten.clients[who], "acme-bob", who)
		wantCode(t, err, "AccessDenied")
	}
	if err := opGroups[1].do(ten.clients["root"], "acme-bob", "root"); err != nil {
		t.Fatalf("the provider reads a suspended tenant's object: %v", err)
	}
	if err := opGroups[1].do(ten.clients["carl"], "beta-carl", "carl"); err != nil {
		t.Fatalf("another tenant is unaffected: %v", err)
	}
	if err := ten.admin.Do(ctx, "POST", "/tenants/acme/resume", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := opGroups[1].do(ten.clients["bob"], "acme-bob", "bob"); err != nil {
		t.Fatalf("after resume: %v", err)
	}
}

// A rotated key keeps working for its grace period, then is refused as
// unknown (as AWS answers for an inactive key); disabling is immediate.
func TestKeyRotationGraceAndDisable(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	var keys []admin.Key
	if err := ten.admin.Do(ctx, "GET", "/tenants/beta/users/carl/keys", nil, &keys); err != nil || len(keys) != 1 {
		t.Fatalf("carl's keys: %v %v", keys, err)
	}
	old := keys[0].AccessKey
	var fresh admin.Key
	if err := ten.admin.Do(ctx, "POST", "/tenants/beta/users/carl/keys/"+old+"/rotate", map[string]int{"grace_seconds": 2}, &fresh); err != nil {
		t.Fatal(err)
	}
	if fresh.AccessKey == old || fresh.SecretKey == "" {
		t.Fatalf("rotation gave %+v", fresh)
	}
	newClient := client(t, ten.srv, ten.srv.URL, false, fresh.AccessKey, fresh.SecretKey)
	for who, c := range map[string]*s3.Client{"old key in grace": ten.clients["carl"], "new key": newClient} {
		if err := opGroups[1].do(c, "beta-carl", "carl"); err != nil {
			t.Fatalf("%s: %v", who, err)
		}
	}
	time.Sleep(2100 * time.Millisecond)
	wantCode(t, opGroups[1].do(ten.clients["carl"], "beta-carl", "carl"), "InvalidAccessKeyId")
	if err := opGroups[1].do(newClient, "beta-carl", "carl"); err != nil {
		t.Fatalf("new key after grace: %v", err)
	}

	if err := ten.admin.Do(ctx, "POST", "/tenants/beta/users/carl/keys/"+fresh.AccessKey+"/disable", nil, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, opGroups[1].do(newClient, "beta-carl", "carl"), "InvalidAccessKeyId")
	if err := ten.admin.Do(ctx, "POST", "/tenants/beta/users/carl/keys/"+fresh.AccessKey+"/enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := opGroups[1].do(newClient, "beta-carl", "carl"); err != nil {
		t.Fatalf("re-enabled key: %v", err)
	}
	if err := ten.admin.Do(ctx, "DELETE", "/tenants/beta/users/carl/keys/"+fresh.AccessKey, nil, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, opGroups[1].do(newClient, "beta-carl", "carl"), "InvalidAccessKeyId")
}

// Deleting a tenant that has buckets needs purge; purge takes the buckets
// and their objects, and the tenant's keys stop working.
func TestDeleteTenantWithPurge(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	err := ten.admin.Do(ctx, "DELETE", "/tenants/acme", nil, nil)
	if e, ok := err.(*admin.Error); !ok || e.Code != "TenantNotEmpty" {
		t.Fatalf("delete without purge: %v", err)
	}
	if err := ten.admin.Do(ctx, "DELETE", "/tenants/acme?purge=true", nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err = ten.clients["root"].HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("acme-bob")})
	wantCode(t, err, "NotFound")
	wantCode(t, opGroups[1].do(ten.clients["bob"], "beta-carl", "bob"), "InvalidAccessKeyId")
	// The name is free again, for anyone.
	if _, err := ten.clients["carl"].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatalf("reuse of a purged bucket's name: %v", err)
	}
	if err := opGroups[1].do(ten.clients["carl"], "beta-carl", "carl"); err != nil {
		t.Fatalf("the other tenant is untouched: %v", err)
	}
}
