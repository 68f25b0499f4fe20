package s3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// lockedBucket creates bucket with object lock, as c.
func lockedBucket(t *testing.T, c *s3.Client, bucket string) {
	t.Helper()
	_, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &bucket, ObjectLockEnabledForBucket: aws.Bool(true)})
	if err != nil {
		t.Fatalf("create locked bucket %s: %v", bucket, err)
	}
}

// putLocked puts key with a retention (mode "" for none) and legal hold.
func putLocked(t *testing.T, c *s3.Client, bucket, key string, mode types.ObjectLockMode, until time.Time, hold bool) *s3.PutObjectOutput {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: bytes.NewReader([]byte("locked " + key))}
	if mode != "" {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = mode, &until
	}
	if hold {
		in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatusOn
	}
	out, err := c.PutObject(context.Background(), in)
	if err != nil {
		t.Fatalf("put locked %s: %v", key, err)
	}
	return out
}

// deleteVersion deletes one version for good: in a bucket with lock
// (so versioning), DeleteObject without a version id only writes a
// delete marker, which no lock stops, as on AWS.
func deleteVersion(c *s3.Client, bucket, key, version string, bypass bool) error {
	in := &s3.DeleteObjectInput{Bucket: &bucket, Key: &key, VersionId: &version}
	if bypass {
		in.BypassGovernanceRetention = aws.Bool(true)
	}
	_, err := c.DeleteObject(context.Background(), in)
	return err
}

func headLock(t *testing.T, c *s3.Client, bucket, key string) *s3.HeadObjectOutput {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	return out
}

