package metrics_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/ostiumio/ostium/internal/metrics"
)

func family(t *testing.T, m *metrics.Metrics, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// Past the cap, tenants share "other": a flood of tenants cannot grow
// the series without bound.
func TestTenantLabelsAreCapped(t *testing.T) {
	m := metrics.New(metrics.Options{Ops: []string{"Unknown", "GetObject"}, TenantLabels: 2})
	for _, tenant := range []string{"a", "b", "c", "d", "a", ""} {
		m.S3.Start()
		m.S3.Done(&metrics.Request{Op: 1, Status: 200, Out: 10, Elapsed: time.Millisecond, Tenant: tenant})
	}
	f := family(t, m, "ostium_s3_tenant_requests_total")
	got := map[string]float64{}
	for _, s := range f.GetMetric() {
		if label(s, "class") == "2xx" {
			got[label(s, "tenant")] = s.GetCounter().GetValue()
		}
	}
	want := map[string]float64{"a": 2, "b": 1, metrics.OtherTenant: 2, metrics.ProviderTenant: 1}
	if len(got) != len(want) {
		t.Fatalf("tenant series %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("tenant %q: %v requests, want %v", k, got[k], v)
		}
	}
}

// Without tenant_labels no tenant family is exported at all.
func TestNoTenantSeriesByDefault(t *testing.T) {
	m := metrics.New(metrics.Options{Ops: []string{"Unknown"}})
	m.S3.Start()
	m.S3.Done(&metrics.Request{Status: 200, Tenant: "a"})
	if f := family(t, m, "ostium_s3_tenant_requests_total"); f != nil {
		t.Fatalf("tenant series without tenant_labels: %v", f)
	}
}

// Every 503 is counted under its reason, and in-flight returns to 0.
func TestUnavailableByReason(t *testing.T) {
	m := metrics.New(metrics.Options{Ops: []string{"Unknown", "PutObject"}})
	for _, r := range []string{metrics.ReasonSlowDown, metrics.ReasonSlowDown, metrics.ReasonUnavailable, ""} {
		m.S3.Start()
		m.S3.Done(&metrics.Request{Op: 1, Status: 503, Reason: r})
	}
	got := map[string]float64{}
	for _, s := range family(t, m, "ostium_s3_unavailable_total").GetMetric() {
		got[label(s, "reason")] = s.GetCounter().GetValue()
	}
	if got[metrics.ReasonSlowDown] != 2 || got[metrics.ReasonUnavailable] != 1 || got[metrics.ReasonOther] != 1 || got[metrics.ReasonTimeout] != 0 {
		t.Fatalf("503s by reason: %v", got)
	}
	if g := family(t, m, "ostium_s3_requests_in_flight").GetMetric()[0].GetGauge().GetValue(); g != 0 {
		t.Fatalf("in flight after every request is done: %v", g)
	}
}

// A nil handle is a no-op, so that seams need no check.
func TestNilHandles(t *testing.T) {
	var s3 *metrics.S3
	s3.Start()
	s3.Done(&metrics.Request{})
	(*metrics.Catalog)(nil).Write(time.Now(), nil)
	(*metrics.Catalog)(nil).Batch(3)
	(*metrics.Platforms)(nil).Request("p", "get", time.Now(), errors.New("x"))
	(*metrics.Jobs)(nil).Pass("collector", 1, nil)
	(*metrics.Jobs)(nil).Lease("collector", true)
	(*metrics.Cache)(nil).Lookup(true)
}

// Scraping is limited by address, then by token.
func TestHandlerAccess(t *testing.T) {
	m := metrics.New(metrics.Options{})
	for _, tc := range []struct {
		name   string
		access metrics.Access
		remote string
		auth   string
		want   int
	}{
		{"open", metrics.Access{}, "192.0.2.1:5000", "", 200},
		{"allowed address", metrics.Access{Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}, "192.0.2.1:5000", "", 200},
		{"v4-mapped address", metrics.Access{Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}, "[::ffff:192.0.2.1]:5000", "", 200},
		{"other address", metrics.Access{Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}, "198.51.100.1:5000", "", 403},
		{"no token", metrics.Access{Token: "s3cret"}, "192.0.2.1:5000", "", 401},
		{"wrong token", metrics.Access{Token: "s3cret"}, "192.0.2.1:5000", "Bearer s3cre", 401},
		{"token", metrics.Access{Token: "s3cret"}, "192.0.2.1:5000", "Bearer s3cret", 200},
		{"token from elsewhere", metrics.Access{Token: "s3cret", Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, "192.0.2.1:5000", "Bearer s3cret", 403},
	} {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		r.RemoteAddr = tc.remote
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		m.Handler(tc.access).ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, w.Code, tc.want)
		}
		if tc.want == 401 && !slices.Contains(w.Header().Values("WWW-Authenticate"), `Bearer realm="metrics"`) {
			t.Errorf("%s: 401 without a Bearer challenge", tc.name)
		}
	}
}

// What the S3 chain adds to a request: in flight, counters, a classic and
// native latency observation, bytes; no allocation.
func BenchmarkS3Request(b *testing.B) {
	m := metrics.New(metrics.Options{Ops: []string{"Unknown", "GetObject"}, TenantLabels: 100})
	r := metrics.Request{Op: 1, Status: 200, Out: 4096, Elapsed: 800 * time.Microsecond, Tenant: "acme"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.S3.Start()
			m.S3.Done(&r)
		}
	})
}
