package metrics

import "github.com/prometheus/client_golang/prometheus"

// Lifecycle counts what the lifecycle worker did.
type Lifecycle struct {
	actions *prometheus.CounterVec
	moved   prometheus.Counter
	backlog prometheus.Gauge
}

// Lifecycle worker outcomes.
var lifecycleOutcomes = []string{"expired", "removed_version", "aborted_upload", "transitioned", "skipped_locked", "failed"}

// NewLifecycle registers the lifecycle worker's counters in reg.
func NewLifecycle(reg *prometheus.Registry) *Lifecycle {
	m := &Lifecycle{actions: prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "lifecycle_actions_total",
		Help: "What the lifecycle worker did on this node, by outcome: expired (a current version), removed_version (a noncurrent version or an expired object delete marker), aborted_upload, transitioned (a version moved to another storage class's platform), skipped_locked (object lock kept the version), failed.",
	}, []string{"outcome"})}
	m.moved = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Name: "lifecycle_transition_bytes_total",
		Help: "Bytes the lifecycle worker on this node copied to other storage classes' platforms.",
	})
	m.backlog = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "lifecycle_transition_backlog",
		Help: "Versions the lifecycle worker's current (or last) pass found due for a transition and has not moved: those that failed wait for the next pass.",
	})
	reg.MustRegister(m.actions, m.moved, m.backlog)
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

// Moved records bytes copied by a transition.
func (m *Lifecycle) Moved(bytes int64) {
	if m == nil || bytes <= 0 {
		return
	}
	m.moved.Add(float64(bytes))
}

// SetBacklog records the versions due for a transition not yet moved.
func (m *Lifecycle) SetBacklog(n int) {
	if m == nil {
		return
	}
	m.backlog.Set(float64(n))
}
