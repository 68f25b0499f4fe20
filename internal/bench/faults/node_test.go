package faults_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/workload"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
	"github.com/ostiumio/ostium/internal/testenv"
)

// A node's catalog, a PostgreSQL server of the test's own, is stopped
// and started again by the fault schedule of a workload writing under
// load. The timeline shows the node's 503s in the seconds the catalog was
// away and none before; the figures of both faults are the timeline's;
// and every write the node acknowledged, before, during and after, reads
// back whole.
func TestCatalogStoppedByAFault(t *testing.T) {
	pg := testenv.PrivatePostgres(t)
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.Catalog = pg.URL() }})
	wl := fmt.Sprintf(`name: catalog-stop
storage: {type: s3, config: {endpoint: %q, path_style_access: "true", accesskey: %q, secretkey: %q, timeout: "10000"}}
faults:
  - {name: catalog down, stage: main, at: 2s, timeout: 30s, command: %q}
  - {name: catalog up, stage: main, at: 6s, timeout: 30s, command: %q}
stages:
  - name: init
    works:
      - {type: init, workers: 1, config: {cprefix: fault, containers: "r(1,1)"}}
  - name: main
    works:
      - name: write
        workers: 4
        runtime: 12
        operations:
          - {type: write, ratio: 100, config: {cprefix: fault, containers: "c(1)", oprefix: o, objects: "s(1,100000000)", sizes: "c(2)KB"}}
`, srv.URL, nodetest.AccessKey, nodetest.SecretKey, pg.CtlCommand("stop", "-m", "fast", "-w"), pg.CtlCommand("start", "-w"))
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := workload.Run(context.Background(), w, workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := sum.Availability
	if a == nil || len(a.Faults) != 2 {
		t.Fatalf("availability %+v", a)
	}
	down, up := a.Faults[0], a.Faults[1]
	for _, f := range a.Faults {
		if !f.Ran() || f.Error != "" || f.ExitCode != 0 {
			t.Fatalf("fault %q: ran %v, exit %d, %s\n%s", f.Name, f.Ran(), f.ExitCode, f.Error, f.Output)
		}
	}
	if gap := up.AtS - down.AtS; gap < 3.5 || gap > 5 {
		t.Fatalf("the faults ran %.2f s apart, want about 4", gap)
	}
	d, u := int(down.AtS), int(up.AtS)
	var writes, failed int64
	for _, s := range a.Seconds {
		writes += s.OK
		failed += s.Failed()
		for k := range s.Errors {
			if k != "503" {
				t.Errorf("second %d: errors %v; a node whose catalog is away answers 503 only", s.T, s.Errors)
			}
		}
		switch {
		case s.T < d && s.Failed() > 0:
			t.Errorf("second %d, before the catalog stopped at %.2f s: %d errors", s.T, down.AtS, s.Failed())
		case s.T >= d+2 && s.T < u && (s.Failed() == 0 || s.OK > 0):
			// Well inside the outage (stopping takes a moment): every
			// write fails, and fails fast enough to be counted.
			t.Errorf("second %d, the catalog away since %.2f s: %d ok, %d errors", s.T, down.AtS, s.OK, s.Failed())
		}
	}
	if failed == 0 {
		t.Fatal("no write failed while the catalog was away")
	}
	// The down fault's figures: its window lies within its outage, its
	// failures are the timeline's between the two faults, and it had not
	// recovered when the up fault came.
	var between int64
	for _, s := range a.Seconds[d:u] {
		between += s.Failed()
	}
	if down.FirstErrorS < d || down.FirstErrorS > d+2 || down.LastErrorS < u-1 || down.LastErrorS >= u ||
		down.ErrorWindowS != down.LastErrorS-down.FirstErrorS+1 || down.Failed != between {
		t.Errorf("catalog down: errors %d-%d (%d s), %d failed; the timeline has %d failed in seconds %d-%d", down.FirstErrorS,
			down.LastErrorS, down.ErrorWindowS, down.Failed, between, d, u-1)
	}
	if !down.Impact || down.RecoverS != -1 || down.BaselineOK <= 0 {
		t.Errorf("catalog down: impact %v, recovered after %v, baseline %v", down.Impact, down.RecoverS, down.BaselineOK)
	}
	// The up fault is measured against the same baseline, and the node
	// serves again without a restart. Whether its rate is back to the
	// baseline within the stage depends on the machine's load; what is
	// asserted is that the figure agrees with the timeline.
	if up.BaselineOK != down.BaselineOK || !up.Impact {
		t.Errorf("%s", text(a))
		t.Errorf("catalog up: baseline %v (down's %v), impact %v", up.BaselineOK, down.BaselineOK, up.Impact)
	}
	var after int64
	for _, s := range a.Seconds[u:] {
		after += s.OK
	}
	if after == 0 {
		t.Errorf("no write succeeded after the catalog came back:\n%s", text(a))
	}
	rec := len(a.Seconds) // not recovered: no second after the fault is back
	if up.RecoverS > 0 {
		rec = int(up.AtS + up.RecoverS)
		if s := a.Seconds[rec]; float64(s.OK) < 0.9*up.BaselineOK {
			t.Errorf("second %d, called recovered: %d ok against a baseline of %.0f", rec, s.OK, up.BaselineOK)
		}
	} else if up.RecoverS != -1 {
		t.Errorf("catalog up: recovered after %v s", up.RecoverS)
	}
	for s := u; s < rec; s++ {
		if float64(a.Seconds[s].OK) >= 0.9*up.BaselineOK && a.Seconds[s].T > u {
			t.Errorf("second %d was back (%d ok) before the second called recovered, %d", s, a.Seconds[s].OK, rec)
		}
	}
	// Every acknowledged write: one key each (the object ids are drawn
	// in sequence), all read back.
	ack := a.Acknowledged
	var puts int64
	for _, st := range sum.Stages {
		for _, op := range st.Ops {
			if op.OpType == "write" {
				puts += op.OpCount
			}
		}
	}
	if writes != puts+1 { // and the init's bucket
		t.Errorf("the timeline counts %d successes, the report %d writes and a bucket", writes, puts)
	}
	if ack == nil || ack.Acknowledged != puts || ack.Verified != puts || ack.Lost() {
		t.Fatalf("acknowledged writes %+v; the report counts %d successful writes", ack, puts)
	}
	// The report says it: the text, the CSVs, the chart.
	dir := t.TempDir()
	if err := report.WriteDir(dir, sum, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"timeline.csv", "faults.csv", "faults/01-catalog-down.log", "faults/02-catalog-up.log"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	txt := text(a)
	if !strings.Contains(txt, "catalog down") || !strings.Contains(txt, "503") {
		t.Errorf("text report:\n%s", txt)
	}
	t.Logf("%s", txt)
}

func text(a *report.Availability) string {
	var b strings.Builder
	report.WriteAvailability(&b, a)
	return b.String()
}
