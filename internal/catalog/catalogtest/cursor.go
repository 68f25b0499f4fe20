package catalogtest

import (
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
)

func testCursors(t *testing.T, s catalog.Store) {
	c, ok := s.(catalog.Cursors)
	if !ok {
		t.Skip("the driver keeps no cursors")
	}
	got, err := c.Cursor(ctx, "lifecycle")
	must(t, err)
	if got != "" {
		t.Fatalf("fresh cursor = %q", got)
	}
	must(t, c.SetCursor(ctx, "lifecycle", `{"bucket":"a"}`))
	must(t, c.SetCursor(ctx, "other", "x"))
	must(t, c.SetCursor(ctx, "lifecycle", `{"bucket":"b"}`))
	if got, err = c.Cursor(ctx, "lifecycle"); err != nil || got != `{"bucket":"b"}` {
		t.Fatalf("Cursor = %q, %v", got, err)
	}
	if got, err = c.Cursor(ctx, "other"); err != nil || got != "x" {
		t.Fatalf("Cursor(other) = %q, %v", got, err)
	}
}
