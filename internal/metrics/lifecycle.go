package metrics

import "github.com/prometheus/client_golang/prometheus"

// Lifecycle counts what the lifecycle worker did.
type Lifecycle struct {
	actions *prometheus.CounterVec
}

// Lifecycle worker outcomes.
var lifecycleOutcomes = []string{"expired", "removed_version", "aborted_upload", "skipped_locked", "failed"}

// NewLifecycle registers the lifecycle worker's counters in reg.
func NewLifecycle(reg *prometheus.Registry) *Lifecycle {
	m := &Lifecycle{actions: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "lifecycle_actions_total",
		Help: "What the lifecycle worker did on this node, by outcome: expired (a current version), removed_version (a noncurrent version or an expired object delete marker), aborted_upload, skipped_locked (object lock kept the version), failed.",
	}, []string{"outcome"})}
	reg.MustRegister(m.actions)
	for _, o := range lifecycleOutcomes {
		m.actions.WithLabelValues(o)
	}
	return m
}

// Count records n actions of an outcome.
func (m *Lifecycle) Count(outcome string, n int) {
	if m == nil || n == 0 {
		return
	}
	m.actions.WithLabelValues(outcome).Add(float64(n))
}
