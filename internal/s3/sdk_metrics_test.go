package s3_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob/s3blob"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/platform"
)

// scrape reads a node's /metrics in the text format with Prometheus's
// own parser.
func scrape(t *testing.T, srv *nodetest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample returns the value of the series of name with the given labels
// (a counter's, gauge's or untyped value; a histogram's count), summed
// over the series that match, and whether any did.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	sum, found := 0.0, false
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			ok := false
			for _, l := range m.GetLabel() {
				ok = ok || (l.GetName() == labels[i] && l.GetValue() == labels[i+1])
			}
			if !ok {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		}
	}
	return sum, found
}

// wantStatus checks that err is an HTTP response of status.
func wantStatus(t *testing.T, err error, status int) {
	t.Helper()
	var re *smithyhttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != status {
		t.Fatalf("got %v, want a %d response", err, status)
	}
}

// After some S3 traffic, /metrics has every family with the values that
// traffic implies, parsed by Prometheus's text parser.
func TestMetricsAfterTraffic(t *testing.T) {
	ctx := context.Background()
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	t.Cleanup(func() { slog.SetDefault(prev) })
	c, srv := nodeWithBucket(t, nodetest.Options{Config: func(c *node.Config) { c.Log.Requests = "info" }}, "metered")
	small, large := randBytes(4<<10, 1), randBytes(100<<10, 2) // inline in the catalog; a blob on the platform
	for i := range 3 {
		put(t, c, "metered", fmt.Sprint("small", i), small)
	}
	put(t, c, "metered", "large", large)
	for range 2 {
		get(t, c, "metered", "small0")
	}
	get(t, c, "metered", "large")
	if _, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("metered"), Key: aws.String("missing")}); err == nil {
		t.Fatal("HEAD of a missing key succeeded")
	}
	// The collector runs once its lease is taken.
	within(t, 10*time.Second, func() bool {
		v, _ := sample(scrape(t, srv), "ostium_job_runs_total", "job_name", "collector", "result", "ok")
		return v >= 1
	})
	fams := scrape(t, srv)

	for _, want := range []struct {
		name   string
		labels []string
		min    float64
		max    float64
	}{
		{"ostium_s3_requests_total", []string{"op", "CreateBucket", "class", "2xx"}, 1, 1},
		{"ostium_s3_requests_total", []string{"op", "PutObject", "class", "2xx"}, 4, 4},
		{"ostium_s3_requests_total", []string{"op", "GetObject", "class", "2xx"}, 3, 3},
		{"ostium_s3_requests_total", []string{"op", "HeadObject", "class", "4xx"}, 1, 1},
		{"ostium_s3_requests_total", []string{"op", "DeleteObject", "class", "2xx"}, 0, 0},
		{"ostium_s3_request_duration_seconds", []string{"op", "GetObject"}, 3, 3},
		{"ostium_s3_received_bytes_total", []string{"op", "PutObject"}, 3*4096 + 100<<10, 3*4096 + 100<<10},
		{"ostium_s3_sent_bytes_total", []string{"op", "GetObject"}, 2*4096 + 100<<10, 2*4096 + 100<<10},
		{"ostium_s3_requests_in_flight", nil, 0, 0},
		{"ostium_s3_unavailable_total", []string{"reason", "slow_down"}, 0, 0},
		{"ostium_catalog_write_duration_seconds", []string{"result", "ok"}, 5, math.Inf(1)},
		{"ostium_platform_request_duration_seconds", []string{"platform", "local", "op", "put"}, 1, 1},
		{"ostium_platform_request_duration_seconds", []string{"platform", "local", "op", "get"}, 1, 1},
		{"ostium_platform_errors_total", nil, 0, 0},
		{"ostium_platform_up", []string{"platform", "local"}, 1, 1},
		{"ostium_cache_requests_total", []string{"cache", "credentials", "result", "hit"}, 1, math.Inf(1)},
		{"ostium_cache_requests_total", []string{"cache", "buckets", "result", "hit"}, 1, math.Inf(1)},
		{"ostium_cache_requests_total", []string{"cache", "buckets", "result", "miss"}, 1, math.Inf(1)},
		{"ostium_gc_queue", []string{"what", "blobs"}, 0, 0},
		{"ostium_job_lease_held", []string{"job_name", "collector"}, 1, 1},
		{"ostium_job_lease_held", []string{"job_name", "sweeper"}, 1, 1},
		{"ostium_job_last_success_timestamp_seconds", []string{"job_name", "collector"}, float64(time.Now().Add(-time.Minute).Unix()), float64(time.Now().Unix() + 1)},
		{"ostium_disk_free_bytes", []string{"volume", "data"}, 1, math.Inf(1)},
		{"ostium_disk_size_bytes", []string{"volume", "data"}, 1, math.Inf(1)},
		{"go_sql_max_open_connections", nil, 1, math.Inf(1)},
		{"go_goroutines", nil, 1, math.Inf(1)},
		{"process_resident_memory_bytes", nil, 1, math.Inf(1)},
	} {
		v, ok := sample(fams, want.name, want.labels...)
		if !ok && want.max != 0 { // a family none of whose series is used yet is absent
			t.Errorf("%s%v: no such series", want.name, want.labels)
			continue
		}
		if v < want.min || v > want.max {
			t.Errorf("%s%v = %v, want %v..%v", want.name, want.labels, v, want.min, want.max)
		}
	}
	if srv.Catalog == "" { // SQLite: writes go through the group commit
		if v, _ := sample(fams, "ostium_catalog_group_commit_batch_size"); v < 5 {
			t.Errorf("group commits counted: %v, want at least the 5 writes", v)
		}
	}
	// The S3 latency's buckets span sub-millisecond to minutes.
	h := fams["ostium_s3_request_duration_seconds"].GetMetric()[0].GetHistogram()
	if b := h.GetBucket(); len(b) < 10 || b[0].GetUpperBound() > 0.001 || b[len(b)-1].GetUpperBound() < 60 {
		t.Errorf("latency buckets %v..%v: not sub-millisecond to minutes", b[0].GetUpperBound(), b[len(b)-1].GetUpperBound())
	}

	// One line per request with what a complaint is traced by.
	var line map[string]any
	for _, l := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" && m["op"] == "HeadObject" {
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no request line for the HeadObject in the log:\n%s", logs.String())
	}
	for _, k := range []string{"request_id", "tenant", "op", "bucket", "key", "status", "bytes_in", "bytes_out", "dur"} {
		if _, ok := line[k]; !ok {
			t.Errorf("request line without %s: %v", k, line)
		}
	}
	if line["level"] != "INFO" || line["status"] != 404.0 || line["key"] != "missing" || len(line["request_id"].(string)) != 16 {
		t.Errorf("request line %v", line)
	}
}

