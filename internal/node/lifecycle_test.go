package node_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node"
)

// The lifecycle settings are read from the file and checked: a test day
// from 1 s to 24 h that divides 24 h, no negative interval or rate.
func TestLifecycleSettings(t *testing.T) {
	c, err := node.ParseConfig([]byte("data: d\nlifecycle_day: 2s\nlifecycle_interval: 200ms\nlifecycle_rate: 50\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (node.LifecycleConfig{Day: 2 * time.Second, Interval: 200 * time.Millisecond, Rate: 50}); c.Lifecycle != want {
		t.Fatalf("parsed %+v, want %+v", c.Lifecycle, want)
	}
	for doc, key := range map[string]string{
		"data: d\nlifecycle_day: 500ms":    "lifecycle_day",
		"data: d\nlifecycle_day: 7h":       "lifecycle_day",
		"data: d\nlifecycle_day: 48h":      "lifecycle_day",
		"data: d\nlifecycle_interval: -1s": "lifecycle_interval",
		"data: d\nlifecycle_rate: -1":      "lifecycle_rate",
		"data: d\nlifecycle_days: 2s":      "lifecycle_days",
	} {
		_, err := node.ParseConfig([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: error %v does not name %s", doc, err, key)
		}
	}
}
