package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/notify"
	"github.com/ostiumio/ostium/internal/notify/delivery"
)

// received is what a webhook got: each event once (by its outbox id,
// since delivery is at least once), in the order it first arrived.
type received struct {
	mu     sync.Mutex
	seen   map[string]bool
	events []event
	dups   int
}

type event struct {
	name, key, etag string
	doc             map[string]any
}

// hook is a webhook receiver on loopback HTTPS: it checks each POST's
// signature and answers 503 while down.
type hook struct {
	*httptest.Server
	secret string
	down   atomic.Bool
	got    received
	t      *testing.T
}

func newHook(t *testing.T, secret string) *hook {
	h := &hook{secret: secret, t: t, got: received{seen: map[string]bool{}}}
	h.Server = httptest.NewUnstartedServer(http.HandlerFunc(h.serve))
	h.StartTLS()
	t.Cleanup(h.Close)
	return h
}

func (h *hook) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if h.down.Load() {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	ts, err := strconv.ParseInt(r.Header.Get(delivery.HeaderTimestamp), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
		h.t.Errorf("webhook: timestamp %q", r.Header.Get(delivery.HeaderTimestamp))
	}
	if sig := r.Header.Get(delivery.HeaderSignature); sig != delivery.Sign(h.secret, ts, body) {
		h.t.Errorf("webhook: signature %q does not verify", sig)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	// A changed body fails the signature: the check above means something.
	if delivery.Sign(h.secret, ts, append(bytes.Clone(body), ' ')) == r.Header.Get(delivery.HeaderSignature) {
		h.t.Error("webhook: the signature does not cover the body")
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		h.t.Errorf("webhook: body %q: %v", body, err)
	}
	e := event{name: r.Header.Get(delivery.HeaderEventName), doc: doc}
	if recs, ok := doc["Records"].([]any); ok && len(recs) == 1 {
		obj := recs[0].(map[string]any)["s3"].(map[string]any)["object"].(map[string]any)
		e.key, _ = obj["key"].(string)
		e.etag, _ = obj["eTag"].(string)
	}
	h.got.mu.Lock()
	id := r.Header.Get(delivery.HeaderEventID)
	if h.got.seen[id] {
		h.got.dups++
	} else {
		h.got.seen[id] = true
		h.got.events = append(h.got.events, e)
	}
	h.got.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *hook) events() []event {
	h.got.mu.Lock()
	defer h.got.mu.Unlock()
	return append([]event(nil), h.got.events...)
}

// waitFor polls until cond holds (generously: the machine is shared).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startNode starts a TLS node that trusts the webhook's certificate and
// retries quickly, attempts times at most (0: 1000).
func startNode(t *testing.T, h *hook, attempts ...int) *nodetest.Server {
	t.Helper()
	ca := ""
	if h != nil {
		ca = filepath.Join(t.TempDir(), "hook-ca.pem")
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.Certificate().Raw}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return nodetest.Start(t, nodetest.Options{TLS: true, Config: func(c *node.Config) {
		c.Notify.CAFile = ca
		c.Notify.RetryBackoff = 100 * time.Millisecond
		c.Notify.MaxAttempts = 1000
		if len(attempts) > 0 {
			c.Notify.MaxAttempts = attempts[0]
		}
		c.Notify.Timeout = 5 * time.Second
	}})
}

func client(srv *nodetest.Server) *s3.Client {
	tr := srv.Client().Transport.(*http.Transport).Clone()
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, ""),
		HTTPClient:  &http.Client{Transport: tr}})
}

func registerTarget(t *testing.T, srv *nodetest.Server, tg admin.NotifyTarget) {
	t.Helper()
	c := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	if err := c.Do(context.Background(), "PUT", "/notify-targets", tg, nil); err != nil {
		t.Fatalf("register %s: %v", tg.ARN, err)
	}
}

func configure(t *testing.T, c *s3.Client, bucket string, tcs ...types.TopicConfiguration) {
	t.Helper()
	if _, err := c.PutBucketNotificationConfiguration(context.Background(), &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(bucket), NotificationConfiguration: &types.NotificationConfiguration{TopicConfigurations: tcs}}); err != nil {
		t.Fatalf("configure %s: %v", bucket, err)
	}
}

