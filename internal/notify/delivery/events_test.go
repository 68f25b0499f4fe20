package delivery_test

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// startWith starts a TLS node as startNode does, then applies more.
func startWith(t *testing.T, h *hook, more func(*node.Config)) *nodetest.Server {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "hook-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Notify.CAFile = ca
		c.Notify.RetryBackoff = 100 * time.Millisecond
		c.Notify.MaxAttempts = 1000
		c.Notify.Timeout = 5 * time.Second
		more(c)
	}})
}

// oneRecord is the one record of an event's document.
func oneRecord(t *testing.T, ev event) (rec, obj map[string]any) {
	t.Helper()
	recs, ok := ev.doc["Records"].([]any)
	if !ok || len(recs) != 1 {
		t.Fatalf("event %s: %v", ev.name, ev.doc)
	}
	rec = recs[0].(map[string]any)
	return rec, rec["s3"].(map[string]any)["object"].(map[string]any)
}

// Changes of a version's tags and ACL are notified as AWS does, after
// its creation and before its removal, each with the version's key, id
// and ETag (no size: the bytes did not change), in version 2.3 of the
// structure; a configuration's prefix and suffix filter them as any
// other event.
func TestTaggingAndACLEvents(t *testing.T) {
	h := newHook(t, "s")
	srv := startNode(t, h)
	c := client(srv)
	ctx := context.Background()
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL, Secret: "s", Tenants: []string{"*"}})
	const bucket = "tagged"
	createBucket(t, c, bucket)
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	// ACLs are honoured only where the bucket's ownership allows them.
	if _, err := c.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: aws.String(bucket),
		OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}}); err != nil {
		t.Fatal(err)
	}
	configure(t, c, bucket, topic("docs", hookARN, "docs/", ".txt",
		"s3:ObjectCreated:*", "s3:ObjectTagging:*", "s3:ObjectAcl:Put", "s3:ObjectRemoved:*"))
	waitFor(t, "the test event", func() bool { return len(h.events()) == 1 })

	tag := func(key string) {
		t.Helper()
		if _, err := c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("team"), Value: aws.String("blue")}}}}); err != nil {
			t.Fatalf("tag %s: %v", key, err)
		}
	}
	// Filtered out: another prefix, another suffix.
	for _, k := range []string{"other/a.txt", "docs/a.bin"} {
		put(t, c, bucket, k, "x")
		tag(k)
	}
	const key = "docs/a b.txt"
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte("first"))})
	if err != nil {
		t.Fatal(err)
	}
	version, etag := aws.ToString(out.VersionId), strings.Trim(aws.ToString(out.ETag), `"`)
	tag(key)
	if _, err := c.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: aws.String(bucket), Key: aws.String(key), ACL: types.ObjectCannedACLBucketOwnerFullControl}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObjectTagging(ctx, &s3.DeleteObjectTaggingInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"s3:ObjectCreated:Put", "s3:ObjectTagging:Put", "s3:ObjectAcl:Put", "s3:ObjectTagging:Delete", "s3:ObjectRemoved:DeleteMarkerCreated"}
	waitFor(t, "the key's events", func() bool { return len(h.events()) >= 1+len(want) })
	time.Sleep(time.Second) // nothing filtered out arrives after
	evs := h.events()[1:]
	if len(evs) != len(want) {
		names := []string{}
		for _, ev := range evs {
			names = append(names, ev.name+" "+ev.key)
		}
		t.Fatalf("events %v, want %v", names, want)
	}
	for i, ev := range evs {
		rec, obj := oneRecord(t, ev)
		if ev.name != want[i] || rec["eventName"] != strings.TrimPrefix(want[i], "s3:") || obj["key"] != "docs/a+b.txt" {
			t.Fatalf("event %d: %s %v, want %s", i, ev.name, rec, want[i])
		}
		if i == 0 || i == len(want)-1 {
			continue
		}
		// The version changed: its id and ETag, no size, version 2.3.
		if rec["eventVersion"] != "2.3" || obj["versionId"] != version || obj["eTag"] != etag || obj["size"] != nil ||
			rec["s3"].(map[string]any)["configurationId"] != "docs" {
			t.Fatalf("%s record %v, want version %s and ETag %s", ev.name, rec, version, etag)
		}
		if p := rec["userIdentity"].(map[string]any)["principalId"]; p == "" || p == "s3.amazonaws.com" {
			t.Fatalf("%s made by %v", ev.name, p)
		}
	}
	// Their sequencers order them as they happened.
	var last string
	for _, ev := range evs {
		_, obj := oneRecord(t, ev)
		seq := obj["sequencer"].(string)
		if seq <= last {
			t.Fatalf("sequencer %s after %s", seq, last)
		}
		last = seq
	}
}

