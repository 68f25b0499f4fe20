package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Catalog is the catalog's write-path metrics.
type Catalog struct {
	ok, failed prometheus.Observer
	batch      prometheus.Observer
}

func newCatalog(reg *prometheus.Registry) *Catalog {
	writes := prometheus.NewHistogramVec(histogram("catalog_write_duration_seconds",
		"Time a catalog write transaction took from its call to its durable commit (with SQLite, the wait for its group commit too), by result."),
		[]string{"result"})
	batch := prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "catalog_group_commit_batch_size",
		Help:    "Write transactions committed together by one SQLite group commit.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 9), // 1 .. 256, the largest batch
	})
	reg.MustRegister(writes, batch)
	return &Catalog{ok: writes.WithLabelValues("ok"), failed: writes.WithLabelValues("error"), batch: batch}
}

// Write records a write transaction begun at start.
func (m *Catalog) Write(start time.Time, err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.failed.Observe(time.Since(start).Seconds())
		return
	}
	m.ok.Observe(time.Since(start).Seconds())
}

// Batch records the size of a group commit.
func (m *Catalog) Batch(n int) {
	if m != nil {
		m.batch.Observe(float64(n))
	}
}

// Platforms is the storage platforms' request metrics.
type Platforms struct {
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
	known   map[[2]string]platformSeries // resolved at start, read only
}

type platformSeries struct {
	latency prometheus.Observer
	errors  prometheus.Counter
}

// platformOps are the blob requests timed.
var platformOps = []string{"get", "put", "delete"}

func newPlatforms(reg *prometheus.Registry, names []string) *Platforms {
	m := &Platforms{
		latency: prometheus.NewHistogramVec(histogram("platform_request_duration_seconds",
			"Time a storage platform took to answer a blob request (for a get, until the body starts), by platform and operation."),
			[]string{"platform", "op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "platform_errors_total",
			Help: "Blob requests a storage platform failed, by platform and operation.",
		}, []string{"platform", "op"}),
	}
	reg.MustRegister(m.latency, m.errors)
	m.known = map[[2]string]platformSeries{}
	for _, p := range names {
		for _, op := range platformOps {
			m.known[[2]string{p, op}] = platformSeries{m.latency.WithLabelValues(p, op), m.errors.WithLabelValues(p, op)}
		}
	}
	return m
}

// Request records a blob request to platform begun at start.
func (m *Platforms) Request(platform, op string, start time.Time, err error) {
	if m == nil {
		return
	}
	s, ok := m.known[[2]string{platform, op}]
	if !ok {
		s = platformSeries{m.latency.WithLabelValues(platform, op), m.errors.WithLabelValues(platform, op)}
	}
	s.latency.Observe(time.Since(start).Seconds())
	if err != nil {
		s.errors.Inc()
	}
}

// Jobs is the background jobs' metrics. Their label is job_name, since
// Prometheus gives every scraped series a "job" of its own.
type Jobs struct {
	runs    *prometheus.CounterVec
	deleted *prometheus.CounterVec
	last    *prometheus.GaugeVec
	found   *prometheus.GaugeVec
	held    *prometheus.GaugeVec
}

func newJobs(reg *prometheus.Registry, names []string) *Jobs {
	m := &Jobs{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "job_runs_total",
			Help: "Passes of a background job on this node, by job_name and result (ok or error).",
		}, []string{"job_name", "result"}),
		deleted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "job_deleted_blobs_total",
			Help: "Blobs a background job deleted, by job_name.",
		}, []string{"job_name"}),
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "job_last_success_timestamp_seconds",
			Help: "When a background job last finished a pass without error, by job_name.",
		}, []string{"job_name"}),
		found: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "job_last_pass_blobs",
			Help: "Blobs the last pass of a job found to delete (the sweeper's backlog of never-committed blobs), by job_name.",
		}, []string{"job_name"}),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "job_lease_held",
			Help: "1 while this node holds a background job's lease (runs the job), else 0, by job_name. Summed over the nodes it should be 1.",
		}, []string{"job_name"}),
	}
	reg.MustRegister(m.runs, m.deleted, m.last, m.found, m.held)
	for _, job := range names {
		m.runs.WithLabelValues(job, "ok")
		m.runs.WithLabelValues(job, "error")
		m.deleted.WithLabelValues(job)
		m.held.WithLabelValues(job)
	}
	return m
}

// Pass records a pass of job that deleted n blobs.
func (m *Jobs) Pass(job string, n int, err error) {
	if m == nil {
		return
	}
	m.deleted.WithLabelValues(job).Add(float64(n))
	if err != nil {
		m.runs.WithLabelValues(job, "error").Inc()
		return
	}
	m.runs.WithLabelValues(job, "ok").Inc()
	m.found.WithLabelValues(job).Set(float64(n))
	m.last.WithLabelValues(job).SetToCurrentTime()
}

// Lease records whether this node holds job's lease.
func (m *Jobs) Lease(job string, held bool) {
	if m == nil {
		return
	}
	v := 0.0
	if held {
		v = 1
	}
	m.held.WithLabelValues(job).Set(v)
}

// Cache counts one cache's hits and misses.
type Cache struct {
	hit, miss prometheus.Counter
}

func newCache(v *prometheus.CounterVec, name string) *Cache {
	return &Cache{hit: v.WithLabelValues(name, "hit"), miss: v.WithLabelValues(name, "miss")}
}

// Lookup counts a lookup that hit the cache or missed it.
func (m *Cache) Lookup(hit bool) {
	switch {
	case m == nil:
	case hit:
		m.hit.Inc()
	default:
		m.miss.Inc()
	}
}
