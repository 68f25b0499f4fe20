package workload

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// A key the node does not know fails the first request of the init stage
// with 403: the run stops there, at once, and says why in S3's words,
// rather than after a minute of a main stage in which everything fails.
func TestSetupFailureStopsTheRunAtOnce(t *testing.T) {
	w, err := Load("testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Stages[2].Works[0].Runtime = 60
	srv := nodetest.Start(t, nodetest.Options{})
	start := time.Now()
	sum, _, err := Run(context.Background(), w, Options{Endpoints: []string{srv.URL}, AccessKey: "AKNOTAKEY", SecretKey: "nope"})
	if err == nil {
		t.Fatal("a run with an unknown key succeeded")
	}
	// As AWS S3: 403 InvalidAccessKeyId, with its message.
	if !strings.Contains(err.Error(), "403 InvalidAccessKeyId: ") || !strings.Contains(err.Error(), "init") {
		t.Fatalf("error %q does not name the stage, the status, the code and the message", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the run took %v to give up", d)
	}
	if len(sum.Stages) != 1 || sum.Stages[0].Name != "init" || sum.Stages[0].Ops[0].ErrorCount != 1 {
		t.Fatalf("stages run: %+v", sum.Stages)
	}
}

// A prepare that fails stops at its first failure too, with the reason:
// a handful of errors (one a worker at most), not one an object.
func TestPrepareStopsAtItsFirstFailure(t *testing.T) {
	var puts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method == http.MethodPut && strings.Count(strings.Trim(r.URL.Path, "/"), "/") == 1 {
			puts.Add(1)
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		}
	}))
	defer srv.Close()
	w, err := Load("testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := Run(context.Background(), w, Options{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	if err == nil || !strings.Contains(err.Error(), "prepare") || !strings.Contains(err.Error(), "403 AccessDenied: Access Denied") {
		t.Fatalf("error %v", err)
	}
	if n := puts.Load(); n > 8 {
		t.Fatalf("%d PUTs sent after the first failed", n)
	}
	if len(sum.Stages) != 2 {
		t.Fatalf("stages run: %d", len(sum.Stages))
	}
}

// mean is the mean size a size selector draws, in bytes.
func (s Selector) mean() float64 {
	switch s.Kind {
	case 'c':
		return float64(s.Lo * s.Unit)
	case 'h':
		var sum, weights float64
		for _, b := range s.Buckets {
			sum += float64(b.weight) * float64(b.lo+b.hi) / 2
			weights += float64(b.weight)
		}
		return sum / weights * float64(s.Unit)
	}
	return float64(s.Lo+s.Hi) / 2 * float64(s.Unit)
}

func (s Selector) count() int64 { return s.Hi - s.Lo + 1 }

