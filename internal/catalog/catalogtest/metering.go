package catalogtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

func testMetering(t *testing.T, s catalog.Store) {
	h0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	h1 := h0.Add(time.Hour)
	k := func(bucket string, h time.Time) catalog.MeterKey {
		return catalog.MeterKey{Tenant: "acme", Bucket: bucket, Hour: h}
	}
	// Two nodes add to the same bucket-hour; each flush adds, none replaces.
	must(t, s.AddTraffic(ctx, "n1", map[catalog.MeterKey]catalog.Traffic{k("b", h0): {Get: 1, Put: 2, BytesIn: 100}, k("b", h1): {List: 4}}))
	must(t, s.AddTraffic(ctx, "n1", map[catalog.MeterKey]catalog.Traffic{k("b", h0): {Get: 10, Delete: 1, BytesOut: 7}}))
	must(t, s.AddTraffic(ctx, "n2", map[catalog.MeterKey]catalog.Traffic{k("b", h0): {Get: 100}}))
	must(t, s.AddTraffic(ctx, "n2", map[catalog.MeterKey]catalog.Traffic{{Tenant: "beta", Bucket: "b", Hour: h0}: {Get: 1000}}))

	must(t, s.CreateBucket(ctx, catalog.Bucket{Name: "b", Owner: "o", Tenant: "acme", CreatedAt: time.Now()}))
	put(t, s, object("b", "x", 300))
	must(t, s.SampleStorage(ctx, h0))
	put(t, s, object("b", "y", 50))
	must(t, s.SampleStorage(ctx, h0)) // the first sample of an hour stands
	must(t, s.SampleStorage(ctx, h1))

	rows, err := s.UsageReport(ctx, "acme", h0, h1.Add(time.Hour))
	must(t, err)
	got := fmt.Sprint(rows)
	want := fmt.Sprint([]catalog.UsageRow{
		{Bucket: "b", Hour: h0, ByteHours: 300, Objects: 1, Traffic: catalog.Traffic{Get: 111, Put: 2, Delete: 1, BytesIn: 100, BytesOut: 7}},
		{Bucket: "b", Hour: h1, ByteHours: 350, Objects: 2, Traffic: catalog.Traffic{List: 4}},
	})
	if got != want {
		t.Fatalf("UsageReport =\n%s\nwant\n%s", got, want)
	}
	rows, err = s.UsageReport(ctx, "acme", h1, h1.Add(time.Hour))
	must(t, err)
	if len(rows) != 1 || !rows[0].Hour.Equal(h1) {
		t.Fatalf("report of one hour = %+v", rows)
	}
}
