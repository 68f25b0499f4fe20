package delivery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/notify"
	"github.com/ostiumio/ostium/internal/notify/delivery"
	"github.com/ostiumio/ostium/internal/testenv"
)

// record is a Kafka record a test consumed.
type record struct {
	key, id, name string
	partition     int32
	doc           struct{ Records []notify.Record }
	raw           map[string]any
}

// consumer reads a topic from its start, in the background, keeping each
// event once (by its id: delivery is at least once) in the order it
// first arrived.
type consumer struct {
	mu      sync.Mutex
	seen    map[string]bool
	records []record
	dups    int
}

func consume(t *testing.T, brokers, topic string) *consumer {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	c := &consumer{seen: map[string]bool{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done; cl.Close() })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				rec := record{key: string(r.Key), partition: r.Partition}
				for _, h := range r.Headers {
					switch h.Key {
					case delivery.HeaderEventID:
						rec.id = string(h.Value)
					case delivery.HeaderEventName:
						rec.name = string(h.Value)
					}
				}
				if err := json.Unmarshal(r.Value, &rec.doc); err != nil {
					t.Errorf("record value %q: %v", r.Value, err)
				}
				json.Unmarshal(r.Value, &rec.raw)
				c.mu.Lock()
				if c.seen[rec.id] {
					c.dups++
				} else {
					c.seen[rec.id] = true
					c.records = append(c.records, rec)
				}
				c.mu.Unlock()
			})
		}
	}()
	return c
}

func (c *consumer) got() []record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]record(nil), c.records...)
}

// startKafkaNode starts a node whose notifications trust the broker's
// CA and retry quickly, attempts times.
func startKafkaNode(t *testing.T, k *testenv.Kafka, attempts int) *nodetest.Server {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "kafka-ca.pem")
	if err := os.WriteFile(ca, k.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Notify.CAFile = ca
		c.Notify.RetryBackoff = 100 * time.Millisecond
		c.Notify.MaxAttempts = attempts
		c.Notify.Timeout = 5 * time.Second
	}})
}

func kafkaTarget(arn, endpoint, topic, secret string) admin.NotifyTarget {
	return admin.NotifyTarget{ARN: arn, Kind: notify.KindKafka, Endpoint: endpoint, Topic: topic, Secret: secret, Tenants: []string{"*"}}
}

// writes PUTs rounds versions of each key, then DELETEs the last key, and
// returns each key's ETags in write order.
func writes(t *testing.T, c *s3.Client, bucket string, keys []string, rounds int) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for r := 0; r < rounds; r++ {
		for _, k := range keys {
			want[k] = append(want[k], put(t, c, bucket, k, fmt.Sprintf("%s, version %d", k, r)))
		}
	}
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(keys[len(keys)-1])}); err != nil {
		t.Fatal(err)
	}
	return want
}

// checkOrder checks the records but test events: AWS's document,
// each key's on one partition with the key as the record's key, its
// writes in order and then the delete of the last key.
func checkOrder(t *testing.T, recs []record, bucket string, keys []string, want map[string][]string) {
	t.Helper()
	got := map[string][]string{}
	partition := map[string]int32{}
	deleted := false
	for _, r := range recs {
		if r.name == notify.TestEventName {
			continue
		}
		if len(r.doc.Records) != 1 {
			t.Fatalf("record %+v", r.raw)
		}
		ev := r.doc.Records[0]
		key, err := url.QueryUnescape(ev.S3.Object.Key)
		if err != nil || key != r.key || ev.S3.Bucket.Name != bucket || ev.EventSource != "aws:s3" || ev.EventVersion != "2.1" ||
			ev.S3.ConfigurationID != "kafka" || "s3:"+ev.EventName != r.name || r.id == "" {
			t.Fatalf("record key %q, headers %s %s: %+v", r.key, r.id, r.name, r.raw)
		}
		if p, ok := partition[key]; ok && p != r.partition {
			t.Fatalf("%s's events on partitions %d and %d", key, p, r.partition)
		}
		partition[key] = r.partition
		switch ev.EventName {
		case "ObjectCreated:Put":
			if deleted && key == keys[len(keys)-1] {
				t.Fatalf("a write of %s after its delete", key)
			}
			got[key] = append(got[key], `"`+ev.S3.Object.ETag+`"`)
		case "ObjectRemoved:Delete":
			if key != keys[len(keys)-1] || len(got[key]) != len(want[key]) {
				t.Fatalf("the delete of %s arrived after %v of its writes %v", key, got[key], want[key])
			}
			deleted = true
		default:
			t.Fatalf("event %s", ev.EventName)
		}
	}
	for _, k := range keys {
		if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
			t.Errorf("%s: events in order %v, written %v", k, got[k], want[k])
		}
	}
	if !deleted {
		t.Error("no delete event")
	}
}