// The shipped workloads fit the small machine docs/bench.md promises (2
// cores, a few GB free, minutes): what they store at once, what they hold
// in flight and how long their timed stages run are bounded; and each,
// scaled down, runs cleanly against the mock over real HTTP.
func TestRepositoryWorkloadsFitASmallMachine(t *testing.T) {
	files, _ := filepath.Glob("../../../bench/workloads/*.xml")
	if len(files) < 5 {
		t.Fatalf("%d workload files in bench/workloads", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			// Writes of the same names overwrite each other: what is stored
			// is counted once a name range.
			stored := map[string]float64{}
			total := func() (n float64) {
				for _, v := range stored {
					n += v
				}
				return n
			}
			var peak, inFlight float64
			var seconds int
			for _, st := range w.Stages {
				for _, wk := range st.Works {
					seconds += wk.Runtime + wk.Rampup + wk.Rampdown
					cfgs := []map[string]string{wk.Config}
					for _, op := range wk.Ops {
						cfgs = append(cfgs, merge(wk.Config, op.Config))
					}
					for i, cfg := range cfgs {
						sz, ok := cfg["sizes"]
						if !ok || i == 0 && wk.Type != "prepare" || i > 0 && wk.Ops[i-1].Type != "write" {
							continue
						}
						sel, err := ParseSelector(sz, true)
						if err != nil {
							t.Fatal(err)
						}
						n, _ := parseNaming(cfg, "containers", "objects")
						ids := float64(n.containers.count() * n.objects.count())
						if wk.TotalOps > 0 {
							ids = math.Min(ids, float64(wk.TotalOps))
						}
						key := cfg["cprefix"] + "|" + cfg["oprefix"] + "|" + cfg["containers"] + "|" + cfg["objects"]
						stored[key] = math.Max(stored[key], ids*sel.mean())
						largest := sel.mean()
						if sel.Kind == 'h' {
							largest = float64(sel.Buckets[len(sel.Buckets)-1].hi * sel.Unit)
						}
						inFlight = math.Max(inFlight, float64(wk.Workers)*math.Min(largest, sel.mean()*4))
					}
					if wk.Type == "cleanup" || wk.Type == "dispose" {
						peak, stored = math.Max(peak, total()), map[string]float64{}
					}
				}
			}
			peak = math.Max(peak, total())
			t.Logf("%s: at most %.2f GB stored, %.2f GB in flight, %d s of timed stages", w.Name, peak/1e9, inFlight/1e9, seconds)
			if peak > 2.5e9 || inFlight > 4e9 || seconds > 180 {
				t.Errorf("%s does not fit a small machine: %.2f GB stored, %.2f GB in flight, %d s timed", w.Name, peak/1e9, inFlight/1e9, seconds)
			}
			scaleDown(w)
			srv := httptest.NewServer(mock.New())
			defer srv.Close()
			sum, _, err := Run(context.Background(), w, Options{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if err := report.Check(sum, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// scaleDown shrinks a workload to a second a timed stage, a few workers,
// at most 10 ids a selector and objects of a few KB.
func scaleDown(w *Workload) {
	rng := regexp.MustCompile(`([urs])\((\d+),(\d+)\)`)
	shrink := func(cfg map[string]string) {
		for _, k := range []string{"containers", "objects"} {
			cfg[k] = rng.ReplaceAllStringFunc(cfg[k], func(m string) string {
				p := rng.FindStringSubmatch(m)
				lo, _ := strconv.Atoi(p[2])
				hi, _ := strconv.Atoi(p[3])
				return fmt.Sprintf("%s(%d,%d)", p[1], lo, min(hi, lo+9))
			})
		}
		if _, ok := cfg["sizes"]; ok {
			cfg["sizes"] = "u(1,4)KB"
		}
	}
	for si := range w.Stages {
		for wi := range w.Stages[si].Works {
			wk := &w.Stages[si].Works[wi]
			wk.Workers = min(wk.Workers, 4)
			wk.Rampup, wk.Rampdown = 0, 0
			if wk.Runtime > 0 {
				wk.Runtime = 1
			}
			if wk.TotalOps > 0 {
				wk.TotalOps = min(wk.TotalOps, 10)
			}
			shrink(wk.Config)
			for oi := range wk.Ops {
				shrink(wk.Ops[oi].Config)
			}
		}
	}
}

// Sizes take the bench's units everywhere a workload names one: totalBytes
// in both forms, and the sizes selectors (COSBench's KB is 1000 bytes).
func TestWorkloadSizesTakeUnits(t *testing.T) {
	y, err := parseYAML([]byte("name: u\nstorage: {type: mock}\nstages:\n  - name: main\n    works:\n      - name: w\n        workers: 1\n        totalBytes: 1TB\n        operations:\n          - {type: write, ratio: 100, config: {containers: \"c(1)\", objects: \"u(1,2)\", sizes: \"c(4)KiB\"}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Stages[0].Works[0].TotalBytes; got != 1e12 {
		t.Fatalf("YAML totalBytes 1TB = %d", got)
	}
	x, err := parseXML([]byte(`<workload name="u"><storage type="mock"/><workflow><workstage name="main"><work name="w" workers="1" totalBytes="2GiB"><operation type="write" ratio="100" config="containers=c(1);objects=u(1,2);sizes=c(4)kb"/></work></workstage></workflow></workload>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Stages[0].Works[0].TotalBytes; got != 2<<30 {
		t.Fatalf("XML totalBytes 2GiB = %d", got)
	}
	for in, want := range map[string]int64{"c(4)KiB": 4096, "c(4)KB": 4000, "c(4)kb": 4000, "c(1)TB": 1e12} {
		sel, err := ParseSelector(in, true)
		if err != nil || sel.Lo*sel.Unit != want {
			t.Errorf("%s = %d, %v", in, sel.Lo*sel.Unit, err)
		}
	}
	if _, err := parseYAML([]byte("name: u\nstages:\n  - name: m\n    works:\n      - {name: w, workers: 1, totalBytes: 1XB}\n")); err == nil || !strings.Contains(err.Error(), "1XB") {
		t.Fatalf("a bad unit: %v", err)
	}
}
