package workload

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func ops(sum report.Summary) map[string]report.Op {
	m := map[string]report.Op{}
	for _, st := range sum.Stages {
		for _, op := range st.Ops {
			m[st.Name+":"+op.OpType] = op
		}
	}
	return m
}

// COSBench's own example runs unchanged against a real node: every id
// written once, reads verified, everything removed at the end.
func TestCOSBenchExampleAgainstANode(t *testing.T) {
	w, err := Load("testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "hybrid-small" || len(w.Stages) != 5 || w.Stages[2].Works[0].Ops[2].Config["sizes"] != "c(64)KB" {
		t.Fatalf("parsed %+v", w)
	}
	srv := nodetest.Start(t, nodetest.Options{})
	sum, _, err := Run(context.Background(), w, Options{Endpoints: []string{srv.URL}, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	got := ops(sum)
	if got["init:init"].OpCount != 4 || got["prepare:write"].OpCount != 800 || got["dispose:dispose"].OpCount != 4 {
		t.Fatalf("init %d, prepare %d, dispose %d", got["init:init"].OpCount, got["prepare:write"].OpCount, got["dispose:dispose"].OpCount)
	}
	if got["cleanup:delete"].OpCount != 1600 {
		t.Fatalf("cleanup deleted %d ids, want 4 x 400", got["cleanup:delete"].OpCount)
	}
	for _, k := range []string{"main/mixed:read", "main/mixed:list", "main/mixed:write", "main/mixed:delete"} {
		if op := got[k]; op.OpCount == 0 || op.SuccessRatio != 1 {
			t.Errorf("%s: %d ok, %d failed (%s)", k, op.OpCount, op.ErrorCount, op.LastError)
		}
	}
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, "")})
	if out, err := c.ListBuckets(context.Background(), &s3.ListBucketsInput{}); err != nil || len(out.Buckets) != 0 {
		t.Fatalf("left behind: %v %v", err, out)
	}
}

// The YAML form, on the in-process mock storage: two works of one stage
// run together, totals are exact.
func TestYAMLOnMockStorage(t *testing.T) {
	w, err := Load("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := Run(context.Background(), w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := ops(sum)
	if got["prepare:write"].OpCount != 100 || got["main/read:read"].OpCount != 400 || got["main/write:write"].OpCount != 100 {
		t.Fatalf("%+v", got)
	}
	if got["main/read:read"].SuccessRatio != 1 || got["cleanup:delete"].OpCount != 120 {
		t.Fatalf("read %+v cleanup %+v", got["main/read:read"], got["cleanup:delete"])
	}
}

// Bad files are refused before anything runs, with the line and the
// reason.
func TestBadWorkloads(t *testing.T) {
	dir := t.TempDir()
	head := "<workload name=\"x\">\n<workflow>\n<workstage name=\"s\">\n"
	tail := "\n</workstage>\n</workflow>\n</workload>\n"
	for name, c := range map[string]struct{ text, want string }{
		"ratios.xml": {head + `<work name="w" workers="1" runtime="1">` + "\n" +
			`<operation type="read" ratio="50" config="containers=c(1);objects=c(1)"/></work>` + tail, "line 4: stage \"s\" work \"w\": operation ratios add up to 50"},
		"nostop.xml": {head + `<work name="w" workers="1"><operation type="read" ratio="100" config="containers=c(1);objects=c(1)"/></work>` + tail,
			"line 4: stage \"s\" work \"w\": needs a stop condition"},
		"selector.xml": {head + `<work name="w" workers="1" runtime="1">` + "\n\n" +
			`<operation type="read" ratio="100" config="containers=c(1);objects=q(1,2)"/></work>` + tail, "line 6: stage \"s\" work \"w\": selector \"q(1,2)\""},
		"file.xml":    {head + `<work name="w" workers="1" runtime="1"><operation type="filewrite" ratio="100"/></work>` + tail, "filewrite"},
		"unknown.yml": {"name: x\nstagez: []\n", "line 2"},
		"ratios.yml": {"name: x\nstages:\n  - name: s\n    works:\n      - name: w\n        workers: 1\n        runtime: 1\n        operations:\n          - {type: read, ratio: 10, config: {containers: c(1), objects: c(1)}}\n",
			"line 5: stage \"s\" work \"w\": operation ratios add up to 10"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.text), 0o644)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.want)
		}
	}
}

