package s3_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
)

const (
	acmeTopic   = "arn:ostium:sns:us-east-1:acme:orders"
	betaTopic   = "arn:ostium:sns:us-east-1:beta:billing"
	sharedQueue = "arn:ostium:sqs:us-east-1:provider:all"
)

// registerTargets registers targets as the provider would: one open to
// acme, one to beta, one to every tenant.
func registerTargets(t *testing.T, ten *tenancy) {
	t.Helper()
	for _, tg := range []admin.NotifyTarget{
		{ARN: acmeTopic, Kind: "webhook", Endpoint: "https://hooks.acme.example/s3", Tenants: []string{"acme"}},
		{ARN: betaTopic, Kind: "webhook", Endpoint: "https://hooks.beta.example/s3", Tenants: []string{"beta"}},
		{ARN: sharedQueue, Kind: "nats", Endpoint: "nats://127.0.0.1:1", Subject: "s3.events", Tenants: []string{"*"}},
	} {
		var out admin.NotifyTarget
		if err := ten.admin.Do(context.Background(), "PUT", "/notify-targets", tg, &out); err != nil {
			t.Fatalf("register %s: %v", tg.ARN, err)
		}
		if tg.Kind == "webhook" && out.Secret == "" {
			t.Fatalf("a webhook registered without a secret got none: %+v", out)
		}
	}
}

func topic(id, arn string, events []types.Event, prefix, suffix string) types.TopicConfiguration {
	tc := types.TopicConfiguration{Id: aws.String(id), TopicArn: aws.String(arn), Events: events}
	var rules []types.FilterRule
	if prefix != "" {
		rules = append(rules, types.FilterRule{Name: types.FilterRuleNamePrefix, Value: aws.String(prefix)})
	}
	if suffix != "" {
		rules = append(rules, types.FilterRule{Name: types.FilterRuleNameSuffix, Value: aws.String(suffix)})
	}
	if rules != nil {
		tc.Filter = &types.NotificationConfigurationFilter{Key: &types.S3KeyFilter{FilterRules: rules}}
	}
	return tc
}

// A configuration round-trips through the SDK, an empty one removes it,
// and a bucket without one reads back empty, as AWS answers.
func TestNotificationConfiguration(t *testing.T) {
	ctx := context.Background()
	ten := newTenancy(t)
	registerTargets(t, ten)
	bob := ten.clients["bob"]

	got, err := bob.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")})
	if err != nil || len(got.TopicConfigurations)+len(got.QueueConfigurations) != 0 {
		t.Fatalf("a bucket never configured: %+v %v", got, err)
	}
	cfg := &types.NotificationConfiguration{
		TopicConfigurations: []types.TopicConfiguration{
			topic("images", acmeTopic, []types.Event{"s3:ObjectCreated:*"}, "images/", ".jpg"),
			topic("", acmeTopic, []types.Event{"s3:ObjectRemoved:Delete"}, "", ""),
		},
		QueueConfigurations: []types.QueueConfiguration{{Id: aws.String("all"), QueueArn: aws.String(sharedQueue),
			Events: []types.Event{"s3:LifecycleExpiration:*"}}},
	}
	if _, err := bob.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String("acme-bob"), NotificationConfiguration: cfg}); err != nil {
		t.Fatalf("put: %v", err)
	}
	got, err = bob.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.TopicConfigurations) != 2 || len(got.QueueConfigurations) != 1 {
		t.Fatalf("read back %+v", got)
	}
	first := got.TopicConfigurations[0]
	if aws.ToString(first.Id) != "images" || aws.ToString(first.TopicArn) != acmeTopic || len(first.Events) != 1 ||
		first.Events[0] != "s3:ObjectCreated:*" || first.Filter == nil || len(first.Filter.Key.FilterRules) != 2 {
		t.Fatalf("first configuration read back as %+v", first)
	}
	// AWS makes up an id for a configuration given none.
	if aws.ToString(got.TopicConfigurations[1].Id) == "" {
		t.Fatal("a configuration without an id was given none")
	}
	if aws.ToString(got.QueueConfigurations[0].QueueArn) != sharedQueue {
		t.Fatalf("queue read back as %+v", got.QueueConfigurations[0])
	}
	// Only its owner's tenant (and who its policy lets) may read or
	// change it; a read-only application credential may only read it.
	if _, err := ten.clients["carl"].GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")}); apiCode(err) != "AccessDenied" {
		t.Fatalf("another tenant reads the configuration: %v", err)
	}
	for _, who := range []string{"carl", "app-ro", "anonymous"} {
		_, err := ten.clients[who].PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
			Bucket: aws.String("acme-bob"), NotificationConfiguration: &types.NotificationConfiguration{}})
		if apiCode(err) != "AccessDenied" {
			t.Fatalf("%s changes the configuration: %v", who, err)
		}
	}
	if _, err := ten.clients["app-ro"].GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")}); err != nil {
		t.Fatalf("a read-only application credential of the bucket reads it: %v", err)
	}
	if _, err := bob.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String("acme-bob"), NotificationConfiguration: &types.NotificationConfiguration{}}); err != nil {
		t.Fatalf("put empty: %v", err)
	}
	got, err = bob.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")})
	if err != nil || len(got.TopicConfigurations)+len(got.QueueConfigurations) != 0 {
		t.Fatalf("after an empty configuration: %+v %v", got, err)
	}
}

