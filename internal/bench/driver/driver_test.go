package driver_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/driver"
	"github.com/ostiumio/ostium/internal/bench/workload"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Three drivers over HTTP run COSBench's example against a real node: the
// merged report counts every id once, and its histograms hold every sample.
func TestThreeDrivers(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	var drivers []string
	for range 3 {
		d := httptest.NewServer(driver.Handler())
		defer d.Close()
		drivers = append(drivers, d.URL)
	}
	w, err := workload.Load("../workload/testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	c := &driver.Controller{Drivers: drivers}
	sum, results, err := c.Run(context.Background(), w, workload.Options{Endpoints: []string{srv.URL},
		AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, st := range sum.Stages {
		for _, op := range st.Ops {
			got[st.Name+":"+op.OpType] = op.OpCount
			if op.ErrorCount > 0 {
				t.Errorf("%s %s: %d failed: %s", st.Name, op.OpType, op.ErrorCount, op.LastError)
			}
		}
	}
	if got["init:init"] != 4 || got["prepare:write"] != 800 || got["cleanup:delete"] != 1600 || got["dispose:dispose"] != 4 {
		t.Fatalf("totals %v", got)
	}
	// The reads of main check contents (hashCheck=true): the merged
	// summary says what all drivers checked, as one process's would.
	if sum.Verified == nil || sum.Verified.Objects != got["main/mixed:read"] || sum.Verified.Objects == 0 ||
		sum.Verified.Bytes == 0 || sum.Verified.Mismatches != 0 {
		t.Fatalf("verified %+v, want the %d reads of main", sum.Verified, got["main/mixed:read"])
	}
	for _, r := range results {
		for _, s := range r.Stats {
			if s.Latency.Count() != uint64(s.Ops()) {
				t.Fatalf("%s %s: %d samples for %d operations", r.Name, s.Kind, s.Latency.Count(), s.Ops())
			}
		}
		if r.Name == "main/mixed" && r.Workers != 16 {
			t.Fatalf("main ran %d workers in all, want 16", r.Workers)
		}
	}
}
