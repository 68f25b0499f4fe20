package s3_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Every change to a bucket's configuration or existence and to an
// object's protection is in the audit log with its caller's outcome,
// refused ones too; so is every governance bypass asked for, granted or
// not (a DeleteObjects that bypassed for some keys and not others has
// the first refusal as its outcome).
func TestAuditRecordsEveryProtectionChange(t *testing.T) {
	ten := newTenancy(t)
	ctx := context.Background()
	bob, cy, carl := ten.clients["bob"], ten.clients["cy"], ten.clients["carl"]
	const b = "acme-audit"
	bkt := aws.String(b)
	until := time.Now().Add(time.Hour).UTC()
	var held, gov, gov2, comp string // version ids, set as the rows run
	obj := func(key string, version *string) string {
		return "bucket/" + b + "/" + key + "?versionId=" + url.QueryEscape(*version)
	}
	retention := func(c *s3.Client, key string, version *string, until time.Time, bypass bool) error {
		in := &s3.PutObjectRetentionInput{Bucket: bkt, Key: aws.String(key), VersionId: version,
			Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: aws.Time(until)}}
		if bypass {
			in.BypassGovernanceRetention = aws.Bool(true)
		}
		_, err := c.PutObjectRetention(ctx, in)
		return err
	}
	hold := func(status types.ObjectLockLegalHoldStatus) func() error {
		return func() error {
			_, err := bob.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: bkt, Key: aws.String("held"), VersionId: &held,
				LegalHold: &types.ObjectLockLegalHold{Status: status}})
			return err
		}
	}
	cors := &types.CORSConfiguration{CORSRules: []types.CORSRule{{AllowedMethods: []string{"GET"}, AllowedOrigins: []string{"https://example.com"}}}}

	for _, row := range []struct {
		name    string
		do      func() error
		action  string
		target  func() string
		outcome string
		status  int // the answer's; from 300 on, the call fails
	}{
		{name: "create a bucket with lock", action: "CreateBucket", target: func() string { return "bucket/" + b }, outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bkt, ObjectLockEnabledForBucket: aws.Bool(true)})
				return err
			}},
		{name: "another tenant's CORS, refused", action: "PutBucketCors", outcome: "AccessDenied", status: 403,
			do: func() error {
				_, err := carl.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: bkt, CORSConfiguration: cors})
				return err
			}},
		{name: "CORS", action: "PutBucketCors", outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.PutBucketCors(ctx, &s3.PutBucketCorsInput{Bucket: bkt, CORSConfiguration: cors})
				return err
			}},
		{name: "CORS removed", action: "DeleteBucketCors", outcome: "ok", status: 204,
			do: func() error { _, err := bob.DeleteBucketCors(ctx, &s3.DeleteBucketCorsInput{Bucket: bkt}); return err }},
		{name: "logging", action: "PutBucketLogging", outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.PutBucketLogging(ctx, &s3.PutBucketLoggingInput{Bucket: bkt, BucketLoggingStatus: &types.BucketLoggingStatus{}})
				return err
			}},
		{name: "tags", action: "PutBucketTagging", outcome: "ok", status: 204,
			do: func() error {
				_, err := bob.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: bkt,
					Tagging: &types.Tagging{TagSet: []types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}}})
				return err
			}},
		{name: "tags removed", action: "DeleteBucketTagging", outcome: "ok", status: 204,
			do: func() error {
				_, err := bob.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: bkt})
				return err
			}},
		{name: "object lock default", action: "PutObjectLockConfiguration", outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: bkt,
					ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
						Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeGovernance, Days: aws.Int32(1)}}}})
				if err == nil {
					held = *putLocked(t, bob, b, "held", "", time.Time{}, false).VersionId
					gov = *putLocked(t, bob, b, "gov", types.ObjectLockModeGovernance, until, false).VersionId
					gov2 = *putLocked(t, bob, b, "gov2", types.ObjectLockModeGovernance, until, false).VersionId
					comp = *putLocked(t, bob, b, "comp", types.ObjectLockModeCompliance, until, false).VersionId
				}
				return err
			}},
		{name: "legal hold on", action: "PutObjectLegalHold", target: func() string { return obj("held", &held) }, outcome: "ok", status: 200,
			do: hold(types.ObjectLockLegalHoldStatusOn)},
		{name: "legal hold off", action: "PutObjectLegalHold", target: func() string { return obj("held", &held) }, outcome: "ok", status: 200,
			do: hold(types.ObjectLockLegalHoldStatusOff)},
		{name: "retention extended", action: "PutObjectRetention", target: func() string { return obj("gov", &gov) }, outcome: "ok", status: 200,
			do: func() error { return retention(bob, "gov", &gov, until.Add(time.Hour), false) }},
		{name: "a policy letting cy delete versions and change retention, not bypass", action: "PutBucketPolicy", outcome: "ok", status: 204,
			do: func() error {
				return putPolicy(t, bob, b, `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::acme:user/cy"},`+
					`"Action":["s3:DeleteObject","s3:DeleteObjectVersion","s3:PutObjectRetention"],"Resource":"arn:aws:s3:::`+b+`/*"}]}`)
			}},
		{name: "retention shortened with a bypass not granted", action: "PutObjectRetention", target: func() string { return obj("gov", &gov) },
			outcome: "AccessDenied", status: 403,
			do: func() error { return retention(cy, "gov", &gov, time.Now().Add(time.Minute), true) }},
		{name: "delete with a bypass not granted", action: "DeleteObject", target: func() string { return obj("gov", &gov) },
			outcome: "AccessDenied", status: 403,
			do: func() error { return deleteVersion(cy, b, "gov", gov, true) }},
		{name: "batch delete, bypass refused for a compliance version", action: "DeleteObjects", outcome: "AccessDenied", status: 200,
			do: func() error {
				out, err := bob.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: bkt, BypassGovernanceRetention: aws.Bool(true),
					Delete: &types.Delete{Objects: []types.ObjectIdentifier{{Key: aws.String("gov2"), VersionId: &gov2}, {Key: aws.String("comp"), VersionId: &comp}}}})
				if err == nil && (len(out.Deleted) != 1 || len(out.Errors) != 1) {
					t.Fatalf("DeleteObjects: %d deleted, %d refused; want 1 and 1", len(out.Deleted), len(out.Errors))
				}
				return err
			}},
		{name: "delete with a granted bypass", action: "DeleteObject", target: func() string { return obj("gov", &gov) }, outcome: "ok", status: 204,
			do: func() error { return deleteVersion(bob, b, "gov", gov, true) }},
		{name: "ownership to ObjectWriter", action: "PutBucketOwnershipControls", outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.PutBucketOwnershipControls(ctx, &s3.PutBucketOwnershipControlsInput{Bucket: bkt,
					OwnershipControls: &types.OwnershipControls{Rules: []types.OwnershipControlsRule{{ObjectOwnership: types.ObjectOwnershipObjectWriter}}}})
				return err
			}},
		{name: "object ACL", action: "PutObjectAcl", target: func() string { return "bucket/" + b + "/held" }, outcome: "ok", status: 200,
			do: func() error {
				_, err := bob.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bkt, Key: aws.String("held"), ACL: types.ObjectCannedACLPrivate})
				return err
			}},
		{name: "another tenant's object ACL, refused", action: "PutObjectAcl", target: func() string { return "bucket/" + b + "/held" },
			outcome: "AccessDenied", status: 403,
			do: func() error {
				_, err := carl.PutObjectAcl(ctx, &s3.PutObjectAclInput{Bucket: bkt, Key: aws.String("held"), ACL: types.ObjectCannedACLPublicRead})
				return err
			}},
		{name: "a bucket that is not empty, refused", action: "DeleteBucket", outcome: "BucketNotEmpty", status: 409,
			do: func() error { _, err := bob.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: bkt}); return err }},
		{name: "a bucket deleted", action: "DeleteBucket", target: func() string { return "bucket/acme-gone" }, outcome: "ok", status: 204,
			do: func() error {
				if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("acme-gone")}); err != nil {
					return err
				}
				_, err := bob.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("acme-gone")})
				return err
			}},
	} {
		last := lastAuditID(t, ten)
		err := row.do()
		if (row.status >= 300) != (err != nil) {
			t.Fatalf("%s: %v", row.name, err)
		}
		target := "bucket/" + b
		if row.target != nil {
			target = row.target()
		}
		var found []catalog.AuditEntry
		for _, e := range auditSince(t, ten, last) {
			if e.Action == "s3:"+row.action {
				found = append(found, e)
			}
		}
		ok := false
		for _, e := range found {
			ok = ok || (e.Target == target && e.Outcome == row.outcome && e.Status == row.status && e.Tenant != "")
		}
		if !ok || len(found) != 1 {
			t.Errorf("%s: want one s3:%s on %s with outcome %s (%d); the log has %+v", row.name, row.action, target, row.outcome, row.status, found)
		}
	}
	// Without the bypass header a delete is not an audited change.
	last := lastAuditID(t, ten)
	if err := deleteVersion(bob, b, "held", held, false); err == nil {
		t.Fatal("a version under its default retention was deleted")
	}
	if got := auditSince(t, ten, last); len(got) != 0 {
		t.Errorf("a delete without bypass was audited: %+v", got)
	}
}

func auditSince(t *testing.T, ten *tenancy, after int64) []catalog.AuditEntry {
	t.Helper()
	es, err := ten.srv.Node.Audit.Store().ListAudit(context.Background(), catalog.AuditQuery{After: after, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func lastAuditID(t *testing.T, ten *tenancy) int64 {
	t.Helper()
	var last int64
	for _, e := range auditSince(t, ten, 0) {
		last = max(last, e.ID)
	}
	return last
}
