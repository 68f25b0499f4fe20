package browser_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/chromedp/chromedp"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/test/browser/browsertest"
)

var replicationShot = flag.String("replication-screenshot", "", "write the replication tab's screenshot to this PNG file")

// TestConsoleReplication: a tenant's admin sees, on a bucket's
// Replication tab, that a bucket without rules replicates nowhere, and
// for one whose rules copy it to another bucket the destination and how
// many versions wait (none, once the replica is written).
func TestConsoleReplication(t *testing.T) {
	browsertest.Need(t)
	srv := nodetest.Start(t, nodetest.Options{})
	p := provider(t, srv)
	onboard(t, p, "acme", "alice", "provider-set-1")
	tenantUser(t, srv, "acme", "alice", "provider-set-1", "alice-own-password")
	var k admin.Key
	p.must(201, "POST", "/tenants/acme/users/alice/keys", nil, &k)
	alice := s3As(srv, k.AccessKey, k.SecretKey)
	bg := context.Background()
	for _, b := range []string{"src", "dst", "plain"} {
		if _, err := alice.CreateBucket(bg, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"src", "dst"} {
		if _, err := alice.PutBucketVersioning(bg, &s3.PutBucketVersioningInput{Bucket: aws.String(b),
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := alice.PutBucketReplication(bg, &s3.PutBucketReplicationInput{Bucket: aws.String("src"),
		ReplicationConfiguration: &types.ReplicationConfiguration{Role: aws.String("arn:aws:iam::acme:role/replication"),
			Rules: []types.ReplicationRule{{ID: aws.String("all"), Status: types.ReplicationRuleStatusEnabled, Priority: aws.Int32(1),
				Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("")},
				DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusDisabled},
				Destination:             &types.Destination{Bucket: aws.String("arn:aws:s3:::dst")}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.PutObject(bg, &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String("a.txt"), Body: strings.NewReader("replicate me")}); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.New(t, 1280, 900)
	browsertest.Step(t, ctx, "sign in", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/signin"),
		browsertest.SignInPassword("acme", "alice", "alice-own-password"),
		chromedp.WaitVisible(browsertest.T("bucket-create")),
	)
	browsertest.Step(t, ctx, "a bucket without rules", 20*time.Second,
		browsertest.Open(srv.Console.URL, "/buckets/plain/settings?tab=replication"),
		chromedp.WaitVisible(browsertest.T("replication-off")),
	)
	// The replica is written in the background; the tab tells how many
	// versions wait, until none does.
	deadline := time.Now().Add(30 * time.Second)
	for {
		browsertest.Step(t, ctx, "a replicating bucket", 20*time.Second,
			browsertest.Open(srv.Console.URL, "/buckets/src/settings?tab=replication"),
			chromedp.WaitVisible(browsertest.T("replication-backlog")),
			browsertest.Until(`document.querySelector('[data-testid="replication-destinations"]').textContent.includes('arn:aws:s3:::dst')`),
		)
		backlog, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="replication-backlog"]').textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if backlog == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tab still shows %s versions waiting", backlog)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, err := alice.HeadObject(bg, &s3.HeadObjectInput{Bucket: aws.String("dst"), Key: aws.String("a.txt")}); err != nil {
		t.Fatalf("the replica the tab reports written: %v", err)
	}
	browsertest.Step(t, ctx, "settle", 10*time.Second, settled())
	browsertest.CheckAxe(t, ctx, "replication tab")
	if *replicationShot != "" {
		img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*replicationShot, img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
