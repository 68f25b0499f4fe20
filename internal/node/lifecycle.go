package node

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/metrics"
)

// LifecycleConfig tunes the lifecycle worker (one node runs it, under
// the "lifecycle" lease).
type LifecycleConfig struct {
	// Interval is the time between two passes over the buckets with
	// lifecycle rules (0 = 1 h).
	Interval time.Duration `yaml:"lifecycle_interval,omitempty"`
	// Rate bounds the worker's removals per second (each page of 100
	// versions it lists costs one too), so that foreground requests keep
	// their latency (0 = 200).
	Rate int `yaml:"lifecycle_rate,omitempty"`
	// Day is how long a lifecycle day lasts (0 = 24 h). For tests only,
	// as Ceph RGW's rgw_lc_debug_interval: with "2s", a rule of 1 day
	// expires an object within 4 seconds, and x-amz-expiration says so.
	Day time.Duration `yaml:"lifecycle_day,omitempty"`
}

func (c LifecycleConfig) validate() error {
	var errs []error
	if c.Interval < 0 {
		errs = append(errs, fmt.Errorf("lifecycle_interval: %v must not be negative", c.Interval))
	}
	if c.Rate < 0 {
		errs = append(errs, fmt.Errorf("lifecycle_rate: %d must not be negative", c.Rate))
	}
	if c.Day != 0 && (c.Day < time.Second || c.Day > lifecycle.Day || lifecycle.Day%c.Day != 0) {
		errs = append(errs, fmt.Errorf("lifecycle_day: %v must be from 1s to 24h and divide 24h (test-only; 0 = 24h)", c.Day))
	}
	return errors.Join(errs...)
}

func (n *Node) lifecycleWorker() *lifecycle.Worker {
	c := n.cfg.Lifecycle
	if c.Day != 0 && c.Day != lifecycle.Day {
		slog.Warn("lifecycle_day shortens lifecycle days: for tests only", "lifecycle_day", c.Day)
	}
	return lifecycle.NewWorker(n.Catalog, n.Service, lifecycle.Options{Day: c.Day, Interval: c.Interval, Rate: c.Rate,
		Metrics: metrics.NewLifecycle(n.Metrics.Registry())})
}