func metric(t *testing.T, srv *nodetest.Server, arn, outcome string) int {
	t.Helper()
	prefix := `ostium_notification_events_total{outcome="` + outcome + `",target="` + arn + `"} `
	for _, l := range strings.Split(string(scrape(t, srv)), "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// Events reach a real Kafka broker: AWS's JSON as the value, the object
// key as the record's key (so each key's events share a partition, in
// order), the event's name and id as headers; over TLS with SASL too;
// a missing topic and a broker that is down are retried until they are
// fixed, the outbox keeping every event meanwhile, and given up on as a
// dead letter after the last attempt.
func TestKafka(t *testing.T) {
	k := testenv.StartKafka(t)
	k.CreateTopic("s3-events", 3)
	srv := startKafkaNode(t, k, 1000)
	c := client(srv)
	keys := []string{"a.jpg", "dir/b c.jpg", "z"}

	t.Run("events", func(t *testing.T) {
		const arn = "arn:ostium:sns:us-east-1:provider:kafka"
		registerTarget(t, srv, kafkaTarget(arn, "kafka://"+k.Addr, "s3-events", ""))
		createBucket(t, c, "photos")
		configure(t, c, "photos", topic("kafka", arn, "", "", "s3:ObjectCreated:*", "s3:ObjectRemoved:*"))
		cons := consume(t, k.Addr, "s3-events")
		waitFor(t, "the test event", func() bool { return len(cons.got()) >= 1 })
		if r := cons.got()[0]; r.name != "s3:TestEvent" || r.key != "" || r.raw["Event"] != "s3:TestEvent" || r.raw["Bucket"] != "photos" {
			t.Fatalf("first record %+v", r)
		}
		want := writes(t, c, "photos", keys, 4)
		total := 1 + 4*len(keys) + 1
		waitFor(t, "every event", func() bool { return len(cons.got()) >= total })
		checkOrder(t, cons.got(), "photos", keys, want)
		var r notify.Record
		for _, rec := range cons.got() {
			if rec.key == "a.jpg" {
				r = rec.doc.Records[0]
				break
			}
		}
		if r.S3.Object.Size == nil || *r.S3.Object.Size != int64(len("a.jpg, version 0")) || r.AWSRegion != "us-east-1" || r.S3.Bucket.ARN != "arn:aws:s3:::photos" {
			t.Fatalf("first write's record %+v", r)
		}
		waitFor(t, "the delivered count", func() bool { return metric(t, srv, arn, "delivered") == total })
	})

	t.Run("tls and sasl", func(t *testing.T) {
		k.CreateTopic("secure", 1)
		cons := consume(t, k.Addr, "secure")
		adm := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
		// A SASL endpoint needs its password, and only it has one.
		secure := "kafka://" + k.User + "@" + k.SecureAddr + "?tls=true&sasl="
		for _, bad := range []admin.NotifyTarget{
			kafkaTarget("arn:ostium:sns:us-east-1:provider:bad", secure+"SCRAM-SHA-512", "secure", ""),
			kafkaTarget("arn:ostium:sns:us-east-1:provider:bad", "kafka://"+k.Addr, "secure", "a password"),
			kafkaTarget("arn:ostium:sns:us-east-1:provider:bad", "kafka://"+k.User+":"+k.Password+"@"+k.SecureAddr+"?tls=true&sasl=PLAIN", "secure", ""),
			kafkaTarget("arn:ostium:sns:us-east-1:provider:bad", "kafka://"+k.Addr, "no topic/here", ""),
		} {
			if err := adm.Do(context.Background(), "PUT", "/notify-targets", bad, nil); err == nil || !strings.Contains(err.Error(), "InvalidTarget") {
				t.Errorf("%s %s: %v", bad.Endpoint, bad.Topic, err)
			}
		}
		var buckets []string
		for _, mech := range []string{"SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN"} {
			arn := "arn:ostium:sns:us-east-1:provider:" + strings.ToLower(mech)
			var out admin.NotifyTarget
			if err := adm.Do(context.Background(), "PUT", "/notify-targets", kafkaTarget(arn, secure+mech, "secure", k.Password), &out); err != nil {
				t.Fatal(err)
			}
			if out.Secret != "" || out.Topic != "secure" || out.Subject != "" {
				t.Fatalf("registered %+v: the password is shown, or the topic is not", out)
			}
			b := "secure-" + strings.ToLower(mech)
			createBucket(t, c, b)
			configure(t, c, b, topic("kafka", arn, "", "", "s3:ObjectCreated:*"))
			put(t, c, b, "k", "x")
			buckets = append(buckets, b)
		}
		// The wrong password: nothing arrives, and the attempts fail.
		const wrong = "arn:ostium:sns:us-east-1:provider:wrong"
		registerTarget(t, srv, kafkaTarget(wrong, secure+"SCRAM-SHA-512", "secure", "not the password"))
		createBucket(t, c, "secure-wrong")
		configure(t, c, "secure-wrong", topic("kafka", wrong, "", "", "s3:ObjectCreated:*"))
		waitFor(t, "a test event and a write through each mechanism", func() bool { return len(cons.got()) >= 2*len(buckets) })
		waitFor(t, "failed attempts with the wrong password", func() bool { return metric(t, srv, wrong, "failed") >= 2 })
		for _, r := range cons.got() {
			if r.raw["Bucket"] == "secure-wrong" {
				t.Fatal("an event sent with the wrong password arrived")
			}
			if len(r.doc.Records) == 1 && r.doc.Records[0].S3.Bucket.Name == "secure-wrong" {
				t.Fatal("an event sent with the wrong password arrived")
			}
		}
		if err := adm.Do(context.Background(), "DELETE", "/notify-targets/"+url.PathEscape(wrong), nil, nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("missing topic", func(t *testing.T) {
		const arn = "arn:ostium:sns:us-east-1:provider:later"
		registerTarget(t, srv, kafkaTarget(arn, "kafka://"+k.Addr, "created-later", ""))
		createBucket(t, c, "later")
		configure(t, c, "later", topic("kafka", arn, "", "", "s3:ObjectCreated:*", "s3:ObjectRemoved:*"))
		want := writes(t, c, "later", keys, 2)
		waitFor(t, "retries for the missing topic", func() bool { return metric(t, srv, arn, "retried") >= 2 })
		if n, _, err := srv.Node.Catalog.Backlog(context.Background(), notify.Sink(arn), ""); err != nil || n != int64(1+2*len(keys)+1) {
			t.Fatalf("backlog for a missing topic: %d %v", n, err)
		}
		k.CreateTopic("created-later", 2)
		cons := consume(t, k.Addr, "created-later")
		waitFor(t, "every event once the topic is there", func() bool { return len(cons.got()) >= 1+2*len(keys)+1 })
		checkOrder(t, cons.got(), "later", keys, want)
		if n := metric(t, srv, arn, "dead_lettered"); n != 0 {
			t.Fatalf("%d dead letters", n)
		}
	})

	// An event for a topic that never comes is tried the node's number
	// of times, then dropped and counted as a dead letter. The broker
	// creates a topic a client asks for: that the events fail shows the
	// producer does not ask.
	t.Run("dead letters", func(t *testing.T) {
		srv := startKafkaNode(t, k, 2)
		c := client(srv)
		const arn = "arn:ostium:sns:us-east-1:provider:nowhere"
		registerTarget(t, srv, kafkaTarget(arn, "kafka://"+k.Addr, "never-created", ""))
		createBucket(t, c, "nowhere")
		configure(t, c, "nowhere", topic("kafka", arn, "", "", "s3:ObjectCreated:*"))
		put(t, c, "nowhere", "k", "x")
		// The test event and the write, each tried twice.
		waitFor(t, "two dead letters", func() bool { return metric(t, srv, arn, "dead_lettered") == 2 })
		if n := metric(t, srv, arn, "failed"); n != 4 {
			t.Fatalf("%d failed attempts, want 4", n)
		}
	})

	t.Run("broker outage", func(t *testing.T) {
		const arn = "arn:ostium:sns:us-east-1:provider:outage"
		k.CreateTopic("outage", 3)
		registerTarget(t, srv, kafkaTarget(arn, "kafka://"+k.Addr, "outage", ""))
		createBucket(t, c, "outage")
		configure(t, c, "outage", topic("kafka", arn, "", "", "s3:ObjectCreated:*", "s3:ObjectRemoved:*"))
		cons := consume(t, k.Addr, "outage")
		waitFor(t, "the test event", func() bool { return len(cons.got()) >= 1 })
		k.Stop()
		// S3 requests succeed while the broker is down; their events wait.
		want := writes(t, c, "outage", keys, 5)
		total := 1 + 5*len(keys) + 1
		waitFor(t, "failed attempts while the broker is down", func() bool { return metric(t, srv, arn, "failed") >= 3 })
		if n, _, err := srv.Node.Catalog.Backlog(context.Background(), notify.Sink(arn), ""); err != nil || n != int64(total-1) {
			t.Fatalf("backlog while the broker is down: %d %v", n, err)
		}
		k.Start()
		waitFor(t, "every event after the outage", func() bool { return len(cons.got()) >= total })
		checkOrder(t, cons.got(), "outage", keys, want)
		waitFor(t, "an empty backlog", func() bool {
			n, _, err := srv.Node.Catalog.Backlog(context.Background(), notify.Sink(arn), "")
			return err == nil && n == 0
		})
		if n := metric(t, srv, arn, "dead_lettered"); n != 0 {
			t.Fatalf("%d dead letters", n)
		}
		t.Logf("%d repeats consumed after the outage", cons.dups)
	})
}

// A tenant may name a Kafka target the provider opened to it, and gets
// AWS's refusal for one it did not (the same as for an unknown ARN).
func TestKafkaTargetOpenToItsTenantsOnly(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true})
	adm := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	do := func(method, path string, in, out any) {
		t.Helper()
		if err := adm.Do(context.Background(), method, path, in, out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	do("POST", "/tenants", map[string]string{"name": "acme"}, nil)
	do("POST", "/tenants/acme/users", map[string]string{"name": "bob", "role": "user"}, nil)
	var key admin.Key
	do("POST", "/tenants/acme/users/bob/keys", nil, &key)
	bob := s3.New(client(srv).Options(), func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(key.AccessKey, key.SecretKey, "")
	})
	const (
		acmes = "arn:ostium:sns:us-east-1:acme:kafka"
		betas = "arn:ostium:sns:us-east-1:beta:kafka"
	)
	for arn, tenant := range map[string]string{acmes: "acme", betas: "beta"} {
		tg := kafkaTarget(arn, "kafka://127.0.0.1:1", "events-"+tenant, "")
		tg.Tenants = []string{tenant}
		registerTarget(t, srv, tg)
	}
	createBucket(t, bob, "acme-bucket")
	err := putConfig(bob, "acme-bucket", topic("x", betas, "", "", "s3:ObjectCreated:*"))
	if apiCode(err) != "InvalidArgument" || !strings.Contains(err.Error(), "Unable to validate the following destination configurations") {
		t.Fatalf("acme names beta's Kafka target: %v", err)
	}
	if err := putConfig(bob, "acme-bucket", topic("x", acmes, "", "", "s3:ObjectCreated:*")); err != nil {
		t.Fatalf("acme names its own Kafka target: %v", err)
	}
	got, err := bob.GetBucketNotificationConfiguration(context.Background(), &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("acme-bucket")})
	if err != nil || len(got.TopicConfigurations) != 1 || aws.ToString(got.TopicConfigurations[0].TopicArn) != acmes {
		t.Fatalf("configuration %+v %v", got, err)
	}
}

func putConfig(c *s3.Client, bucket string, tcs ...types.TopicConfiguration) error {
	_, err := c.PutBucketNotificationConfiguration(context.Background(), &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(bucket), NotificationConfiguration: &types.NotificationConfiguration{TopicConfigurations: tcs}})
	return err
}

// apiCode returns the S3 error code of err, or "".
func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