// CreateBucket with x-amz-bucket-object-lock-enabled makes a bucket with
// lock; its configuration is read and set as AWS's; a bucket without
// lock has none, takes no lock settings, and cannot get one while its
// versioning is not Enabled.
func TestObjectLockBucket(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{TLS: true}, "plain")
	ctx := context.Background()
	lockedBucket(t, c, "vault")

	got, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("vault")})
	if err != nil || got.ObjectLockConfiguration.ObjectLockEnabled != types.ObjectLockEnabledEnabled || got.ObjectLockConfiguration.Rule != nil {
		t.Fatalf("GetObjectLockConfiguration = %+v, %v", got, err)
	}
	_, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("plain")})
	wantCode(t, err, "ObjectLockConfigurationNotFoundError")
	// Lock turns versioning on for good, as AWS.
	v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: aws.String("vault")})
	if err != nil || v.Status != types.BucketVersioningStatusEnabled {
		t.Fatalf("versioning of a locked bucket = %+v, %v", v, err)
	}
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("vault"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
	wantCode(t, err, "InvalidBucketState")

	conf := func(mode types.ObjectLockRetentionMode, days, years *int32) *types.ObjectLockConfiguration {
		return &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: mode, Days: days, Years: years}}}
	}
	putConf := func(bucket string, c3 *types.ObjectLockConfiguration) error {
		_, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: &bucket, ObjectLockConfiguration: c3})
		return err
	}
	// As AWS: lock on an existing bucket needs its versioning Enabled.
	wantCode(t, putConf("plain", &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled}), "InvalidBucketState")
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("later")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("later"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	if err := putConf("later", &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled}); err != nil {
		t.Fatalf("lock on a bucket whose versioning is Enabled: %v", err)
	}
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("later"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
	wantCode(t, err, "InvalidBucketState")
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeGovernance, aws.Int32(1), aws.Int32(1))), "MalformedXML")
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeGovernance, nil, nil)), "MalformedXML")
	// AWS's codes (as the s3-tests suite checks them against AWS): a
	// period of zero or less is InvalidRetentionPeriod, a mode AWS does
	// not spell (lower case included) MalformedXML.
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeGovernance, aws.Int32(0), nil)), "InvalidRetentionPeriod")
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeGovernance, aws.Int32(-2), nil)), "InvalidRetentionPeriod")
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeCompliance, nil, aws.Int32(0))), "InvalidRetentionPeriod")
	wantCode(t, putConf("vault", conf(types.ObjectLockRetentionModeCompliance, nil, aws.Int32(-1))), "InvalidRetentionPeriod")
	wantCode(t, putConf("vault", conf("FOREVER", aws.Int32(1), nil)), "MalformedXML")
	wantCode(t, putConf("vault", conf("governance", nil, aws.Int32(1))), "MalformedXML")
	if err := putConf("vault", conf(types.ObjectLockRetentionModeCompliance, nil, aws.Int32(2))); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("vault")})
	if err != nil || got.ObjectLockConfiguration.Rule == nil {
		t.Fatalf("GetObjectLockConfiguration = %+v, %v", got, err)
	}
	if d := got.ObjectLockConfiguration.Rule.DefaultRetention; d.Mode != types.ObjectLockRetentionModeCompliance || d.Years == nil || *d.Years != 2 || d.Days != nil {
		t.Fatalf("DefaultRetention = %+v", d)
	}

	// Lock settings in a bucket without lock: AWS's InvalidRequest.
	put(t, c, "plain", "k", []byte("x"))
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("plain"), Key: aws.String("k2"), Body: strings.NewReader("x"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	wantCode(t, err, "InvalidRequest")
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("plain"), Key: aws.String("k"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
	wantCode(t, err, "InvalidRequest")
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("plain"), Key: aws.String("k")})
	wantCode(t, err, "InvalidRequest")

	// AWS takes an object lock document only with a digest of it.
	doc := []byte(`<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled></ObjectLockConfiguration>`)
	st, code, body := send(t, srv, signedRequest(t, srv, "PUT", "/vault?object-lock", doc, nil))
	if st != 400 || code != "InvalidRequest" || !strings.Contains(string(body), "Content-MD5 OR x-amz-checksum-") {
		t.Fatalf("lock configuration without a digest: %d %s %s", st, code, body)
	}
	hold := []byte(`<LegalHold><Status>ON</Status></LegalHold>`)
	st, code, _ = send(t, srv, signedRequest(t, srv, "PUT", "/vault/k?legal-hold", hold, nil))
	if st != 400 || code != "InvalidRequest" {
		t.Fatalf("legal hold without a digest: %d %s", st, code)
	}
	// Nor a PUT with lock headers.
	h := http.Header{"X-Amz-Object-Lock-Legal-Hold": {"ON"}}
	st, code, body = send(t, srv, signedRequest(t, srv, "PUT", "/vault/nodigest", []byte("x"), h))
	if st != 400 || code != "InvalidRequest" || !strings.Contains(string(body), "Object Lock parameters") {
		t.Fatalf("PUT with lock headers and no digest: %d %s %s", st, code, body)
	}
	sum := md5.Sum([]byte("x"))
	h.Set("Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	h.Set("X-Amz-Object-Lock-Legal-Hold", "ON")
	if st, code, body = send(t, srv, signedRequest(t, srv, "PUT", "/vault/digest", []byte("x"), h)); st != 200 {
		t.Fatalf("PUT with lock headers and Content-MD5: %d %s %s", st, code, body)
	}
}

