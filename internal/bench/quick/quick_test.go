package quick_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/quick"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]quick.Size{
		"4KiB": {4096, 4096}, "1MB": {1e6, 1e6}, "512": {512, 512}, "1KiB-1MiB": {1024, 1 << 20}, "0.5MiB": {1 << 19, 1 << 19},
		"1TB": {1e12, 1e12}, "2TiB": {2 << 40, 2 << 40}, "4kib": {4096, 4096}, "1.5 GB": {1.5e9, 1.5e9}, "1e3KB": {1e6, 1e6},
		"1PB": {1e15, 1e15}, "4KiB-1TB": {4096, 1e12},
	} {
		if got, err := quick.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x", "2MiB-1MiB", "-3", "1XB", "KB", "1e", "1KB KB", "1e30PB"} {
		if _, err := quick.ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	s := quick.Size{Min: 100, Max: 200}
	if s.Of("a") != s.Of("a") || s.Of("a") < 100 || s.Of("a") > 200 {
		t.Error("a random size must derive from the name, within the range")
	}
}

// Every mode against a real node verifies what it reads, fails nothing,
// and leaves the endpoint as it found it.
func TestModesAgainstANode(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	tg, err := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: nodetest.AccessKey, SecretKey: nodetest.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range quick.Modes {
		t.Run(mode, func(t *testing.T) {
			sum, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: mode, Ops: 200, Concurrency: 4,
				Size: quick.Size{Min: 1, Max: 40 << 10}, Buckets: 2, BucketPrefix: "q-" + mode, Objects: 50, Verify: true,
				Interval: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			stages := map[string]bool{}
			for _, st := range sum.Stages {
				stages[st.Name] = true
				for _, op := range st.Ops {
					if op.SuccessRatio != 1 && op.OpCount+op.ErrorCount > 0 {
						t.Errorf("%s %s: %d failed: %s", st.Name, op.OpType, op.ErrorCount, op.LastError)
					}
				}
			}
			// Delete mode deletes all it prepared: nothing is left to clean.
			if !stages["main"] || stages["cleanup"] == (mode == "delete") || (mode != "put" && mode != "multipart") != stages["prepare"] {
				t.Errorf("stages %v", stages)
			}
		})
	}
	// Stopped by time, operations are cut short mid-flight; cleanup still
	// leaves nothing behind.
	for _, mode := range []string{"mixed", "delete"} {
		_, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: mode, Duration: 300 * time.Millisecond, Concurrency: 8,
			Size: quick.Size{Min: 1, Max: 1000}, Buckets: 1, BucketPrefix: "timed-" + mode, Objects: 2000})
		if err != nil {
			t.Fatalf("%s by time: %v", mode, err)
		}
	}
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, "")})
	out, err := c.ListBuckets(context.Background(), &s3.ListBucketsInput{})
	if err != nil || len(out.Buckets) != 0 {
		t.Fatalf("buckets left behind: %v %v", err, out)
	}
}

// Against the mock, by time, with reads verified.
func TestMockByDuration(t *testing.T) {
	srv := httptest.NewServer(mock.New())
	defer srv.Close()
	tg, _ := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	sum, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: "get", Duration: 300 * time.Millisecond, Concurrency: 8,
		Size: quick.Size{Min: 4096, Max: 4096}, Buckets: 1, BucketPrefix: "m", Objects: 20, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	main := sum.Stages[1]
	if main.Ops[0].OpCount < 100 || main.Ops[0].SuccessRatio != 1 || main.Ops[0].ByteCount != 4096*main.Ops[0].OpCount {
		t.Fatalf("main stage %+v", main.Ops[0])
	}
}

