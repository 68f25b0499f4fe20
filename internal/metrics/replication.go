package metrics

import "github.com/prometheus/client_golang/prometheus"

// Replication counts what the replication worker delivered, by source
// bucket (only buckets with a replication configuration appear).
type Replication struct {
	objects *prometheus.CounterVec
	bytes   *prometheus.CounterVec
}

// NewReplication registers the replication worker's counters in reg.
func NewReplication(reg *prometheus.Registry) *Replication {
	m := &Replication{
		objects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "replication_objects_total",
			Help: "Versions the replication worker handled on this node, by source bucket and outcome: completed, failed (given up: FAILED), retried (an attempt that will be made again), backfilled (existing versions queued).",
		}, []string{"bucket", "outcome"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "replication_bytes_total",
			Help: "Bytes of versions replicated from this node, by source bucket (once per destination).",
		}, []string{"bucket"}),
	}
	reg.MustRegister(m.objects, m.bytes)
	return m
}

// Done records a version delivered to all its destinations.
func (m *Replication) Done(bucket string, bytes int64) {
	if m == nil {
		return
	}
	m.objects.WithLabelValues(bucket, "completed").Inc()
	m.bytes.WithLabelValues(bucket).Add(float64(bytes))
}

// Failed records a version given up.
func (m *Replication) Failed(bucket string) {
	if m != nil {
		m.objects.WithLabelValues(bucket, "failed").Inc()
	}
}

// Retried records an attempt that will be made again.
func (m *Replication) Retried(bucket string) {
	if m != nil {
		m.objects.WithLabelValues(bucket, "retried").Inc()
	}
}

// Backfilled records existing versions queued.
func (m *Replication) Backfilled(bucket string, n int) {
	if m != nil {
		m.objects.WithLabelValues(bucket, "backfilled").Add(float64(n))
	}
}