// The x-amz-object-lock-* headers on PUT, CopyObject and
// CreateMultipartUpload lock the version they make, which GET and HEAD
// report; both mode and date or neither, a date in the future, as AWS.
func TestObjectLockHeaders(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true}, "plain")
	ctx := context.Background()
	lockedBucket(t, c, "vault")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)

	putLocked(t, c, "vault", "gov", types.ObjectLockModeGovernance, until, true)
	h := headLock(t, c, "vault", "gov")
	if h.ObjectLockMode != types.ObjectLockModeGovernance || h.ObjectLockRetainUntilDate == nil || !h.ObjectLockRetainUntilDate.Equal(until) ||
		h.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("HEAD lock = %s %v %s", h.ObjectLockMode, h.ObjectLockRetainUntilDate, h.ObjectLockLegalHoldStatus)
	}
	g, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("vault"), Key: aws.String("gov")})
	if err != nil {
		t.Fatal(err)
	}
	g.Body.Close()
	if g.ObjectLockMode != types.ObjectLockModeGovernance || g.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("GET lock = %s %s", g.ObjectLockMode, g.ObjectLockLegalHoldStatus)
	}
	r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("vault"), Key: aws.String("gov")})
	if err != nil || r.Retention.Mode != types.ObjectLockRetentionModeGovernance || !r.Retention.RetainUntilDate.Equal(until) {
		t.Fatalf("GetObjectRetention = %+v, %v", r, err)
	}

	bad := func(key string, mode types.ObjectLockMode, date *time.Time, hold types.ObjectLockLegalHoldStatus) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("vault"), Key: &key, Body: strings.NewReader("x"),
			ObjectLockMode: mode, ObjectLockRetainUntilDate: date, ObjectLockLegalHoldStatus: hold})
		return err
	}
	past := time.Now().Add(-time.Hour)
	wantCode(t, bad("a", types.ObjectLockModeCompliance, nil, ""), "InvalidArgument")
	wantCode(t, bad("b", "", &until, ""), "InvalidArgument")
	wantCode(t, bad("c", types.ObjectLockModeCompliance, &past, ""), "InvalidArgument")
	wantCode(t, bad("d", "FOREVER", &until, ""), "InvalidArgument")
	wantCode(t, bad("e", "", nil, "MAYBE"), "InvalidArgument")
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("vault"), Key: &k}); err == nil {
			t.Fatalf("refused PUT of %s stored it", k)
		}
	}

	// A copy gets the lock its request names, never its source's.
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("vault"), Key: aws.String("copy"), CopySource: aws.String("vault/gov"),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: &until})
	if err != nil {
		t.Fatal(err)
	}
	if h := headLock(t, c, "vault", "copy"); h.ObjectLockMode != types.ObjectLockModeCompliance || h.ObjectLockLegalHoldStatus == types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("copy's lock = %s %s", h.ObjectLockMode, h.ObjectLockLegalHoldStatus)
	}
	if _, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("vault"), Key: aws.String("copy2"), CopySource: aws.String("vault/gov")}); err != nil {
		t.Fatal(err)
	}
	if h := headLock(t, c, "vault", "copy2"); h.ObjectLockMode != "" || h.ObjectLockLegalHoldStatus != "" {
		t.Fatalf("copy inherited its source's lock: %s %s", h.ObjectLockMode, h.ObjectLockLegalHoldStatus)
	}
	_, err = c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("plain"), Key: aws.String("copy"), CopySource: aws.String("vault/gov"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	wantCode(t, err, "InvalidRequest")

	// A multipart upload's lock is its completed version's.
	cu, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("vault"), Key: aws.String("mp"),
		ObjectLockMode: types.ObjectLockModeCompliance, ObjectLockRetainUntilDate: &until, ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOff})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("vault"), Key: aws.String("mp"), UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), Body: strings.NewReader("part")})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("vault"), Key: aws.String("mp"), UploadId: cu.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{PartNumber: aws.Int32(1), ETag: part.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	if h := headLock(t, c, "vault", "mp"); h.ObjectLockMode != types.ObjectLockModeCompliance || !h.ObjectLockRetainUntilDate.Equal(until) {
		t.Fatalf("completed upload's lock = %s %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate)
	}
	wantCode(t, deleteVersion(c, "vault", "mp", *done.VersionId, true), "AccessDenied")
	_, err = c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("vault"), Key: aws.String("mp2"),
		ObjectLockMode: types.ObjectLockModeCompliance})
	wantCode(t, err, "InvalidArgument")
}

