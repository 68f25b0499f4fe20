package catalogtest

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// testNotifyTargets checks the provider's notification targets: put
// creates or replaces by ARN (secret and tenants included), list is by
// ARN, delete removes one, and a bucket's notification setting is kept
// and read back with the others.
func testNotifyTargets(t *testing.T, s catalog.Store) {
	c, ok := s.(catalog.NotifyTargets)
	if !ok {
		t.Fatalf("%T does not keep notification targets (catalog.NotifyTargets)", s)
	}
	const a, b = "arn:ostium:sns:r:acme:a", "arn:ostium:sqs:r:provider:b"
	_, err := c.NotifyTarget(ctx, a)
	wantErr(t, err, catalog.ErrNoSuchNotifyTarget)
	wantErr(t, c.DeleteNotifyTarget(ctx, a), catalog.ErrNoSuchNotifyTarget)
	created := time.Unix(1700000000, 0).UTC()
	must(t, c.PutNotifyTarget(ctx, catalog.NotifyTarget{ARN: b, Kind: "nats", Endpoint: "nats://n:4222", Subject: "s3", Tenants: []string{"*"}, CreatedAt: created}))
	must(t, c.PutNotifyTarget(ctx, catalog.NotifyTarget{ARN: a, Kind: "webhook", Endpoint: "https://x/", SecretSealed: []byte{0, 1, 0xff},
		Tenants: []string{"acme", "beta"}, CreatedAt: created}))
	got, err := c.NotifyTarget(ctx, a)
	must(t, err)
	if got.Kind != "webhook" || got.Endpoint != "https://x/" || !bytes.Equal(got.SecretSealed, []byte{0, 1, 0xff}) ||
		!slices.Equal(got.Tenants, []string{"acme", "beta"}) || !got.CreatedAt.Equal(created) {
		t.Fatalf("target = %+v", got)
	}
	// Put again replaces it whole.
	must(t, c.PutNotifyTarget(ctx, catalog.NotifyTarget{ARN: a, Kind: "webhook", Endpoint: "https://y/", Tenants: []string{"acme"}, CreatedAt: created}))
	got, err = c.NotifyTarget(ctx, a)
	must(t, err)
	if got.Endpoint != "https://y/" || len(got.SecretSealed) != 0 || !slices.Equal(got.Tenants, []string{"acme"}) {
		t.Fatalf("replaced target = %+v", got)
	}
	list, err := c.ListNotifyTargets(ctx)
	must(t, err)
	if len(list) != 2 || list[0].ARN != a || list[1].ARN != b || list[1].Subject != "s3" {
		t.Fatalf("list = %+v", list)
	}
	must(t, c.DeleteNotifyTarget(ctx, a))
	if list, _ := c.ListNotifyTargets(ctx); len(list) != 1 || list[0].ARN != b {
		t.Fatalf("after delete: %+v", list)
	}

	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "notifying", Owner: "o", CreatedAt: created}))
	must(t, s.SetBucketSetting(ctx, "notifying", catalog.SettingNotification, `{"t":[]}`))
	bk, err := s.GetBucket(ctx, "notifying")
	must(t, err)
	if bk.Notification != `{"t":[]}` {
		t.Fatalf("notification setting = %q", bk.Notification)
	}
}