func topic(id, arn string, prefix, suffix string, events ...types.Event) types.TopicConfiguration {
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

func put(t *testing.T, c *s3.Client, bucket, key, body string) string {
	t.Helper()
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte(body))})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return aws.ToString(out.ETag)
}

func createBucket(t *testing.T, c *s3.Client, bucket string) {
	t.Helper()
	if _, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
}

const hookARN = "arn:ostium:sns:us-east-1:provider:hook"

// Events reach a webhook over HTTPS, signed; while it is down they wait
// and are retried, and once it is back every one arrives, each key's in
// the order of its writes. The S3 requests made meanwhile all succeed.
func TestWebhookOutageLosesNothing(t *testing.T) {
	h := newHook(t, "hook-secret")
	srv := startNode(t, h)
	c := client(srv)
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL + "/events", Secret: "hook-secret", Tenants: []string{"*"}})
	createBucket(t, c, "photos")
	configure(t, c, "photos", topic("all", hookARN, "", "", "s3:ObjectCreated:*", "s3:ObjectRemoved:*"))

	// AWS's test event comes first.
	waitFor(t, "the test event", func() bool { return len(h.events()) >= 1 })
	if ev := h.events()[0]; ev.name != "s3:TestEvent" || ev.doc["Event"] != "s3:TestEvent" || ev.doc["Bucket"] != "photos" {
		t.Fatalf("first event %+v", ev)
	}

	keys := []string{"a.jpg", "dir/b c.jpg", "z"}
	want := map[string][]string{} // key -> ETags in write order
	write := func(round int) {
		for _, k := range keys {
			etag := put(t, c, "photos", k, fmt.Sprintf("%s version %d", k, round))
			want[k] = append(want[k], etag)
		}
	}
	write(0)
	waitFor(t, "the first round", func() bool { return len(h.events()) >= 1+len(keys) })
	h.down.Store(true)
	for round := 1; round <= 4; round++ {
		write(round)
	}
	// Nothing is acknowledged while the hook is down.
	time.Sleep(time.Second)
	if n := len(h.events()); n != 1+len(keys) {
		t.Fatalf("%d events arrived while the hook answered 503", n)
	}
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String("photos"), Key: aws.String("z")}); err != nil {
		t.Fatal(err)
	}
	h.down.Store(false)
	total := 1 + 5*len(keys) + 1
	waitFor(t, "every event after the outage", func() bool { return len(h.events()) >= total })

	got := map[string][]string{}
	var lastOfZ string
	for _, ev := range h.events()[1:] {
		k, err := unescapeKey(ev.key)
		if err != nil {
			t.Fatal(err)
		}
		if ev.name == "s3:ObjectRemoved:Delete" {
			lastOfZ = ev.name
			if k != "z" || len(got["z"]) != 5 {
				t.Fatalf("the delete of z arrived before its writes: %v", got["z"])
			}
			continue
		}
		if ev.name != "s3:ObjectCreated:Put" {
			t.Fatalf("event %s", ev.name)
		}
		got[k] = append(got[k], `"`+ev.etag+`"`)
	}
	for _, k := range keys {
		if fmt.Sprint(got[k]) != fmt.Sprint(want[k]) {
			t.Errorf("%s: events in order %v, written %v", k, got[k], want[k])
		}
	}
	if lastOfZ == "" {
		t.Fatal("no delete event")
	}
	if len(h.events()) != total {
		t.Fatalf("%d events, want %d", len(h.events()), total)
	}
	// The outbox is empty, and the metrics tell what happened.
	waitFor(t, "an empty backlog", func() bool {
		n, _, err := srv.Node.Catalog.Backlog(context.Background(), notify.Sink(hookARN), "")
		return err == nil && n == 0
	})
	m := scrape(t, srv)
	for _, want := range []string{
		`ostium_notification_events_total{outcome="delivered",target="` + hookARN + `"} ` + strconv.Itoa(total),
		`ostium_notification_events_total{outcome="retried",target="` + hookARN + `"}`,
	} {
		if !bytes.Contains(m, []byte(want)) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if bytes.Contains(m, []byte(`outcome="dead_lettered",target="`+hookARN+`"} 1`)) {
		t.Error("an event was dead-lettered")
	}
}

