// Package metrics is a node's Prometheus instrumentation: one registry per
// node (no global default registry), the families the S3 middleware and
// the store seams feed, and the /metrics handler.
//
// Each seam holds a handle of its own (*S3, *Catalog, *Platforms, *Jobs,
// *Cache) given to it by its constructor. Every handle's methods accept a
// nil receiver and then do nothing, so that a package's tests and tools
// run without metrics and a seam's hook stays one line.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"net/netip"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every family of Ostium's own.
const Namespace = "ostium"

// Metrics is a node's registry and the handles of its seams.
type Metrics struct {
	reg *prometheus.Registry

	S3        *S3
	Catalog   *Catalog
	Platforms *Platforms
	Jobs      *Jobs
	// KeyCache counts the keyring's credential lookups; BucketCache the
	// object service's bucket lookups.
	KeyCache, BucketCache *Cache
}

// Options shape what is exported.
type Options struct {
	// Ops names the S3 operations by their index (s3.OpNames()).
	Ops []string
	// TenantLabels enables per-tenant series for up to this many tenants
	// (the first seen); the rest share the tenant "other". 0 = none.
	TenantLabels int
	// Platforms and Jobs name the node's platforms and background jobs,
	// whose series are then exported from the start (at 0) rather than
	// from their first event: rate() and alerts see them at once.
	Platforms, Jobs []string
}

// New returns the metrics of one node, with the Go runtime and process
// collectors.
func New(o Options) *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cache := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "cache_requests_total",
		Help: "Lookups in the node's caches, by cache and result (hit or miss).",
	}, []string{"cache", "result"})
	reg.MustRegister(cache)
	return &Metrics{
		reg:         reg,
		S3:          newS3(reg, o.Ops, o.TenantLabels),
		Catalog:     newCatalog(reg),
		Platforms:   newPlatforms(reg, o.Platforms),
		Jobs:        newJobs(reg, o.Jobs),
		KeyCache:    newCache(cache, "credentials"),
		BucketCache: newCache(cache, "buckets"),
	}
}

// Registry is where the node's families are registered.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// DB exports a database/sql pool's use (go_sql_* with db_name=name).
func (m *Metrics) DB(name string, db *sql.DB) {
	m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
}

// Gauge exports a value read at each scrape. read gets a context bounded
// by scrapeTimeout; a failed read leaves the gauge out of that scrape.
func (m *Metrics) Gauge(name, help string, read func(ctx context.Context) (float64, error)) {
	m.reg.MustRegister(&funcCollector{
		desc: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, nil, nil),
		read: func(ctx context.Context, emit func(float64, ...string)) error {
			v, err := read(ctx)
			if err == nil {
				emit(v)
			}
			return err
		},
	})
}

// GaugeVec exports values read at each scrape, one per label set emitted.
func (m *Metrics) GaugeVec(name, help string, labels []string, read func(ctx context.Context, emit func(v float64, labelValues ...string)) error) {
	m.reg.MustRegister(&funcCollector{
		desc: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil),
		read: read,
	})
}

// scrapeTimeout bounds what a scrape waits for a value read from a store.
const scrapeTimeout = 5 * time.Second

// funcCollector is a gauge family read at scrape time.
type funcCollector struct {
	desc *prometheus.Desc
	read func(ctx context.Context, emit func(float64, ...string)) error
}

func (c *funcCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *funcCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	err := c.read(ctx, func(v float64, lvs ...string) {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, lvs...)
	})
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, err)
	}
}

// Access limits who may scrape.
type Access struct {
	// Allow lists the clients (by address prefix) that may scrape; empty
	// lets any.
	Allow []netip.Prefix
	// Token, when set, must come as "Authorization: Bearer <token>".
	Token string
}

// Handler serves the registry in Prometheus's formats to the clients
// access lets in; others get 403, or 401 without the right token.
func (m *Metrics) Handler(a Access) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:            m.reg, // counts its own errors and scrapes
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             2 * scrapeTimeout,
		EnableOpenMetrics:   true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if len(a.Allow) > 0 && !allowed(r.RemoteAddr, a.Allow) {
			http.Error(w, "metrics: this address may not scrape", http.StatusForbidden)
			return
		}
		if a.Token != "" && !tokenOK(r.Header.Get("Authorization"), a.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "metrics: a bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func allowed(remote string, allow []netip.Prefix) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return false
	}
	a := ap.Addr().Unmap()
	return slices.ContainsFunc(allow, func(p netip.Prefix) bool { return p.Contains(a) })
}