// syncBuffer is a bytes.Buffer the log may write from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The native histograms go out in the protobuf format to scrapers that
// ask for it, beside the classic buckets.
func TestMetricsNativeHistograms(t *testing.T) {
	c, srv := nodeWithBucket(t, nodetest.Options{}, "native")
	put(t, c, "native", "k", randBytes(10, 1))
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	req.Header.Set("Accept", `application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited`)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := expfmt.NewDecoder(resp.Body, expfmt.ResponseFormat(resp.Header))
	for {
		var f dto.MetricFamily
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("no ostium_s3_request_duration_seconds in the protobuf scrape: %v", err)
		}
		if f.GetName() != "ostium_s3_request_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			if h.GetSampleCount() > 0 && h.Schema != nil && len(h.GetBucket()) > 0 {
				return // native schema and classic buckets
			}
		}
		t.Fatalf("no native histogram with samples: %v", f.String())
	}
}

// Scraping is refused to clients outside metrics.allow, and without the
// token when one is set.
func TestMetricsAccess(t *testing.T) {
	elsewhere := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.Metrics.Allow = []string{"192.0.2.0/24"} }})
	resp, err := elsewhere.Client().Get(elsewhere.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("scrape from outside metrics.allow: %d, want 403", resp.StatusCode)
	}
	tok := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.Metrics.Allow = []string{"127.0.0.1", "::1"}
		c.Metrics.Token = "scrape-token"
	}})
	for auth, want := range map[string]int{"": 401, "Bearer nope": 401, "Bearer scrape-token": 200} {
		req, _ := http.NewRequest(http.MethodGet, tok.URL+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := tok.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", auth, resp.StatusCode, want)
		}
	}
}

