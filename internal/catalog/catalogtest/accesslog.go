package catalogtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func testAccessLogQueue(t *testing.T, s catalog.Store) {
	bucket(t, s, "src")
	must(t, s.SetBucketSetting(ctx, "src", catalog.SettingLogging, `{"target":"logs"}`))
	b, err := s.GetBucket(ctx, "src")
	must(t, err)
	if b.Logging != `{"target":"logs"}` {
		t.Fatalf("Logging = %q", b.Logging)
	}

	at := time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC)
	rec := func(i int) catalog.AccessLogRecord {
		return catalog.AccessLogRecord{ID: fmt.Sprintf("%03d-node", i), Source: "src", Target: "logs\xff", KeyPrefix: "p/",
			Partition: "EventTime", Time: at.Add(time.Duration(i) * time.Millisecond), Line: fmt.Sprintf("line %d \"é\"", i)}
	}
	// Queued out of order, in two batches; the second overflows max.
	dropped, err := s.QueueAccessLogs(ctx, []catalog.AccessLogRecord{rec(2), rec(0)}, 3)
	must(t, err)
	if dropped != 0 {
		t.Fatalf("dropped %d of a batch that fits", dropped)
	}
	dropped, err = s.QueueAccessLogs(ctx, []catalog.AccessLogRecord{rec(1), rec(3), rec(4)}, 3)
	must(t, err)
	if dropped != 2 {
		t.Fatalf("dropped %d past max 3, want 2", dropped)
	}
	got, err := s.PendingAccessLogs(ctx, 2)
	must(t, err)
	if len(got) != 2 || got[0] != rec(0) || got[1] != rec(1) {
		t.Fatalf("PendingAccessLogs(2) = %+v", got)
	}
	must(t, s.AccessLogsDone(ctx, []string{got[0].ID, got[1].ID, "unknown"}))
	got, err = s.PendingAccessLogs(ctx, 10)
	must(t, err)
	if len(got) != 1 || got[0] != rec(2) {
		t.Fatalf("after done: %+v", got)
	}
	// A record queued twice (a flush retried) stays one record.
	_, err = s.QueueAccessLogs(ctx, []catalog.AccessLogRecord{rec(2)}, 10)
	must(t, err)
	if got, _ := s.PendingAccessLogs(ctx, 10); len(got) != 1 {
		t.Fatalf("a retried record was queued twice: %+v", got)
	}
}
