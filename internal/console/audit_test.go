package console_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The console's calls that change a bucket's configuration or existence,
// or an object's protection, are in the audit log as the S3 calls that
// make the same change are (action, target, outcome), refused ones and
// governance bypasses asked for included.
func TestConsoleAuditsWhatS3Audits(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann, bob := onboard(t, srv, "acme")
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "ann-pass-2"})
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "vault", "object_lock": map[string]any{"mode": "GOVERNANCE", "days": 1}})
	ann.Must(200, "PUT", "/buckets/vault/settings/tags", map[string]any{"tags": []map[string]string{{"key": "team", "value": "web"}}})
	ann.Must(204, "DELETE", "/buckets/vault/settings/tags", nil)
	cors := map[string]any{"rules": []map[string]any{{"origins": []string{"https://app.example"}, "methods": []string{"GET"}}}}
	ann.Must(200, "PUT", "/buckets/vault/settings/cors", cors)
	if r := bob.Do("PUT", "/buckets/vault/settings/cors", cors); r.Status != 403 {
		t.Fatalf("bob changes ann's CORS: %d %s", r.Status, r.Body)
	}
	ann.Must(204, "DELETE", "/buckets/vault/settings/cors", nil)
	ann.Must(200, "PUT", "/buckets/vault/settings/object-lock", map[string]any{"enabled": true, "mode": "GOVERNANCE", "days": 2})
	var o struct {
		VersionID string `json:"version_id"`
	}
	ann.Must(200, "PUT", "/buckets/vault/object?key=doc", []byte("keep me")).JSON(t, &o)
	docV := o.VersionID
	lock := "/buckets/vault/lock?key=doc&version=" + docV
	ann.Must(200, "PUT", lock, map[string]any{"legal_hold": true})
	del := "/buckets/vault/object?key=doc&version=" + docV
	if r := ann.Do("DELETE", del, nil, "X-Bypass-Governance", "true"); r.Status != 403 {
		t.Fatalf("a bypass past a legal hold: %d %s", r.Status, r.Body)
	}
	ann.Must(200, "PUT", lock, map[string]any{"legal_hold": false})
	ann.Must(200, "PUT", lock, map[string]any{"set_retention": true, "mode": "GOVERNANCE", "retain_until": "2099-01-01T00:00:00Z"})
	ann.Must(200, "PUT", "/buckets/vault/object?key=two", []byte("two")).JSON(t, &o)
	ann.Must(200, "PUT", lock, map[string]any{"legal_hold": true})
	ann.Must(200, "POST", "/buckets/vault/delete", map[string]any{"objects": []map[string]string{{"key": "two", "version_id": o.VersionID},
		{"key": "doc", "version_id": docV}}}, "X-Bypass-Governance", "true")
	if r := ann.Do("DELETE", "/buckets/vault", nil); r.Status != 409 {
		t.Fatalf("deleting a bucket that is not empty: %d %s", r.Status, r.Body)
	}
	ann.Must(201, "POST", "/buckets", map[string]any{"name": "gone"})
	ann.Must(204, "DELETE", "/buckets/gone", nil)

	var page admin.AuditPage
	if err := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client()).Do(context.Background(), "GET", "/audit?limit=1000", nil, &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range page.Entries {
		seen[e.Action+" "+e.Target+" "+e.Outcome+" "+e.User]++
	}
	doc := "bucket/vault/doc?versionId=" + url.QueryEscape(docV)
	for _, want := range []string{
		"s3:CreateBucket bucket/vault ok ann", "s3:PutObjectLockConfiguration bucket/vault ok ann",
		"s3:PutBucketTagging bucket/vault ok ann", "s3:DeleteBucketTagging bucket/vault ok ann",
		"s3:PutBucketCors bucket/vault ok ann", "s3:PutBucketCors bucket/vault AccessDenied bob", "s3:DeleteBucketCors bucket/vault ok ann",
		"s3:DeleteObjects bucket/vault AccessDenied ann",
		"s3:DeleteBucket bucket/vault BucketNotEmpty ann", "s3:CreateBucket bucket/gone ok ann", "s3:DeleteBucket bucket/gone ok ann",
	} {
		if seen[want] == 0 {
			t.Errorf("audit log lacks %q: %v", want, seen)
		}
	}
	// The object's entries name its version: the hold set, lifted and
	// set again, the retention, the refused bypass.
	for want, n := range map[string]int{"s3:PutObjectLegalHold " + doc + " ok ann": 3, "s3:PutObjectRetention " + doc + " ok ann": 1,
		"s3:DeleteObject " + doc + " AccessDenied ann": 1} {
		if seen[want] != n {
			t.Errorf("%d of %q, want %d: %v", seen[want], want, n, seen)
		}
	}
}
