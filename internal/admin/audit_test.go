package admin_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The audit log pages by id (next = the after= of the following page),
// filters by time, and streams every entry as JSON lines; bad parameters
// are InvalidArgument.
func TestAuditPagingAndExport(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	c := root(srv)
	start := time.Now().Add(-time.Second)
	for i := range 7 {
		must(t, c.Do(ctx, "POST", "/tenants", map[string]string{"name": fmt.Sprintf("t%d", i)}, nil))
	}
	var all []catalog.AuditEntry
	after := int64(0)
	for pages := 0; ; pages++ {
		if pages > 20 {
			t.Fatal("paging does not end")
		}
		var p admin.AuditPage
		must(t, c.Do(ctx, "GET", fmt.Sprintf("/audit?limit=3&after=%d", after), nil, &p))
		if len(p.Entries) > 3 {
			t.Fatalf("page of %d entries, limit 3", len(p.Entries))
		}
		all = append(all, p.Entries...)
		if p.Next == 0 {
			break
		}
		after = p.Next
	}
	created := 0
	for i, e := range all {
		if i > 0 && e.ID <= all[i-1].ID {
			t.Fatalf("ids out of order: %d after %d", e.ID, all[i-1].ID)
		}
		if e.Action == "admin:CreateTenant" && e.Outcome == "ok" && e.Status == 201 && e.Root && e.User == "root" && e.Source == "127.0.0.1" {
			created++
		}
		if e.Time.Before(start) {
			t.Fatalf("entry from before the test: %+v", e)
		}
	}
	if created != 7 {
		t.Fatalf("%d CreateTenant entries, want 7: %+v", created, all)
	}

	var none admin.AuditPage
	must(t, c.Do(ctx, "GET", fmt.Sprintf("/audit?from=%d", time.Now().Add(time.Hour).Unix()), nil, &none))
	if len(none.Entries) != 0 {
		t.Fatalf("entries from the future: %+v", none.Entries)
	}

	// The export: JSON lines as they are read, every entry (more than a page).
	body, err := c.Raw(ctx, "GET", "/audit?format=jsonl", nil)
	must(t, err)
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var e catalog.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.ID == 0 {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines++
	}
	if lines < len(all) {
		t.Fatalf("export has %d lines, the pages %d entries", lines, len(all))
	}
	body, err = c.Raw(ctx, "GET", "/audit?format=jsonl&limit=2", nil)
	must(t, err)
	if n := countLines(body); n != 2 {
		t.Fatalf("export with limit=2 has %d lines", n)
	}

	for _, q := range []string{"limit=abc", "after=-1", "from=yesterday"} {
		wantCode(t, c.Do(ctx, "GET", "/audit?"+q, nil, nil), 400, "InvalidArgument")
	}
}

func countLines(b []byte) int { return bytes.Count(b, []byte("\n")) }
