package s3_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
)

// The exported usage is the traffic the test sent: requests by class,
// bytes in and out, stored bytes and objects; refused requests (403) are
// not billed, as AWS does not bill them to the bucket owner.
func TestMeteringMatchesTraffic(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, b := ten.clients["bob"], aws.String("acme-bob")
	// Setup already sent CreateBucket and a PUT of "k" (16 bytes).
	for _, k := range []string{"a", "b", "c"} {
		put(t, bob, "acme-bob", k, bytes.Repeat([]byte("x"), 1000))
	}
	get(t, bob, "acme-bob", "a")
	get(t, bob, "acme-bob", "b")
	if _, err := bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String("c")}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := bob.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String("c")}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"cy", "anonymous"} {
		wantCode(t, opGroups[1].do(ten.clients[who], "acme-bob", who), "AccessDenied")
	}
	if err := ten.srv.Node.Meter.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	var u admin.Usage
	if err := ten.admin.Do(ctx, "GET", "/tenants/acme/usage", nil, &u); err != nil {
		t.Fatal(err)
	}
	var sum catalog.Traffic
	for _, r := range u.Rows {
		if r.Bucket != "acme-bob" {
			t.Fatalf("acme's usage has a row of %s", r.Bucket)
		}
		sum.Add(r.Traffic)
	}
	want := catalog.Traffic{Get: 3, Put: 5, List: 2, Delete: 1, BytesIn: 16 + 3000}
	got := sum
	got.BytesOut = 0
	if got != want {
		t.Fatalf("metered %+v, want %+v", sum, want)
	}
	// Out: two GETs of 1000 bytes, and two small listings.
	if sum.BytesOut < 2000 || sum.BytesOut > 2000+2*2048 {
		t.Fatalf("bytes out %d, want 2000 plus two listings", sum.BytesOut)
	}
	if u.Now != (catalog.Usage{Bytes: 2016, Objects: 3}) {
		t.Fatalf("stored now %+v, want 2016 bytes in 3 objects", u.Now)
	}
	if len(u.Rows) == 1 && (u.Rows[0].ByteHours != 2016 || u.Rows[0].Objects != 3) {
		t.Fatalf("hourly storage sample %+v, want 2016 byte-hours, 3 objects", u.Rows[0])
	}

	// beta saw none of it; the CSV export says the same as the JSON.
	var other admin.Usage
	if err := ten.admin.Do(ctx, "GET", "/tenants/beta/usage", nil, &other); err != nil {
		t.Fatal(err)
	}
	for _, r := range other.Rows {
		if r.Bucket != "beta-carl" {
			t.Fatalf("beta's usage has a row of %s", r.Bucket)
		}
	}
	raw, err := ten.admin.Raw(ctx, "GET", "/tenants/acme/usage?format=csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil || len(recs) != len(u.Rows)+1 || strings.Join(recs[0][:4], ",") != "tenant,bucket,hour,byte_hours" {
		t.Fatalf("CSV export:\n%s(%v)", raw, err)
	}
	if len(recs) == 2 && recs[1][5] != "3" { // get_requests
		t.Fatalf("CSV get_requests %s, want 3", recs[1][5])
	}
}