// The workloads kept in bench/workloads stay valid.
func TestRepositoryWorkloads(t *testing.T) {
	files, _ := filepath.Glob("../../../bench/workloads/*.xml")
	if len(files) < 5 {
		t.Fatalf("%d workload files in bench/workloads", len(files))
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Error(err)
		}
	}
}

// Split between two drivers, stage by stage, the example touches every id
// exactly once, as one process does.
func TestSharesCoverTheWorkload(t *testing.T) {
	w, err := Load("testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	srv := nodetest.Start(t, nodetest.Options{})
	base := Options{Endpoints: []string{srv.URL}, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey}
	ctx := context.Background()
	totals := map[string]int64{}
	for si := range w.Stages {
		parts := make([][]*engine.Result, 2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for d := range 2 {
			o := base
			o.Share = Share{Index: d, Count: 2}
			wg.Add(1)
			go func() { defer wg.Done(); parts[d], errs[d] = RunStage(ctx, w, si, o) }()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		merged := make([]*engine.Result, len(parts[0]))
		for wi := range parts[0] {
			if merged[wi], err = engine.Merge(parts[0][wi], parts[1][wi]); err != nil {
				t.Fatal(err)
			}
			for _, s := range merged[wi].Stats {
				totals[merged[wi].Name+":"+s.Kind] += s.Ops()
				if s.Errors() > 0 {
					t.Errorf("%s %s: %d failed: %s", merged[wi].Name, s.Kind, s.Errors(), s.LastError())
				}
			}
		}
		if err := AfterStage(ctx, w, si, merged, base); err != nil {
			t.Fatal(err)
		}
	}
	if totals["init:init"] != 4 || totals["prepare:write"] != 800 || totals["cleanup:delete"] != 1600 || totals["dispose:dispose"] != 4 {
		t.Fatalf("totals %v", totals)
	}
}

// The storage element's timeout (ms) and proxy keys are honoured.
func TestStorageKeys(t *testing.T) {
	m := mock.New()
	m.Delay = 200 * time.Millisecond
	srv := httptest.NewServer(m)
	defer srv.Close()
	tg, err := newTarget(&Storage{Type: "s3", Config: map[string]string{"endpoint": srv.URL, "path_style_access": "true", "timeout": "20"}}, Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Head(context.Background(), "b", "k"); err == nil || !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("a 20 ms timeout against a 200 ms target: %v", err)
	}
	// Through a proxy that is not there, nothing reaches the target.
	tg, _ = newTarget(&Storage{Type: "s3", Config: map[string]string{"endpoint": srv.URL, "path_style_access": "true",
		"proxyhost": "127.0.0.1", "proxyport": "1"}}, Options{}, "")
	if _, err := tg.Head(context.Background(), "b", "k"); err == nil || !strings.Contains(err.Error(), "proxy") {
		t.Fatalf("through a closed proxy: %v", err)
	}
}

// Container names an S3 endpoint would refuse (at the init stage, or at
// the first write into a bucket that does not exist) are refused before
// anything runs, by S3's rules; the in-process mock takes any name.
func TestContainerNamesFollowS3Rules(t *testing.T) {
	dir := t.TempDir()
	yml := func(storage, cfg string) string {
		return "name: x\nstorage: {type: " + storage + "}\nstages:\n  - name: init\n    works:\n      - {type: init, workers: 1, config: {" + cfg + "}}\n"
	}
	for name, c := range map[string]struct{ text, want string }{
		"short.yml":    {yml("s3", `cprefix: y, containers: "r(1,2)"`), `line 6: stage "init" work "": container "y1" (cprefix "y", csuffix "") is not a valid S3 bucket name: 2 characters, S3 wants 3 to 63`},
		"default.yml":  {yml("s3", `containers: "r(1,2)"`), `container "mycontainers_1" (cprefix "mycontainers_", csuffix "") is not a valid S3 bucket name: '_'`},
		"upper.yml":    {yml("s3", `cprefix: Bench-, containers: "r(1,1)"`), `'B': only lower-case letters`},
		"long.yml":     {yml("s3", `cprefix: "`+strings.Repeat("a", 62)+`", containers: "r(9,10)"`), `container "` + strings.Repeat("a", 62) + `10" (cprefix "` + strings.Repeat("a", 62) + `", csuffix "") is not a valid S3 bucket name: 64 characters`},
		"hyphen.yml":   {yml("s3", `cprefix: b, csuffix: "-", containers: "r(1,1)"`), "begin and end with a letter or digit"},
		"walk.yml":     {yml("s3", `cprefix: bench-, containers: "c(1)"`), `line 6: stage "init" work "": a init work walks a range: containers wants r(LO,HI), not c(...)`},
		"ip.yml":       {yml("s3", `cprefix: "10.0.0.", containers: "r(1,1)"`), "IP address"},
		"read.yml":     {"name: x\nstages:\n  - name: s\n    works:\n      - name: w\n        workers: 1\n        runtime: 1\n        operations:\n          - {type: read, ratio: 100, config: {cprefix: a_b, containers: c(1), objects: c(1)}}\n", `line 9: stage "s" work "w": container "a_b1"`},
		"cosbench.xml": {`<workload name="x"><storage type="s3"/><workflow><workstage name="s">` + "\n" + `<work type="prepare" workers="1" config="cprefix=x;containers=r(1,2);objects=r(1,2);sizes=c(1)KB"/></workstage></workflow></workload>`, `line 2: stage "s" work "": container "x1"`},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(c.text), 0o644)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
	for name, text := range map[string]string{
		"good.yml": yml("s3", `cprefix: bench-yaml-, containers: "r(1,2)"`),
		"dots.yml": yml("s3", `cprefix: bench.yaml., containers: "r(1,2)"`),
		"mock.yml": yml("mock", `cprefix: y, containers: "r(1,2)"`),
		"max.yml":  yml("s3", `cprefix: "`+strings.Repeat("a", 61)+`", containers: "r(1,99)"`),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		if _, err := Load(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Each measured work gets a ceiling of its own operations, ratios, sizes,
// workers and verification (reads find what the prepare would have
// written), named as its results are: a hybrid stage is never compared
// with a ceiling of GETs only, at another stage's worker count.
func TestCeilingsOfEachMeasuredWork(t *testing.T) {
	w, err := Load("testdata/hybrid-small.xml")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Ceilings(context.Background(), w, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Stage != "main/mixed" || cs[0].ThroughputOps <= 0 || cs[0].BandwidthMBps <= 0 ||
		!strings.Contains(cs[0].What, "read 60%, list 10%, write 16% of c(64)KB, delete 14%, verifying, 16 workers") {
		t.Fatalf("ceilings %+v", cs)
	}
	sweep, err := Load("../../../bench/workloads/size-sweep.xml")
	if err != nil {
		t.Fatal(err)
	}
	// One container, an object prefix a size: each read stage reads its
	// own size.
	cs, err = Ceilings(context.Background(), sweep, 16, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var reads []report.Ceiling
	for _, c := range cs {
		names = append(names, c.Stage)
		if strings.HasPrefix(c.Stage, "read-") {
			reads = append(reads, c)
		}
	}
	if len(cs) != 10 || len(reads) != 5 {
		t.Fatalf("%d ceilings for the 5 write and 5 read stages of the size sweep: %v", len(cs), names)
	}
	for i, c := range reads {
		// Larger objects: fewer op/s, as the sizes grow stage by stage.
		if i > 0 && c.ThroughputOps >= reads[i-1].ThroughputOps {
			t.Errorf("%s: %.1f op/s, not fewer than %s's %.1f", c.Stage, c.ThroughputOps, reads[i-1].Stage, reads[i-1].ThroughputOps)
		}
	}
}