// What AWS refuses is refused with its code, and a tenant cannot name a
// target the provider did not open to it (nor learn that it exists):
// the answer is the one for a target nobody registered.
func TestNotificationTargetsRefused(t *testing.T) {
	ctx := context.Background()
	ten := newTenancy(t)
	registerTargets(t, ten)
	bob := ten.clients["bob"]
	put := func(cfg *types.NotificationConfiguration, opt ...func(*s3.PutBucketNotificationConfigurationInput)) error {
		in := &s3.PutBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob"), NotificationConfiguration: cfg}
		for _, o := range opt {
			o(in)
		}
		_, err := bob.PutBucketNotificationConfiguration(ctx, in)
		return err
	}
	topics := func(tcs ...types.TopicConfiguration) *types.NotificationConfiguration {
		return &types.NotificationConfiguration{TopicConfigurations: tcs}
	}
	created := []types.Event{"s3:ObjectCreated:*"}
	for name, c := range map[string]struct {
		cfg  *types.NotificationConfiguration
		code string
	}{
		"another tenant's target": {topics(topic("x", betaTopic, created, "", "")), "InvalidArgument"},
		"an unknown target":       {topics(topic("x", "arn:ostium:sns:us-east-1:acme:nothing", created, "", "")), "InvalidArgument"},
		"an AWS ARN":              {topics(topic("x", "arn:aws:sns:us-east-1:123456789012:t", created, "", "")), "InvalidArgument"},
		"an sqs ARN as a topic":   {topics(topic("x", sharedQueue, created, "", "")), "InvalidArgument"},
		"an event never produced": {topics(topic("x", acmeTopic, []types.Event{"s3:ObjectRestore:*"}, "", "")), "InvalidArgument"},
		"threshold events":        {topics(topic("x", acmeTopic, []types.Event{"s3:Replication:OperationNotTracked"}, "", "")), "InvalidArgument"},
		"an unknown event":        {topics(topic("x", acmeTopic, []types.Event{"s3:ObjectCreated:Teleport"}, "", "")), "InvalidArgument"},
		"overlapping prefixes for one event type": {topics(
			topic("a", acmeTopic, created, "images/", ""),
			topic("b", acmeTopic, []types.Event{"s3:ObjectCreated:Put"}, "images/2024/", "")), "InvalidArgument"},
		"the same id twice": {topics(
			topic("a", acmeTopic, created, "a/", ""),
			topic("a", acmeTopic, created, "b/", "")), "InvalidArgument"},
		"EventBridge": {&types.NotificationConfiguration{EventBridgeConfiguration: &types.EventBridgeConfiguration{}}, "InvalidArgument"},
	} {
		if err := put(c.cfg); apiCode(err) != c.code {
			t.Errorf("%s: got %v, want %s", name, err, c.code)
		}
	}
	// The same prefix for different event types, and disjoint prefixes
	// for one, are fine, as on AWS.
	if err := put(topics(
		topic("put", acmeTopic, created, "images/", ""),
		topic("del", acmeTopic, []types.Event{"s3:ObjectRemoved:*"}, "images/", ""),
		topic("docs", acmeTopic, created, "docs/", ".pdf"),
		topic("other", acmeTopic, created, "images/", ".png"))); apiCode(err) != "InvalidArgument" {
		// images/ + "" overlaps images/ + .png for ObjectCreated.
		t.Fatalf("overlap of an empty suffix with .png under one prefix: %v", err)
	}
	if err := put(topics(
		topic("put", acmeTopic, created, "images/", ""),
		topic("del", acmeTopic, []types.Event{"s3:ObjectRemoved:*"}, "images/", ""),
		topic("docs", acmeTopic, created, "docs/", ".pdf"))); err != nil {
		t.Fatalf("a valid configuration: %v", err)
	}
	// Skipping the check is not offered; asking not to skip it is fine.
	err := put(topics(topic("x", acmeTopic, created, "", "")), func(in *s3.PutBucketNotificationConfigurationInput) { in.SkipDestinationValidation = aws.Bool(true) })
	if apiCode(err) != "NotImplemented" {
		t.Fatalf("skip destination validation: %v", err)
	}
	if err := put(topics(topic("x", acmeTopic, created, "", "")), func(in *s3.PutBucketNotificationConfigurationInput) { in.SkipDestinationValidation = aws.Bool(false) }); err != nil {
		t.Fatalf("x-amz-skip-destination-validation: false: %v", err)
	}
	// A refused configuration left the last good one in place.
	got, err := bob.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bob")})
	if err != nil || len(got.TopicConfigurations) != 1 || aws.ToString(got.TopicConfigurations[0].Id) != "x" {
		t.Fatalf("after refusals: %+v %v", got, err)
	}
	// A tenant's admin sees the targets open to its tenant, and not who
	// else may use them; a user who is no admin, none.
	var seen []admin.NotifyTarget
	annKey := ten.adminKey(t, "acme", "ann")
	if err := annKey.Do(ctx, "GET", "/notify-targets", nil, &seen); err != nil || len(seen) != 2 {
		t.Fatalf("acme's admin lists %+v %v", seen, err)
	}
	for _, s := range seen {
		if s.ARN == betaTopic || s.Tenants != nil || s.Secret != "" {
			t.Fatalf("acme's admin sees %+v", s)
		}
	}
	if err := annKey.Do(ctx, "PUT", "/notify-targets", admin.NotifyTarget{ARN: "arn:ostium:sns:us-east-1:acme:mine", Kind: "webhook",
		Endpoint: "https://evil.example/", Tenants: []string{"acme"}}, nil); err == nil {
		t.Fatal("a tenant's admin registered a target")
	}
}

// adminKey returns an admin API client signing as a fresh key of
// tenant/user.
func (ten *tenancy) adminKey(t *testing.T, tenant, user string) *admin.Client {
	t.Helper()
	var k admin.Key
	if err := ten.admin.Do(context.Background(), "POST", "/tenants/"+tenant+"/users/"+user+"/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	return admin.NewClient(ten.srv.URL, k.AccessKey, k.SecretKey, ten.srv.Client())
}
