package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

const example = "../../internal/bench/workload/testdata/hybrid-small.xml"

// As the README writes it: the file first, flags after, and the keys from
// the environment (the file's are placeholders).
func TestBenchRunAsTheReadmeWritesIt(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	out := filepath.Join(t.TempDir(), "run")
	if err := execute([]string{"bench", "run", example, "--endpoint", srv.URL, "--no-ceiling", "--out", out}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	// A wrong key in the environment fails the run at its first request,
	// with S3's reason.
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", "AKWRONG")
	err := execute([]string{"bench", "run", example, "--endpoint", srv.URL, "--no-ceiling", "--out", filepath.Join(t.TempDir(), "bad")})
	if err == nil || !strings.Contains(err.Error(), "403 InvalidAccessKeyId") {
		t.Fatalf("wrong key: %v", err)
	}
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", "")
	err = execute([]string{"bench", "run", example, "--endpoint", srv.URL, "--no-ceiling"})
	if err == nil || !strings.Contains(err.Error(), "incomplete credentials: an access key but no secret key") {
		t.Fatalf("half a key pair: %v", err)
	}
}

// A run whose operations fail more often than --max-error-ratio allows
// fails, after writing its results; one in which nothing succeeded too.
func TestBenchFailsOnErrors(t *testing.T) {
	m := mock.New()
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Count(r.URL.Path, "/") == 2 && gets.Add(1)%10 == 0 {
			http.Error(w, "<Error><Code>InternalError</Code><Message>one in ten</Message></Error>", http.StatusInternalServerError)
			return
		}
		m.ServeHTTP(w, r)
	}))
	defer srv.Close()
	args := func(extra ...string) []string {
		return append([]string{"bench", "get", "--endpoint", srv.URL, "--access-key", "k", "--secret-key", "s", "--ops", "500", "--objects", "20",
			"--concurrency", "4", "--no-ceiling", "--out", filepath.Join(t.TempDir(), "r")}, extra...)
	}
	err := execute(args())
	if err == nil || !strings.Contains(err.Error(), "operations failed") || !strings.Contains(err.Error(), "--max-error-ratio") {
		t.Fatalf("10%% failed: %v", err)
	}
	if err := execute(args("--max-error-ratio", "0.2")); err != nil {
		t.Fatalf("10%% failed, 20%% allowed: %v", err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "<Error><Code>ServiceUnavailable</Code></Error>", http.StatusServiceUnavailable)
			return
		}
		m.ServeHTTP(w, r)
	}))
	defer down.Close()
	err = execute([]string{"bench", "get", "--endpoint", down.URL, "--access-key", "k", "--secret-key", "s", "--ops", "50", "--objects", "5",
		"--no-ceiling", "--max-error-ratio", "1", "--out", filepath.Join(t.TempDir(), "d")})
	if err == nil || !strings.Contains(err.Error(), "all 50 operations failed") {
		t.Fatalf("nothing succeeded: %v", err)
	}
}

