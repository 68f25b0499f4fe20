package metrics

import "github.com/prometheus/client_golang/prometheus"

// Notify counts what the notification worker did, per target (the
// provider's, so the label is bounded by what it registers).
type Notify struct {
	events  *prometheus.CounterVec
	backlog *prometheus.GaugeVec
	lag     *prometheus.GaugeVec
}

// NewNotify registers the notification worker's series in reg.
func NewNotify(reg *prometheus.Registry) *Notify {
	m := &Notify{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "notification_events_total",
			Help: "Event notifications this node handled, by target ARN and outcome: delivered; failed (an attempt that failed); retried (an event queued again after a failure); dead_lettered (dropped after its last attempt, or for a target no longer registered).",
		}, []string{"target", "outcome"}),
		backlog: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "notification_backlog",
			Help: "Events waiting for a target, as the node delivering them last counted (other nodes export none).",
		}, []string{"target"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "notification_lag_seconds",
			Help: "Age of the oldest event waiting for a target (0 when none), as the node delivering them last saw it.",
		}, []string{"target"}),
	}
	reg.MustRegister(m.events, m.backlog, m.lag)
	return m
}

// Count records n events of an outcome for a target.
func (m *Notify) Count(target, outcome string, n int) {
	if m == nil || n == 0 {
		return
	}
	m.events.WithLabelValues(target, outcome).Add(float64(n))
}

// Backlog records a target's waiting events and the oldest one's age.
func (m *Notify) Backlog(target string, n int64, lagSeconds float64) {
	if m == nil {
		return
	}
	m.backlog.WithLabelValues(target).Set(float64(n))
	m.lag.WithLabelValues(target).Set(lagSeconds)
}

// Forget drops the series of a target no longer delivered to.
func (m *Notify) Forget(target string) {
	if m == nil {
		return
	}
	m.backlog.DeleteLabelValues(target)
	m.lag.DeleteLabelValues(target)
}