// unescapeKey undoes the form encoding of a record's key.
func unescapeKey(k string) (string, error) {
	return url.QueryUnescape(k)
}

// A record's fields are those of the change: the key form-encoded, the
// ETag, size, request id, source address and configuration id.
func TestWebhookRecord(t *testing.T) {
	h := newHook(t, "s")
	srv := startNode(t, h)
	c := client(srv)
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL, Secret: "s", Tenants: []string{"*"}})
	createBucket(t, c, "docs")
	configure(t, c, "docs", topic("pdfs", hookARN, "reports/", ".pdf", "s3:ObjectCreated:Put"))
	waitFor(t, "the test event", func() bool { return len(h.events()) == 1 })
	// Filtered out: other prefixes, other suffixes, other events.
	put(t, c, "docs", "notes/q1.pdf", "x")
	put(t, c, "docs", "reports/q1.txt", "x")
	if _, err := c.CopyObject(context.Background(), &s3.CopyObjectInput{Bucket: aws.String("docs"), Key: aws.String("reports/copy.pdf"),
		CopySource: aws.String("docs/notes/q1.pdf")}); err != nil {
		t.Fatal(err)
	}
	out, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String("docs"), Key: aws.String("reports/Q1 2026+.pdf"), Body: bytes.NewReader([]byte("12345"))})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the matching event", func() bool { return len(h.events()) >= 2 })
	time.Sleep(time.Second)
	evs := h.events()
	if len(evs) != 2 {
		t.Fatalf("%d events: filters let through %+v", len(evs), evs[2:])
	}
	rec := evs[1].doc["Records"].([]any)[0].(map[string]any)
	s3e := rec["s3"].(map[string]any)
	obj := s3e["object"].(map[string]any)
	if rec["eventName"] != "ObjectCreated:Put" || rec["eventSource"] != "aws:s3" || rec["eventVersion"] != "2.1" || rec["awsRegion"] != "us-east-1" ||
		s3e["configurationId"] != "pdfs" || s3e["bucket"].(map[string]any)["name"] != "docs" ||
		s3e["bucket"].(map[string]any)["arn"] != "arn:aws:s3:::docs" ||
		obj["key"] != "reports/Q1+2026%2B.pdf" || obj["size"] != 5.0 || `"`+obj["eTag"].(string)+`"` != aws.ToString(out.ETag) ||
		obj["versionId"] != nil {
		t.Fatalf("record %+v", rec)
	}
	if ip := rec["requestParameters"].(map[string]any)["sourceIPAddress"]; ip != "127.0.0.1" {
		t.Fatalf("sourceIPAddress %v", ip)
	}
	if id := rec["responseElements"].(map[string]any)["x-amz-request-id"]; id == "" || id == nil {
		t.Fatalf("no request id in %+v", rec["responseElements"])
	}
	if p := rec["userIdentity"].(map[string]any)["principalId"]; p == "" || p == nil {
		t.Fatalf("no principal in %+v", rec["userIdentity"])
	}
}

