package metrics

import (
	"crypto/subtle"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LatencyBuckets are the classic buckets of request latencies: from a
// cached HEAD (100 µs) to a large upload (5 min). Native histograms are
// exported beside them for scrapers that ask.
var LatencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// histogram returns the options of a latency histogram: classic buckets
// plus a native one (about 10% resolution, at most 160 buckets).
func histogram(name, help string) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{
		Namespace: Namespace, Name: name, Help: help,
		Buckets:                         LatencyBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// Status classes, by the hundreds digit of the status.
var classes = [6]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func class(status int) int {
	if c := status / 100; c >= 1 && c <= 5 {
		return c
	}
	return 0
}

// Reasons a request is answered 503.
const (
	ReasonSlowDown    = "slow_down"            // no request slot free
	ReasonUnavailable = "platform_unavailable" // a storage platform is down
	ReasonTimeout     = "timeout"              // the request ran out of time
	ReasonRateLimited = "rate_limited"         // over its tenant's or bucket's request rate
	ReasonCatalog     = "catalog_unavailable"  // the catalog cannot be reached or take writes
	ReasonOther       = "other"
)

// S3 is the S3 endpoint's request metrics, labelled by operation. Every
// series of every operation is resolved at start, so a request costs a
// few atomic adds and no allocation.
type S3 struct {
	ops      []opSeries
	inFlight prometheus.Gauge
	unavail  map[string]prometheus.Counter // by reason

	tenants *tenantSeries // nil unless per-tenant series are enabled
}

type opSeries struct {
	requests [len(classes)]prometheus.Counter
	latency  prometheus.Observer
	in, out  prometheus.Counter
}

func newS3(reg *prometheus.Registry, ops []string, tenantLabels int) *S3 {
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "s3_requests_total",
		Help: "S3 requests answered, by operation and status class.",
	}, []string{"op", "class"})
	latency := prometheus.NewHistogramVec(histogram("s3_request_duration_seconds",
		"Time from a request's arrival to the end of its response, by operation."), []string{"op"})
	in := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "s3_received_bytes_total",
		Help: "Payload bytes received in S3 requests, by operation.",
	}, []string{"op"})
	out := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "s3_sent_bytes_total",
		Help: "Body bytes sent in S3 responses, by operation.",
	}, []string{"op"})
	m := &S3{
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "s3_requests_in_flight",
			Help: "S3 requests being served now.",
		}),
		unavail: map[string]prometheus.Counter{},
	}
	unavail := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "s3_unavailable_total",
		Help: "S3 requests answered 503, by reason: slow_down (no request slot), rate_limited, platform_unavailable, catalog_unavailable, timeout, other.",
	}, []string{"reason"})
	for _, r := range []string{ReasonSlowDown, ReasonRateLimited, ReasonUnavailable, ReasonCatalog, ReasonTimeout, ReasonOther} {
		m.unavail[r] = unavail.WithLabelValues(r)
	}
	m.ops = make([]opSeries, len(ops))
	for i, op := range ops {
		s := &m.ops[i]
		for c, name := range classes {
			s.requests[c] = requests.WithLabelValues(op, name)
		}
		s.latency = latency.WithLabelValues(op)
		s.in, s.out = in.WithLabelValues(op), out.WithLabelValues(op)
	}
	reg.MustRegister(requests, latency, in, out, m.inFlight, unavail)
	if tenantLabels > 0 {
		m.tenants = newTenantSeries(reg, tenantLabels)
	}
	return m
}

// Start counts a request in flight; Done must follow.
func (m *S3) Start() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// Request is one answered S3 request.
type Request struct {
	Op      int // index into Options.Ops
	Status  int
	In, Out int64
	Elapsed time.Duration
	Tenant  string // "" for the provider or anonymous
	// Reason says why a 503 was sent (Reason*).
	Reason string
}

// Done counts an answered request and ends its time in flight.
func (m *S3) Done(r *Request) {
	if m == nil {
		return
	}
	m.inFlight.Dec()
	if r.Op < 0 || r.Op >= len(m.ops) {
		r.Op = 0
	}
	s := &m.ops[r.Op]
	c := class(r.Status)
	s.requests[c].Inc()
	s.latency.Observe(r.Elapsed.Seconds())
	if r.In > 0 {
		s.in.Add(float64(r.In))
	}
	if r.Out > 0 {
		s.out.Add(float64(r.Out))
	}
	if r.Status == 503 {
		c, ok := m.unavail[r.Reason]
		if !ok {
			c = m.unavail[ReasonOther]
		}
		c.Inc()
	}
	if m.tenants != nil {
		m.tenants.add(r.Tenant, c, r.In, r.Out)
	}
}

// tenantSeries are the per-tenant series, for at most max tenants; the
// tenants seen after the cap share "other", so a flood of tenants cannot
// grow the node's series without bound.
type tenantSeries struct {
	requests     *prometheus.CounterVec
	in, out      *prometheus.CounterVec
	max          int
	mu           sync.RWMutex
	seen         map[string]*tenantSet
	other, owner *tenantSet
}

type tenantSet struct {
	requests [len(classes)]prometheus.Counter
	in, out  prometheus.Counter
}

// OtherTenant labels the tenants beyond the cap; ProviderTenant the
// provider's own requests and anonymous ones.
const (
	OtherTenant    = "other"
	ProviderTenant = "-"
)

func newTenantSeries(reg *prometheus.Registry, max int) *tenantSeries {
	t := &tenantSeries{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "s3_tenant_requests_total",
			Help: `S3 requests by tenant (capped; the rest are "other", the provider and anonymous requests "-") and status class.`,
		}, []string{"tenant", "class"}),
		in: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "s3_tenant_received_bytes_total",
			Help: "Payload bytes received in S3 requests, by tenant.",
		}, []string{"tenant"}),
		out: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "s3_tenant_sent_bytes_total",
			Help: "Body bytes sent in S3 responses, by tenant.",
		}, []string{"tenant"}),
		max:  max,
		seen: map[string]*tenantSet{},
	}
	reg.MustRegister(t.requests, t.in, t.out)
	t.other, t.owner = t.resolve(OtherTenant), t.resolve(ProviderTenant)
	return t
}

func (t *tenantSeries) resolve(tenant string) *tenantSet {
	s := &tenantSet{in: t.in.WithLabelValues(tenant), out: t.out.WithLabelValues(tenant)}
	for c, name := range classes {
		s.requests[c] = t.requests.WithLabelValues(tenant, name)
	}
	return s
}

func (t *tenantSeries) set(tenant string) *tenantSet {
	if tenant == "" {
		return t.owner
	}
	t.mu.RLock()
	s, ok := t.seen[tenant]
	full := len(t.seen) >= t.max
	t.mu.RUnlock()
	switch {
	case ok:
		return s
	case full:
		return t.other
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.seen[tenant]; ok {
		return s
	}
	if len(t.seen) >= t.max {
		return t.other
	}
	s = t.resolve(tenant)
	t.seen[tenant] = s
	return s
}

func (t *tenantSeries) add(tenant string, c int, in, out int64) {
	s := t.set(tenant)
	s.requests[c].Inc()
	if in > 0 {
		s.in.Add(float64(in))
	}
	if out > 0 {
		s.out.Add(float64(out))
	}
}

// tokenOK compares a bearer token in constant time.
func tokenOK(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}