// The ceiling runs the mode's own operations with the run's sizes and
// says which: large objects give bandwidth, and an op rate even when few
// reads finish in its two seconds; a PUT run's ceiling is one of PUTs.
func TestCeilingUsesTheRunsOperationsAndSizes(t *testing.T) {
	ceiling := func(o quick.Options) *report.Ceiling {
		t.Helper()
		o.Concurrency, o.Buckets, o.BucketPrefix, o.Objects = 4, 1, "c", 100
		if o.Size.Min == 0 {
			o.Size = quick.Size{Min: 4096, Max: 4096}
		}
		c, err := quick.MeasureCeiling(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	small := ceiling(quick.Options{Mode: "get"})
	big := ceiling(quick.Options{Mode: "get", Size: quick.Size{Min: 64 << 20, Max: 64 << 20}, Verify: true})
	if !strings.Contains(small.What, "GET of 4 KiB, 4 workers") || !strings.Contains(big.What, "GET of 64 MiB, verifying, 4 workers") {
		t.Fatalf("what: %q, %q", small.What, big.What)
	}
	if big.BandwidthMBps <= 0 || big.ThroughputOps <= 0 || big.ThroughputOps >= small.ThroughputOps {
		t.Fatalf("4 KiB: %v; 64 MiB: %v", small, big)
	}
	// The op rate of large objects is their bandwidth over their size.
	if r := big.BandwidthMBps * 1e6 / (64 << 20) / big.ThroughputOps; r < 0.5 || r > 2 {
		t.Fatalf("64 MiB: %.1f op/s at %.1f MB/s", big.ThroughputOps, big.BandwidthMBps)
	}
	for mode, want := range map[string]string{
		"put":       "PUT of 4 KiB, 4 workers",
		"stat":      "HEAD of objects of 4 KiB, 4 workers",
		"delete":    "DELETE, 4 workers",
		"list":      "LIST (ListObjectsV2), 4 workers",
		"multipart": "multipart PUT of 4 KiB in 5 MiB parts, 4 workers",
		"mixed":     "mixed get=45,stat=30,put=15,delete=10 of 4 KiB, 4 workers",
	} {
		c := ceiling(quick.Options{Mode: mode})
		if !strings.Contains(c.What, want) || c.Stage != "main" || c.ThroughputOps <= 0 {
			t.Errorf("%s: %v, want %q", mode, c, want)
		}
		if strings.Contains(c.What, "GET") {
			t.Errorf("%s: a ceiling of GETs: %v", mode, c)
		}
		// The bytes a PUT sends count as a GET's read do.
		if mode == "put" && (c.BandwidthMBps <= 0 || c.BandwidthMBps*1e6/4096/c.ThroughputOps < 0.5) {
			t.Errorf("put: %v", c)
		}
	}
}

// --mix takes each operation once, in whole percentages adding up to 100,
// and refuses a mix whose deletes would have nothing to delete.
func TestParseMix(t *testing.T) {
	mix, err := quick.ParseMix(" get=60, put=30,DELETE=5,list=5,stat=0")
	if err != nil || quick.MixString(mix) != "get=60,put=30,delete=5,list=5" {
		t.Fatalf("ParseMix: %v, %v", mix, err)
	}
	if _, err := quick.ParseMix(quick.DefaultMix); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"get=60,put=30":         "add up to 90, not 100",
		"get=60,put=30,copy=10": `unknown operation "copy"`,
		"get=50,get=50":         "get given twice",
		"get=100,put":           `"put" is not OP=PERCENT`,
		"get=-5,put=105":        "not a whole percentage",
		"get=50.5,put=49.5":     "not a whole percentage",
		"get=90,delete=10":      "must put",
		"":                      "not OP=PERCENT",
	} {
		if _, err := quick.ParseMix(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMix(%q) = %v, want %q", in, err, want)
		}
	}
}

// The mixed mode runs the operations of its mix in its proportions, and
// none other.
func TestMixedRunsItsMix(t *testing.T) {
	srv := httptest.NewServer(mock.New())
	defer srv.Close()
	tg, err := target.New(target.Config{Endpoints: []string{srv.URL}, AccessKey: "k", SecretKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	mix, err := quick.ParseMix("get=50,put=20,delete=10,list=20")
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := quick.Run(context.Background(), tg, quick.Options{Mode: "mixed", Ops: 4000, Concurrency: 4, Size: quick.Size{Min: 100, Max: 100},
		Buckets: 1, BucketPrefix: "mix", Objects: 20, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, st := range sum.Stages {
		if st.Name == "main" {
			for _, op := range st.Ops {
				got[op.OpType] = op.OpCount + op.ErrorCount
			}
		}
	}
	// Binomial spread of 4000 draws: a tenth is 400 +- 19, so 300..500 is
	// far outside chance; deletes skipped for want of a put do not count.
	for kind, share := range map[string]int64{"read": 2000, "write": 800, "list": 800} {
		if n := got[kind]; n < share*3/4 || n > share*5/4 {
			t.Errorf("%s: %d of 4000 operations, want about %d: %v", kind, n, share, got)
		}
	}
	// The CPU of the bench process is counted over the main stage only,
	// not over the prepare and the cleanup.
	if c := sum.ClientCPU; c == nil || c.Cores <= 0 || c.Wall <= 0 || c.Wall > sum.Stages[1].DurationS+0.5 {
		t.Errorf("client CPU %+v over a main stage of %.2f s", c, sum.Stages[1].DurationS)
	}
	if got["delete"] == 0 || got["stat"] != 0 {
		t.Errorf("deletes %d, stats %d: %v", got["delete"], got["stat"], got)
	}
}