// A bucket's default retention locks new versions written without lock
// headers, from their creation; headers take its place.
func TestObjectLockDefaults(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true}, "plain")
	ctx := context.Background()
	lockedBucket(t, c, "vault")
	put(t, c, "vault", "before", []byte("x"))
	_, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: aws.String("vault"),
		ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeGovernance, Days: aws.Int32(2)}}}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	after := put(t, c, "vault", "after", []byte("x"))
	h := headLock(t, c, "vault", "after")
	want := start.Add(48 * time.Hour)
	if h.ObjectLockMode != types.ObjectLockModeGovernance || h.ObjectLockRetainUntilDate == nil ||
		h.ObjectLockRetainUntilDate.Before(want.Add(-2*time.Second)) || h.ObjectLockRetainUntilDate.After(want.Add(5*time.Second)) {
		t.Fatalf("default retention = %s %v, want GOVERNANCE near %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate, want)
	}
	if h := headLock(t, c, "vault", "before"); h.ObjectLockMode != "" {
		t.Fatalf("a default reached an older version: %s", h.ObjectLockMode)
	}
	wantCode(t, deleteVersion(c, "vault", "after", *after.VersionId, false), "AccessDenied")
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	putLocked(t, c, "vault", "explicit", types.ObjectLockModeCompliance, until, false)
	if h := headLock(t, c, "vault", "explicit"); h.ObjectLockMode != types.ObjectLockModeCompliance || !h.ObjectLockRetainUntilDate.Equal(until) {
		t.Fatalf("headers did not win over the default: %s %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate)
	}
	// A legal hold alone still takes the default retention.
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("vault"), Key: aws.String("held"), Body: strings.NewReader("x"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	if err != nil {
		t.Fatal(err)
	}
	if h := headLock(t, c, "vault", "held"); h.ObjectLockMode != types.ObjectLockModeGovernance || h.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("held: %s %s", h.ObjectLockMode, h.ObjectLockLegalHoldStatus)
	}
}

// A COMPLIANCE-locked version cannot be removed by anyone: not its
// owner, not the tenant admin, not the provider's root, bypass or not,
// through DeleteObject, DeleteObjects, DeleteBucket or a purge of its
// tenant through the admin API. Once its retention ends it can.
func TestComplianceBindsEveryone(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	lockedBucket(t, bob, "acme-vault")
	until := time.Now().Add(time.Hour)
	deed := *putLocked(t, bob, "acme-vault", "deed", types.ObjectLockModeCompliance, until, false).VersionId
	briefUntil := time.Now().Add(2 * time.Second)
	brief := *putLocked(t, bob, "acme-vault", "brief", types.ObjectLockModeCompliance, briefUntil, false).VersionId

	for _, who := range []string{"bob", "ann", "root"} {
		c := ten.clients[who]
		wantCode(t, deleteVersion(c, "acme-vault", "deed", deed, false), "AccessDenied")
		wantCode(t, deleteVersion(c, "acme-vault", "deed", deed, true), "AccessDenied")
		out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("acme-vault"), BypassGovernanceRetention: aws.Bool(true),
			Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("deed"), VersionId: &deed}}}})
		if err != nil || len(out.Errors) != 1 || *out.Errors[0].Code != "AccessDenied" || len(out.Deleted) != 0 {
			t.Fatalf("%s: DeleteObjects of a locked version = %+v, %v", who, out, err)
		}
		_, err = c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("acme-vault")})
		wantCode(t, err, "BucketNotEmpty")
		_, err = c.PutObjectRetention(ctx, &s3.PutObjectRetentionInput{Bucket: aws.String("acme-vault"), Key: aws.String("deed"),
			VersionId: &deed, BypassGovernanceRetention: aws.Bool(true), Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: &until}})
		wantCode(t, err, "AccessDenied")
	}
	// As AWS: a delete without a version id writes a delete marker, which
	// no lock stops, and an overwrite a new version; the locked version
	// stays, readable by its id.
	if _, err := bob.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("acme-vault"), Key: aws.String("deed")}); err != nil {
		t.Fatalf("delete marker over a locked version: %v", err)
	}
	put(t, bob, "acme-vault", "deed", []byte("overwritten"))
	if string(get(t, bob, "acme-vault", "deed")) != "overwritten" {
		t.Fatal("overwrite of a locked key not current")
	}
	// The provider cannot purge the tenant either: refused, and left as
	// it was (not even suspended).
	err := ten.admin.Do(ctx, "DELETE", "/tenants/acme?purge=true", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "ObjectLocked") {
		t.Fatalf("purge of a tenant holding a locked version: %v", err)
	}
	old, err := bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("acme-vault"), Key: aws.String("deed"), VersionId: &deed})
	if err != nil {
		t.Fatalf("the locked version: %v", err)
	}
	b, _ := io.ReadAll(old.Body)
	old.Body.Close()
	if string(b) != "locked deed" || old.ObjectLockMode != types.ObjectLockModeCompliance {
		t.Fatalf("the locked version changed: %q %s", b, old.ObjectLockMode)
	}
	put(t, bob, "acme-bob", "still-active", []byte("x"))

	wantCode(t, deleteVersion(bob, "acme-vault", "brief", brief, false), "AccessDenied")
	time.Sleep(time.Until(briefUntil) + 100*time.Millisecond)
	if err := deleteVersion(bob, "acme-vault", "brief", brief, false); err != nil {
		t.Fatalf("delete after retention ended: %v", err)
	}
}

