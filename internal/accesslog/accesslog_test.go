package accesslog

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/objects"
)

func openCatalog(t *testing.T) catalog.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "catalog.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var fieldRE = regexp.MustCompile(`\[[^\]]*\]|"(?:[^"\\]|\\.)*"|[^ ]+`)

// Whatever a client sends, a record stays one line of 26 fields.
func TestLineKeepsItsFields(t *testing.T) {
	e := Entry{Source: "b", Owner: "o", Time: time.Date(2026, 2, 6, 0, 0, 38, 0, time.UTC), RemoteIP: "192.0.2.3",
		RequestID: "ID", Operation: "REST.GET.OBJECT", Key: "a b/\"c\"\n", Method: "GET", RequestURI: "/b/a%20b", Proto: "HTTP/1.1",
		Status: 200, BytesSent: 0, ObjectSize: -1, Turnaround: -1, UserAgent: "evil\" agent\n\xff", Host: "h o"}
	line := e.Line()
	if strings.ContainsAny(line, "\n") {
		t.Fatalf("line break in %q", line)
	}
	fs := fieldRE.FindAllString(line, -1)
	if len(fs) != 26 {
		t.Fatalf("%d fields in %q", len(fs), line)
	}
	if fs[2] != "[06/Feb/2026:00:00:38 +0000]" || fs[7] != "a%20b/%22c%22%0A" || fs[11] != "-" || fs[12] != "-" ||
		fs[16] != `"evil\" agent\x0A\xFF"` || fs[22] != `h\x20o` {
		t.Fatalf("fields %q", fs)
	}
}

// The buffer drops what exceeds its bound instead of growing, and the
// queue what exceeds its own.
func TestBounds(t *testing.T) {
	cat := openCatalog(t)
	l := New(cat, Options{Buffer: 2, Queue: 3})
	for range 3 {
		l.Record(Entry{Source: "s", Target: "t", Time: time.Now()})
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		l.Record(Entry{Source: "s", Target: "t", Time: time.Now()})
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, err := cat.PendingAccessLogs(context.Background(), 100)
	if err != nil || len(recs) != 3 {
		t.Fatalf("queued %d records (%v), want 3", len(recs), err)
	}
}

// writer stores what it is given, failing as told.
type writer struct {
	fail    error
	objects map[string]string
}

func (w *writer) DeliverAccessLog(ctx context.Context, source, target, key string, body []byte) error {
	if w.fail != nil {
		return w.fail
	}
	w.objects[target+"/"+key] = string(body)
	return nil
}

// A failed delivery keeps the records for the next run; a target that
// refuses them (or is gone) drops them, as AWS does.
func TestDeliveryKeepsUntilCommitted(t *testing.T) {
	cat := openCatalog(t)
	ctx := context.Background()
	l := New(cat, Options{})
	for _, target := range []string{"t1", "t1", "t2"} {
		l.Record(Entry{Source: "s", Target: target, KeyPrefix: "p/", Time: time.Now(), Operation: "REST.PUT.OBJECT"})
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	w := &writer{fail: errors.New("platform unavailable"), objects: map[string]string{}}
	d := NewDeliverer(cat, w, time.Hour, 0)
	if _, err := d.RunOnce(ctx); err == nil {
		t.Fatal("a failed delivery reported no error")
	}
	if recs, _ := cat.PendingAccessLogs(ctx, 10); len(recs) != 3 {
		t.Fatalf("%d records left after a failed delivery, want 3", len(recs))
	}
	w.fail = nil
	n, err := d.RunOnce(ctx)
	if err != nil || n != 3 || len(w.objects) != 2 {
		t.Fatalf("delivered %d records in %d objects: %v", n, len(w.objects), err)
	}
	for k, body := range w.objects {
		if strings.HasPrefix(k, "t1/p/") && strings.Count(body, "\n") != 2 {
			t.Fatalf("%s holds %q", k, body)
		}
	}
	if recs, _ := cat.PendingAccessLogs(ctx, 10); len(recs) != 0 {
		t.Fatalf("%d records left after delivery", len(recs))
	}

	l.Record(Entry{Source: "s", Target: "t1", Time: time.Now()})
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	w.fail = objects.ErrAccessDenied
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if recs, _ := cat.PendingAccessLogs(ctx, 10); len(recs) != 0 {
		t.Fatalf("records refused by their target stayed queued: %d", len(recs))
	}
}