// A results directory is named by the run's start, the time its report
// shows, however long the run took: here more than a second, so that an
// end time would name it otherwise.
func TestResultsDirIsNamedByTheStart(t *testing.T) {
	m := mock.New()
	m.Delay = 1100 * time.Millisecond
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Chdir(t.TempDir())
	if err := execute([]string{"bench", "put", "--endpoint", srv.URL, "--access-key", "k", "--secret-key", "s", "--ops", "4",
		"--concurrency", "4", "--no-ceiling"}); err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join("bench-results", "put-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("results directories %v, %v", dirs, err)
	}
	sum, err := report.ReadSummary(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "put-" + sum.Started.Local().Format("20060102-150405"); filepath.Base(dirs[0]) != want {
		t.Fatalf("results in %s, the report says the run started at %s: want %s", dirs[0], sum.Started, want)
	}
}

// `sizing workers --from` names the stages it found when the one asked for
// has no such operations, or when none is asked for and several have.
func TestSizingWorkersListsTheStages(t *testing.T) {
	dir := t.TempDir()
	op := func(typ string) report.Op {
		return report.Op{OpType: typ, OpCount: 100, AvgResTimeMs: 10, ThroughputOps: 400}
	}
	sum := report.Summary{Started: time.Now(), Stages: []report.Stage{
		{Name: "fill", Workers: 4, Ops: []report.Op{op("write")}},
		{Name: "r4", Workers: 4, Ops: []report.Op{op("read")}},
		{Name: "r16", Workers: 16, Ops: []report.Op{op("read"), op("write")}},
		{Name: "empty", Workers: 4, Ops: []report.Op{op("delete")}},
	}}
	if err := report.WriteDir(dir, sum, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stage", "main"}, `no read operations in stage "main"; stages: fill, r4, r16, empty; stages with read operations: r4, r16`},
		{nil, "2 stages have read operations, name one with --stage: r4, r16"},
		{[]string{"--op", "list"}, "no stage has list operations; stages: fill, r4, r16, empty"},
	} {
		err := execute(append([]string{"sizing", "workers", "--from", dir, "--target-ops", "1000"}, c.args...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	// One stage with the operation needs no --stage.
	for _, args := range [][]string{{"--stage", "r16"}, {"--op", "read", "--stage", "r4"}, {"--op", "delete"}} {
		if err := execute(append([]string{"sizing", "workers", "--from", dir}, args...)); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// A put run says what its cleanup does while it runs (deleted of to
// delete) and how long the run and the cleanup took; --no-cleanup leaves
// what it wrote behind.
func TestBenchPutSaysWhereTheTimeWent(t *testing.T) {
	srv := httptest.NewServer(mock.New())
	defer srv.Close()
	written := func() int {
		resp, err := http.Get(srv.URL + "/ostium-bench-0/put-0000000000")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	args := []string{"bench", "put", "--endpoint", srv.URL, "--access-key", "k", "--secret-key", "s", "--ops", "200",
		"--concurrency", "4", "--no-ceiling", "--out", filepath.Join(t.TempDir(), "r")}
	text, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cleanup: deleting the 200 objects and 1 bucket(s) the run wrote (--no-cleanup keeps them)",
		"[cleanup]", "ops 200/200", "The run took ", ": main ", ", cleanup "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if code := written(); code != http.StatusNotFound {
		t.Fatalf("after the cleanup: %d", code)
	}
	text, err = runCLI(t, append(args, "--no-cleanup")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "cleanup") {
		t.Errorf("--no-cleanup cleaned up:\n%s", text)
	}
	if code := written(); code != http.StatusOK {
		t.Fatalf("with --no-cleanup: %d", code)
	}
}

// `bench mixed --mix` is checked before any request; only mixed has it.
func TestBenchMixFlag(t *testing.T) {
	srv := httptest.NewServer(mock.New())
	defer srv.Close()
	base := []string{"--endpoint", srv.URL, "--access-key", "k", "--secret-key", "s", "--ops", "300", "--objects", "10", "--no-ceiling"}
	err := execute(append([]string{"bench", "mixed", "--mix", "get=50,list=40"}, base...))
	if err == nil || !strings.Contains(err.Error(), "add up to 90, not 100") {
		t.Fatalf("a mix of 90%%: %v", err)
	}
	if err := execute(append([]string{"bench", "get", "--mix", "get=100"}, base...)); err == nil || !strings.Contains(err.Error(), "unknown flag: --mix") {
		t.Fatalf("--mix on get: %v", err)
	}
	out := filepath.Join(t.TempDir(), "m")
	text, err := runCLI(t, append([]string{"bench", "mixed", "--mix", "get=50,list=50", "--out", out}, base...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "mix get=50,list=50") {
		t.Errorf("the mix is not in the header:\n%s", text)
	}
	sum, err := report.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sum.Stages {
		for _, op := range st.Ops {
			if st.Name == "main" && op.OpType != "read" && op.OpType != "list" {
				t.Errorf("main ran %s", op.OpType)
			}
		}
	}
}

// Every workload example of docs/bench.md (a yaml block, or an xml block
// holding a <workload>) runs as written against a node, its runtimes cut
// to a second: the page cannot show a workload that fails.
func TestDocsWorkloadExamplesRun(t *testing.T) {
	doc, err := os.ReadFile("../../docs/bench.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```(yaml|xml)\n(.*?)^```").FindAllStringSubmatch(string(doc), -1)
	var examples []string
	for _, b := range blocks {
		if b[1] == "yaml" && strings.Contains(b[2], "stages:") || b[1] == "xml" && strings.Contains(b[2], "<workload") {
			examples = append(examples, b[2])
		}
	}
	if len(examples) == 0 {
		t.Fatal("no workload example in docs/bench.md")
	}
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	short := regexp.MustCompile(`(runtime(?:: |="))\d+`)
	for i, ex := range examples {
		ext := ".yaml"
		if strings.Contains(ex, "<workload") {
			ext = ".xml"
		}
		file := filepath.Join(t.TempDir(), fmt.Sprintf("example-%d%s", i, ext))
		if err := os.WriteFile(file, []byte(short.ReplaceAllString(ex, "${1}1")), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := execute([]string{"bench", "run", file, "--endpoint", srv.URL, "--no-ceiling", "--out", out}); err != nil {
			t.Fatalf("example %d of docs/bench.md:\n%s\n%v", i+1, ex, err)
		}
		sum, err := report.ReadSummary(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sum.Stages {
			for _, op := range st.Ops {
				if op.OpCount == 0 || op.ErrorCount > 0 {
					t.Errorf("example %d, stage %s: %d %s, %d failed: %s", i+1, st.Name, op.OpCount, op.OpType, op.ErrorCount, op.LastError)
				}
			}
		}
	}
}

// Every measured stage is set against the ceiling of its own operations
// (here reads that verify every byte, against the in-process target the
// ceiling also uses), in the text and in summary.json, with the CPU the
// bench process used; the ratio is never over 1. Whether a stage was bound
// by the client is decided by report.Headroom (TestHeadroom): on a shared
// machine a run and its two-second ceiling are too noisy to assert it here.
func TestBenchSetsEachStageAgainstItsCeiling(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mock.yaml")
	os.WriteFile(file, []byte(`name: at-the-ceiling
storage: {type: mock}
stages:
  - name: init
    works:
      - {type: init, workers: 1, config: {cprefix: ceil-, containers: "r(1,1)"}}
  - name: prepare
    works:
      - {type: prepare, workers: 4, config: {cprefix: ceil-, containers: "r(1,1)", objects: "r(1,32)", sizes: "c(1)MB"}}
  - name: main
    works:
      - name: verify
        workers: 8
        runtime: 3
        operations:
          - {type: read, ratio: 100, config: {cprefix: ceil-, containers: "c(1)", objects: "u(1,32)", hashCheck: "true"}}
`), 0o644)
	out := filepath.Join(t.TempDir(), "r")
	text, err := runCLI(t, "bench", "run", file, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"generator ceiling of main/verify (in-process mock, read 100%, verifying, 8 workers)",
		"Headroom: stage main/verify: ", "its generator ceiling", "The bench process used "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	sum, err := report.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Bounds) != 1 || sum.Bounds[0].Stage != "main/verify" || sum.Bounds[0].Ratio <= 0 || sum.Bounds[0].Ratio > 1 ||
		sum.ClientCPU == nil || sum.ClientCPU.Seconds <= 0 {
		t.Fatalf("summary.json: bounds %+v, client CPU %+v", sum.Bounds, sum.ClientCPU)
	}
}