// Governance retention yields only to a caller who asks
// (x-amz-bypass-governance-retention) and has
// s3:BypassGovernanceRetention: the bucket's owner and the tenant admin
// have it, another user only when a policy grants it.
func TestGovernanceBypass(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, cy, ann := ten.clients["bob"], ten.clients["cy"], ten.clients["ann"]
	lockedBucket(t, bob, "acme-gov")
	until := time.Now().Add(time.Hour)
	v := map[string]string{}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		v[k] = *putLocked(t, bob, "acme-gov", k, types.ObjectLockModeGovernance, until, false).VersionId
	}
	v["comp"] = *putLocked(t, bob, "acme-gov", "comp", types.ObjectLockModeCompliance, until, false).VersionId
	del := func(c *s3.Client, key string, bypass bool) error {
		return deleteVersion(c, "acme-gov", key, v[key], bypass)
	}

	grant := func(actions string) {
		t.Helper()
		doc := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":[` + actions + `],"Resource":"arn:aws:s3:::acme-gov/*"}]}`
		if err := putPolicy(t, bob, "acme-gov", doc); err != nil {
			t.Fatal(err)
		}
	}
	grant(`"s3:DeleteObject","s3:DeleteObjectVersion","s3:PutObjectRetention"`)
	// The header without the permission, the permission without the header.
	wantCode(t, del(cy, "a", true), "AccessDenied")
	wantCode(t, del(bob, "a", false), "AccessDenied")
	wantCode(t, del(ann, "a", false), "AccessDenied")
	grant(`"s3:DeleteObject","s3:DeleteObjectVersion","s3:PutObjectRetention","s3:BypassGovernanceRetention"`)
	wantCode(t, del(cy, "a", false), "AccessDenied")
	if err := del(cy, "a", true); err != nil {
		t.Fatalf("cy, granted the bypass, with the header: %v", err)
	}
	if err := del(bob, "b", true); err != nil {
		t.Fatalf("the owner with the header: %v", err)
	}
	if err := del(ann, "c", true); err != nil {
		t.Fatalf("the tenant admin with the header: %v", err)
	}
	// DeleteObjects answers each key: governance bypassed, compliance not.
	out, err := bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("acme-gov"), BypassGovernanceRetention: aws.Bool(true),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("d"), VersionId: aws.String(v["d"])}, {Key: aws.String("comp"), VersionId: aws.String(v["comp"])}}}})
	if err != nil || len(out.Deleted) != 1 || *out.Deleted[0].Key != "d" || len(out.Errors) != 1 || *out.Errors[0].Key != "comp" || *out.Errors[0].Code != "AccessDenied" {
		t.Fatalf("DeleteObjects = %+v, %v", out, err)
	}
	out, err = bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("acme-gov"),
		Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("e"), VersionId: aws.String(v["e"])}}}})
	if err != nil || len(out.Errors) != 1 || *out.Errors[0].Code != "AccessDenied" {
		t.Fatalf("DeleteObjects without the bypass = %+v, %v", out, err)
	}
	if _, err := bob.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("acme-gov"), Key: aws.String("e"), VersionId: aws.String(v["e"])}); err != nil {
		t.Fatalf("e gone: %v", err)
	}
}

// Retention may be extended in its mode by anyone allowed
// PutObjectRetention; shortening it, or changing its mode, needs the
// governance bypass on a GOVERNANCE retention and is never allowed on a
// COMPLIANCE one. Raising GOVERNANCE to COMPLIANCE without the bypass is
// refused too: AWS answers it 403 AccessDenied (its user guide: in
// governance mode no one may "alter its lock settings" without the
// bypass; the s3-tests suite's
// test_object_lock_changing_mode_from_governance_without_bypass).
func TestRetentionChanges(t *testing.T) {
	c, _ := nodeWithBucket(t, nodetest.Options{TLS: true}, "plain")
	ctx := context.Background()
	lockedBucket(t, c, "vault")
	now := time.Now().UTC().Truncate(time.Second)
	soon, later, latest := now.Add(time.Hour), now.Add(2*time.Hour), now.Add(3*time.Hour)
	v := map[string]string{
		"gov":  *putLocked(t, c, "vault", "gov", types.ObjectLockModeGovernance, later, false).VersionId,
		"comp": *putLocked(t, c, "vault", "comp", types.ObjectLockModeCompliance, later, false).VersionId,
		"free": *put(t, c, "vault", "free", []byte("x")).VersionId,
	}

	set := func(key string, mode types.ObjectLockRetentionMode, until *time.Time, bypass bool) error {
		in := &s3.PutObjectRetentionInput{Bucket: aws.String("vault"), Key: &key, VersionId: aws.String(v[key]),
			Retention: &types.ObjectLockRetention{Mode: mode, RetainUntilDate: until}}
		if bypass {
			in.BypassGovernanceRetention = aws.Bool(true)
		}
		_, err := c.PutObjectRetention(ctx, in)
		return err
	}
	retention := func(key string) *types.ObjectLockRetention {
		t.Helper()
		r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("vault"), Key: &key, VersionId: aws.String(v[key])})
		if err != nil {
			t.Fatalf("GetObjectRetention %s: %v", key, err)
		}
		return r.Retention
	}
	_, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("vault"), Key: aws.String("free")})
	wantCode(t, err, "NoSuchObjectLockConfiguration")
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("vault"), Key: aws.String("missing")})
	wantCode(t, err, "NoSuchKey")
	past := now.Add(-time.Hour)
	wantCode(t, set("free", types.ObjectLockRetentionModeGovernance, &past, false), "InvalidArgument")

	wantCode(t, set("comp", types.ObjectLockRetentionModeCompliance, &soon, true), "AccessDenied")
	wantCode(t, set("comp", types.ObjectLockRetentionModeGovernance, &latest, true), "AccessDenied")
	if err := set("comp", types.ObjectLockRetentionModeCompliance, &latest, false); err != nil {
		t.Fatalf("extend compliance: %v", err)
	}
	if r := retention("comp"); r.Mode != types.ObjectLockRetentionModeCompliance || !r.RetainUntilDate.Equal(latest) {
		t.Fatalf("extended compliance = %+v", r)
	}
	wantCode(t, set("gov", types.ObjectLockRetentionModeGovernance, &soon, false), "AccessDenied")
	if r := retention("gov"); !r.RetainUntilDate.Equal(later) {
		t.Fatalf("a refused shortening changed the date: %+v", r)
	}
	if err := set("gov", types.ObjectLockRetentionModeGovernance, &soon, true); err != nil {
		t.Fatalf("shorten governance with the bypass: %v", err)
	}
	wantCode(t, set("gov", types.ObjectLockRetentionModeCompliance, &soon, false), "AccessDenied")
	wantCode(t, set("gov", types.ObjectLockRetentionModeCompliance, &latest, false), "AccessDenied")
	if r := retention("gov"); r.Mode != types.ObjectLockRetentionModeGovernance {
		t.Fatalf("a refused change of mode changed it: %+v", r)
	}
	if err := set("gov", types.ObjectLockRetentionModeCompliance, &soon, true); err != nil {
		t.Fatalf("raise governance to compliance with the bypass: %v", err)
	}
	wantCode(t, set("gov", types.ObjectLockRetentionModeGovernance, &latest, true), "AccessDenied")
	if err := set("free", types.ObjectLockRetentionModeGovernance, &soon, false); err != nil {
		t.Fatalf("retention on a free version: %v", err)
	}
	wantCode(t, deleteVersion(c, "vault", "free", v["free"], false), "AccessDenied")
}

// A legal hold keeps a version from everyone, bypass or not, whatever
// its retention; lifting it lets it go.
func TestLegalHold(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob := ten.clients["bob"]
	lockedBucket(t, bob, "acme-held")
	doc := *put(t, bob, "acme-held", "doc", []byte("x")).VersionId
	hold := func(status types.ObjectLockLegalHoldStatus) {
		t.Helper()
		_, err := bob.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("acme-held"), Key: aws.String("doc"),
			VersionId: &doc, LegalHold: &types.ObjectLockLegalHold{Status: status}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := bob.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String("acme-held"), Key: aws.String("doc")})
		if err != nil || got.LegalHold.Status != status {
			t.Fatalf("GetObjectLegalHold = %+v, %v", got, err)
		}
	}
	hold(types.ObjectLockLegalHoldStatusOn)
	if h := headLock(t, bob, "acme-held", "doc"); h.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("HEAD legal hold = %q", h.ObjectLockLegalHoldStatus)
	}
	for _, who := range []string{"bob", "ann", "root"} {
		wantCode(t, deleteVersion(ten.clients[who], "acme-held", "doc", doc, true), "AccessDenied")
	}
	// As AWS, GET and HEAD tell the hold only to who may read it.
	cy := ten.clients["cy"]
	for _, tc := range []struct {
		actions string
		want    types.ObjectLockLegalHoldStatus
	}{{`"s3:GetObject"`, ""}, {`"s3:GetObject","s3:GetObjectLegalHold"`, types.ObjectLockLegalHoldStatusOn}} {
		doc := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},"Action":[` + tc.actions + `],"Resource":"arn:aws:s3:::acme-held/*"}]}`
		if err := putPolicy(t, bob, "acme-held", doc); err != nil {
			t.Fatal(err)
		}
		if h := headLock(t, cy, "acme-held", "doc"); h.ObjectLockLegalHoldStatus != tc.want {
			t.Fatalf("cy allowed %s sees legal hold %q, want %q", tc.actions, h.ObjectLockLegalHoldStatus, tc.want)
		}
	}
	_, err := bob.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("acme-held"), Key: aws.String("missing"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
	wantCode(t, err, "NoSuchKey")
	// Who may not write the bucket may not lift the hold.
	_, err = ten.clients["carl"].PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("acme-held"), Key: aws.String("doc"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}})
	wantCode(t, err, "AccessDenied")
	hold(types.ObjectLockLegalHoldStatusOff)
	if h := headLock(t, bob, "acme-held", "doc"); h.ObjectLockLegalHoldStatus == types.ObjectLockLegalHoldStatusOn {
		t.Fatal("HEAD still reports the hold")
	}
	if err := deleteVersion(bob, "acme-held", "doc", doc, false); err != nil {
		t.Fatalf("delete after the hold was lifted: %v", err)
	}
}