// A transition driven by the lifecycle worker is notified once, by the
// lifecycle (principal s3.amazonaws.com), with the class it moved to in
// lifecycleEventData, after the switch; objects the configuration's
// prefix leaves out move without one.
func TestLifecycleTransitionEvent(t *testing.T) {
	h := newHook(t, "s")
	srv := startWith(t, h, func(c *node.Config) {
		fast, cold := filepath.Join(c.DataDir, "fast"), filepath.Join(c.DataDir, "cold")
		c.Platforms = map[string]platform.Spec{"fast": {Type: platform.TypeFS, Path: fast}, "cold": {Type: platform.TypeFS, Path: cold}}
		c.DefaultPlatform = "fast"
		c.StorageClasses = storageclass.Map{storageclass.GlacierIR: "cold"}
		c.Lifecycle = node.LifecycleConfig{Day: time.Second, Interval: 200 * time.Millisecond}
	})
	c := client(srv)
	ctx := context.Background()
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL, Secret: "s", Tenants: []string{"*"}})
	const bucket = "tiered"
	createBucket(t, c, bucket)
	configure(t, c, bucket, topic("moves", hookARN, "t/", "", "s3:LifecycleTransition"))
	waitFor(t, "the test event", func() bool { return len(h.events()) == 1 })
	body := strings.Repeat("x", 200<<10) // over AWS's 128 KiB minimum
	etag := strings.Trim(put(t, c, bucket, "t/big", body), `"`)
	put(t, c, bucket, "keep/big", body)
	if _, err := c.PutBucketLifecycleConfiguration(ctx, &s3.PutBucketLifecycleConfigurationInput{Bucket: aws.String(bucket),
		LifecycleConfiguration: &types.BucketLifecycleConfiguration{Rules: []types.LifecycleRule{{ID: aws.String("tier"),
			Status: types.ExpirationStatusEnabled, Filter: &types.LifecycleRuleFilter{Prefix: aws.String("")},
			Transitions: []types.Transition{{Days: aws.Int32(1), StorageClass: types.TransitionStorageClassGlacierIr}}}}}}); err != nil {
		t.Fatal(err)
	}
	moved := func(key string) bool {
		hd, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		return err == nil && hd.StorageClass == types.StorageClassGlacierIr
	}
	waitFor(t, "both objects moved", func() bool { return moved("t/big") && moved("keep/big") })
	waitFor(t, "the transition's event", func() bool { return len(h.events()) >= 2 })
	time.Sleep(2 * time.Second) // ten more lifecycle passes: no second event
	evs := h.events()
	if len(evs) != 2 {
		t.Fatalf("%d events after the test event, want 1", len(evs)-1)
	}
	rec, obj := oneRecord(t, evs[1])
	data, _ := rec["lifecycleEventData"].(map[string]any)
	tr, _ := data["transitionEventData"].(map[string]any)
	if evs[1].name != "s3:LifecycleTransition" || rec["eventName"] != "LifecycleTransition" || rec["eventVersion"] != "2.3" ||
		obj["key"] != "t/big" || obj["eTag"] != etag || obj["size"] != float64(len(body)) ||
		tr["destinationStorageClass"] != "GLACIER_IR" ||
		rec["userIdentity"].(map[string]any)["principalId"] != "s3.amazonaws.com" {
		t.Fatalf("transition record %v", rec)
	}
}

// A version the configuration's writer may not write at the destination
// is FAILED, and its failure notified once, with AWS's
// replicationEventData: the rule, the destination, the operation, when
// the version was written, and why (DstPutObjectNotPermitted).
func TestReplicationFailedEvent(t *testing.T) {
	h := newHook(t, "s")
	srv := startWith(t, h, func(c *node.Config) {
		c.Replication = node.ReplicationConfig{Poll: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond}
	})
	ctx := context.Background()
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL, Secret: "s", Tenants: []string{"*"}})
	ac := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	var k admin.Key
	for _, step := range []func() error{
		func() error { return ac.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil) },
		func() error {
			return ac.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil)
		},
		func() error { return ac.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	base := client(srv)
	c := s3.New(base.Options(), func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(k.AccessKey, k.SecretKey, "")
	})
	for _, b := range []string{"acme-src", "acme-dst"} {
		createBucket(t, c, b)
		if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(b),
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: aws.String("acme-src"),
		ReplicationConfiguration: &types.ReplicationConfiguration{Role: aws.String("arn:aws:iam::000000000000:role/replication"),
			Rules: []types.ReplicationRule{{ID: aws.String("to-dst"), Priority: aws.Int32(1), Status: types.ReplicationRuleStatusEnabled,
				Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("")},
				DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusDisabled},
				Destination:             &types.Destination{Bucket: aws.String("arn:aws:s3:::acme-dst")}}}}}); err != nil {
		t.Fatal(err)
	}
	configure(t, c, "acme-src", topic("failures", hookARN, "", "", "s3:Replication:OperationFailedReplication"))
	waitFor(t, "the test event", func() bool { return len(h.events()) == 1 })
	// Since the configuration was put, the destination refuses the writer.
	if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String("acme-dst"), Policy: aws.String(
		`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:ReplicateObject","Resource":"arn:aws:s3:::acme-dst/*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("acme-src"), Key: aws.String("k"), Body: strings.NewReader("data")})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the version FAILED", func() bool {
		hd, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("acme-src"), Key: aws.String("k")})
		return err == nil && hd.ReplicationStatus == types.ReplicationStatusFailed
	})
	waitFor(t, "the failure's event", func() bool { return len(h.events()) >= 2 })
	time.Sleep(time.Second)
	evs := h.events()
	if len(evs) != 2 {
		t.Fatalf("%d events after the test event, want 1", len(evs)-1)
	}
	rec, obj := oneRecord(t, evs[1])
	data, _ := rec["replicationEventData"].(map[string]any)
	if evs[1].name != "s3:Replication:OperationFailedReplication" || rec["eventName"] != "Replication:OperationFailedReplication" ||
		rec["eventVersion"] != "2.2" || obj["key"] != "k" || obj["versionId"] != aws.ToString(out.VersionId) ||
		obj["eTag"] != strings.Trim(aws.ToString(out.ETag), `"`) || obj["size"] != 4.0 {
		t.Fatalf("failure record %v", rec)
	}
	if data["replicationRuleId"] != "to-dst" || data["destinationBucket"] != "arn:aws:s3:::acme-dst" ||
		data["s3Operation"] != "PutObject" || data["failureReason"] != "DstPutObjectNotPermitted" {
		t.Fatalf("replicationEventData %v", data)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z", fmt.Sprint(data["requestTime"]))
	if err != nil || at.Before(before) || at.After(time.Now()) {
		t.Fatalf("requestTime %v: %v", data["requestTime"], err)
	}
}