// Requests refused for want of a slot count as slow_down; those a down
// platform refuses as platform_unavailable, and the platform is reported
// down. Per-tenant series name the tenant.
func TestMetricsUnavailable(t *testing.T) {
	ctx := context.Background()
	remote := nodetest.Start(t, nodetest.Options{})
	gw := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.MaxRequests = 4 // a tenant may hold half: 2
		c.Metrics.TenantLabels = 10
		c.Platforms = map[string]platform.Spec{
			"local": {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")},
			"remote": {Type: platform.TypeS3, S3: s3blob.Config{Endpoint: remote.URL, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey,
				PathStyle: true, Layout: s3blob.LayoutBucketPerTenant, Bucket: "ostium", Retries: -1, Timeout: time.Second}},
		}
	}})
	ad := admin.NewClient(gw.URL, nodetest.AccessKey, nodetest.SecretKey, gw.Client())
	for _, call := range []struct {
		path string
		in   any
		out  any
	}{{"/tenants", map[string]string{"name": "acme", "platform": "remote"}, nil}, {"/tenants/acme/users", map[string]string{"name": "bob"}, nil}} {
		if err := ad.Do(ctx, "POST", call.path, call.in, call.out); err != nil {
			t.Fatal(err)
		}
	}
	var k admin.Key
	if err := ad.Do(ctx, "POST", "/tenants/acme/users/bob/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	bob := s3.New(client(t, gw, gw.URL, false, k.AccessKey, k.SecretKey).Options(), func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	if _, err := bob.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("photos")}); err != nil {
		t.Fatal(err)
	}
	big := randBytes(8<<20, 1)
	put(t, bob, "photos", "big", big)

	// Two GETs whose bodies are not read hold the tenant's share of slots.
	var held []io.ReadCloser
	for range 2 {
		out, err := bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("photos"), Key: aws.String("big")})
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, out.Body)
	}
	_, err := bob.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String("photos")})
	wantStatus(t, err, 503)
	for _, b := range held {
		io.Copy(io.Discard, b)
		b.Close()
	}

	remote.Close()
	within(t, 10*time.Second, func() bool { return ready(t, gw)["remote"] != "ok" })
	_, err = bob.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("photos"), Key: aws.String("big")})
	wantUnavailable(t, err)

	fams := scrape(t, gw)
	for _, want := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"ostium_s3_unavailable_total", []string{"reason", "slow_down"}, 1},
		{"ostium_s3_unavailable_total", []string{"reason", "platform_unavailable"}, 1},
		{"ostium_s3_requests_total", []string{"op", "HeadBucket", "class", "5xx"}, 1},
		{"ostium_platform_request_duration_seconds", []string{"platform", "remote", "op", "put"}, 1},
		{"ostium_s3_tenant_requests_total", []string{"tenant", "acme", "class", "2xx"}, 3},
		{"ostium_s3_tenant_requests_total", []string{"tenant", "acme", "class", "5xx"}, 2},
		{"ostium_s3_tenant_received_bytes_total", []string{"tenant", "acme"}, 8 << 20},
	} {
		if v, _ := sample(fams, want.name, want.labels...); v < want.min {
			t.Errorf("%s%v = %v, want at least %v", want.name, want.labels, v, want.min)
		}
	}
	if v, ok := sample(fams, "ostium_platform_up", "platform", "remote"); !ok || v != 0 {
		t.Errorf("ostium_platform_up{platform=remote} = %v (%v) while it is down, want 0", v, ok)
	}
	if v, _ := sample(fams, "ostium_platform_up", "platform", "local"); v != 1 {
		t.Errorf("ostium_platform_up{platform=local} = %v, want 1", v)
	}
}

// /metrics is the node's, like /health/: a path-style CreateBucket of the
// name meets the metrics handler (405), and the name is reserved in the
// object service (as "admin" and "health").
func TestMetricsBucketNameReserved(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := client(t, srv, srv.URL, false)
	_, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String("metrics")})
	wantStatus(t, err, http.StatusMethodNotAllowed)
	if fams := scrape(t, srv); fams["ostium_s3_requests_total"] == nil {
		t.Fatal("GET /metrics is not the node's metrics")
	}
}