// Events reach a real nats-server, on the target's subject, with their
// event name and id as headers.
func TestNATSDelivery(t *testing.T) {
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("ostium.s3")
	if err != nil {
		t.Fatal(err)
	}
	nc.Flush()

	srv := startNode(t, nil)
	c := client(srv)
	const arn = "arn:ostium:sqs:us-east-1:provider:nats"
	registerTarget(t, srv, admin.NotifyTarget{ARN: arn, Kind: "nats", Endpoint: ns.ClientURL(), Subject: "ostium.s3", Tenants: []string{"*"}})
	createBucket(t, c, "logs")
	if _, err := c.PutBucketNotificationConfiguration(context.Background(), &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String("logs"), NotificationConfiguration: &types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{
			{Id: aws.String("q"), QueueArn: aws.String(arn), Events: []types.Event{"s3:ObjectCreated:*", "s3:ObjectRemoved:*"}}}}}); err != nil {
		t.Fatal(err)
	}
	next := func() *nats.Msg {
		t.Helper()
		m, err := sub.NextMsg(60 * time.Second)
		if err != nil {
			t.Fatalf("no NATS message: %v", err)
		}
		return m
	}
	if m := next(); m.Header.Get(delivery.HeaderEventName) != "s3:TestEvent" {
		t.Fatalf("first message %s %s", m.Header, m.Data)
	}
	etag := put(t, c, "logs", "day-1", "entries")
	if _, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String("logs"), Key: aws.String("day-1")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ObjectCreated:Put", "ObjectRemoved:Delete"} {
		m := next()
		var doc struct {
			Records []notify.Record
		}
		if err := json.Unmarshal(m.Data, &doc); err != nil || len(doc.Records) != 1 {
			t.Fatalf("message %s: %v", m.Data, err)
		}
		r := doc.Records[0]
		if r.EventName != want || r.S3.Object.Key != "day-1" || r.S3.ConfigurationID != "q" || m.Header.Get(delivery.HeaderEventID) == "" {
			t.Fatalf("message %+v, want %s", r, want)
		}
		if want == "ObjectCreated:Put" && `"`+r.S3.Object.ETag+`"` != etag {
			t.Fatalf("ETag %q, put %s", r.S3.Object.ETag, etag)
		}
	}
}

func scrape(t *testing.T, srv *nodetest.Server) []byte {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

// An event a target refuses on every attempt is dropped after the last
// one and counted as a dead letter, and so is one for a target the
// provider removed; neither holds back the outbox.
func TestDeadLetters(t *testing.T) {
	h := newHook(t, "s")
	srv := startNode(t, h, 3)
	c := client(srv)
	registerTarget(t, srv, admin.NotifyTarget{ARN: hookARN, Kind: "webhook", Endpoint: h.URL, Secret: "s", Tenants: []string{"*"}})
	createBucket(t, c, "dead-letters")
	h.down.Store(true)
	configure(t, c, "dead-letters", topic("all", hookARN, "", "", "s3:ObjectCreated:*"))
	put(t, c, "dead-letters", "k1", "x")
	put(t, c, "dead-letters", "k2", "x")
	dead := func(n int) string {
		return `ostium_notification_events_total{outcome="dead_lettered",target="` + hookARN + `"} ` + strconv.Itoa(n)
	}
	// The test event and two puts, each tried three times.
	waitFor(t, "three dead letters", func() bool { return bytes.Contains(scrape(t, srv), []byte(dead(3))) })
	if m := scrape(t, srv); !bytes.Contains(m, []byte(`ostium_notification_events_total{outcome="failed",target="`+hookARN+`"} 9`)) {
		t.Fatalf("failed attempts not counted:\n%s", grepLines(m, "notification"))
	}
	n, _, err := srv.Node.Catalog.Backlog(context.Background(), notify.Sink(hookARN), "")
	if err != nil || n != 0 {
		t.Fatalf("backlog after dead letters: %d %v", n, err)
	}
	// The provider removes the target: the bucket's configuration stays,
	// and its events are dropped as dead letters, not kept for ever.
	h.down.Store(false)
	adm := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	if err := adm.Do(context.Background(), "DELETE", "/notify-targets/"+url.PathEscape(hookARN), nil, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the worker reads the targets every 2 s
	put(t, c, "dead-letters", "k3", "x")
	waitFor(t, "a dead letter for the removed target", func() bool { return bytes.Contains(scrape(t, srv), []byte(dead(4))) })
	if len(h.events()) != 0 {
		t.Fatalf("a removed target got %d events", len(h.events()))
	}
}

func grepLines(b []byte, s string) string {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(s)) {
			out = append(append(out, l...), '\n')
		}
	}
	return string(out)
}
