package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostiumio/ostium/internal/bench/driver"
	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/quick"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/bench/workload"
)

var quickModeShort = map[string]string{
	"put":       "write objects",
	"get":       "read objects (prepared first, --objects of them)",
	"delete":    "delete objects (prepared first)",
	"stat":      "HEAD objects (prepared first)",
	"list":      "list objects (prepared first)",
	"mixed":     "a mix of reads, writes, deletes, stats and listings (--mix)",
	"multipart": "multipart uploads of --part-size parts",
}

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "benchmark an S3 endpoint",
		Long: `Benchmark any S3 endpoint: run a workload file (COSBench XML or YAML), a
quick mode, or compare two runs. Keys come from --access-key and
--secret-key, OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Flags go before or after the
arguments. See docs/bench.md.`,
		Example: `  ostium bench run workload.xml --endpoint http://localhost:9000
  ostium bench put --duration 30s --size 4KiB --concurrency 16`,
	}
	cmd.AddCommand(newBenchRunCmd(), newBenchCompareCmd(), newBenchMockCmd(), newBenchDriverCmd())
	for _, mode := range quick.Modes {
		cmd.AddCommand(newBenchQuickCmd(mode))
	}
	return cmd
}

func newBenchQuickCmd(mode string) *cobra.Command {
	cmd := &cobra.Command{
		Use:     mode + " [flags]",
		Short:   quickModeShort[mode],
		Long:    "A one-off run of " + mode + " against one or more S3 endpoints: a main stage\nof --duration, --ops or --bytes, after measuring the generator's own ceiling.",
		Example: "  ostium bench " + mode + " --endpoint http://localhost:9000 --duration 30s --size 4KiB --concurrency 16",
		Args:    cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	var endpoints listFlag
	fs.Var(&endpoints, "endpoint", "S3 endpoint URL, repeatable or comma-separated (default http://localhost:9000)")
	tc := target.Config{}
	// The environment's keys are read after parsing, so that -h prints
	// no secret as a default.
	fs.StringVar(&tc.AccessKey, "access-key", "", "access key (default OSTIUM_ROOT_ACCESS_KEY or AWS_ACCESS_KEY_ID)")
	fs.StringVar(&tc.SecretKey, "secret-key", "", "secret key (default OSTIUM_ROOT_SECRET_KEY or AWS_SECRET_ACCESS_KEY)")
	fs.StringVar(&tc.Region, "region", "us-east-1", "region to sign for")
	fs.BoolVar(&tc.VirtualHost, "virtual-host", false, "virtual-hosted style (bucket.host) instead of path style")
	fs.BoolVar(&tc.Insecure, "insecure", false, "do not check TLS certificates")
	fs.BoolVar(&tc.LeastOutstanding, "least-outstanding", false, "send each request to the endpoint with the fewest in flight (default round robin)")
	fs.StringVar(&tc.SSE, "sse", "", "encrypt objects at rest: sse-s3, sse-kms[:KEY-ID] or sse-c:BASE64-KEY (SSE-C sends the key with every read)")
	o := quick.Options{Mode: mode}
	fs.DurationVar(&o.Duration, "duration", 0, "how long the main stage runs (default 30s when no --ops or --bytes)")
	fs.Int64Var(&o.Ops, "ops", 0, "stop the main stage after this many operations")
	var bytesLimit, size string
	fs.StringVar(&bytesLimit, "bytes", "", "stop the main stage after this many bytes (e.g. 10GiB)")
	fs.IntVar(&o.Concurrency, "concurrency", 16, "concurrent workers")
	fs.StringVar(&size, "size", "4KiB", "object size: constant (4KiB, 1MB) or a uniform range (1KiB-1MiB)")
	fs.IntVar(&o.Buckets, "buckets", 1, "buckets to spread objects over")
	var partSize string
	fs.StringVar(&partSize, "part-size", "5MiB", "part size of the multipart mode")
	fs.StringVar(&o.BucketPrefix, "bucket-prefix", "ostium-bench", "bucket names are PREFIX-N")
	fs.IntVar(&o.Objects, "objects", 1000, "objects prepared for the modes that read")
	fs.BoolVar(&o.Verify, "verify", false, "check every byte read")
	fs.BoolVar(&o.Keep, "no-cleanup", false, "leave the objects and buckets behind (no cleanup stage)")
	fs.BoolVar(&o.Keep, "keep", false, "the same as --no-cleanup")
	var mix string
	if mode == "mixed" {
		fs.StringVar(&mix, "mix", quick.DefaultMix, "the operations of the mix in percent, adding up to 100: get, put, delete, stat, list")
	}
	out := fs.String("out", "", "results directory (default bench-results/MODE-TIME)")
	noCeiling := fs.Bool("no-ceiling", false, "skip measuring the generator's own ceiling first")
	maxErr := fs.Float64("max-error-ratio", 0.01, "fail the run when more than this share of its operations failed")
	cmd.RunE = func(*cobra.Command, []string) error {
		if mode == "mixed" {
			var err error
			if o.Mix, err = quick.ParseMix(mix); err != nil {
				return err
			}
		}
		return benchQuick(mode, tc, o, endpoints, bytesLimit, size, partSize, *out, *noCeiling, *maxErr)
	}
	return cmd
}

func benchQuick(mode string, tc target.Config, o quick.Options, endpoints listFlag, bytesLimit, size, partSize, out string, noCeiling bool, maxErr float64) error {
	if tc.AccessKey == "" && tc.SecretKey == "" {
		tc.AccessKey = firstEnv("OSTIUM_ROOT_ACCESS_KEY", "AWS_ACCESS_KEY_ID")
		tc.SecretKey = firstEnv("OSTIUM_ROOT_SECRET_KEY", "AWS_SECRET_ACCESS_KEY")
	}
	if err := checkCredentials(tc.AccessKey, tc.SecretKey, "--access-key and --secret-key, OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"); err != nil {
		return fmt.Errorf("bench %s: %w", mode, err)
	}
	if len(endpoints) == 0 {
		endpoints = listFlag{"http://localhost:9000"}
	}
	for _, e := range endpoints {
		tc.Endpoints = append(tc.Endpoints, strings.Split(e, ",")...)
	}
	var err error
	if o.Size, err = quick.ParseSize(size); err != nil {
		return err
	}
	ps, err := quick.ParseSize(partSize)
	if err != nil {
		return fmt.Errorf("--part-size: %w", err)
	}
	o.PartSize = ps.Min
	if bytesLimit != "" {
		b, err := quick.ParseSize(bytesLimit)
		if err != nil {
			return fmt.Errorf("--bytes: %w", err)
		}
		o.Bytes = b.Min
	}
	if o.Duration == 0 && o.Ops == 0 && o.Bytes == 0 {
		o.Duration = 30 * time.Second
	}
	o.Terminal = isTerminal()
	o.Progress, o.Interval = os.Stdout, progressInterval(o.Terminal)
	t, err := target.New(tc)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("ostium bench %s: %s, %d workers, objects of %s, %d bucket(s)", mode, strings.Join(tc.Endpoints, " "), o.Concurrency, o.Size, o.Buckets)
	if len(o.Mix) > 0 {
		fmt.Printf(", mix %s", quick.MixString(o.Mix))
	}
	fmt.Println()
	var ceiling *report.Ceiling
	if !noCeiling {
		fmt.Printf("measuring the generator ceiling: the run's own operations against an in-process target, %s\n", quick.CeilingTime)
		if ceiling, err = quick.MeasureCeiling(ctx, o); err != nil {
			return err
		}
		fmt.Println(ceiling)
	}
	sum, results, runErr := quick.Run(ctx, t, o)
	if ceiling != nil {
		sum.Ceiling, sum.Ceilings = ceiling, []report.Ceiling{*ceiling}
	}
	return finish(sum, results, runErr, out, mode, maxErr)
}

// finish prints the report, writes the results directory and judges the
// run: one that failed, or whose operations failed too often, is an error
// whatever it measured.
func finish(sum report.Summary, results []*engine.Result, runErr error, out, name string, maxErrorRatio float64) error {
	report.Headroom(&sum)
	for _, st := range sum.Stages {
		report.WriteText(os.Stdout, st)
	}
	if len(sum.Ceilings) > 1 {
		fmt.Println("\nMeasured with these generator ceilings:")
		for _, c := range sum.Ceilings {
			fmt.Printf("  %s\n", &c)
		}
	} else if sum.Ceiling != nil {
		fmt.Printf("\nMeasured with a %s.\n", sum.Ceiling)
	}
	for _, b := range sum.Bounds {
		fmt.Printf("Headroom: %s.\n", b)
	}
	if sum.ClientCPU != nil {
		fmt.Printf("The bench process used %.1f CPU seconds over the %.1f s of the measured stages on %d cores (%.0f%%).\n", sum.ClientCPU.Seconds,
			sum.ClientCPU.Wall, sum.ClientCPU.Cores, 100*sum.ClientCPU.Share())
	}
	if sum.Verified != nil {
		fmt.Printf("Contents: %s.\n", sum.Verified)
	}
	if took := sum.Took(); took != "" {
		fmt.Printf("The run %s.\n", took)
	}
	if sum.Availability != nil {
		report.WriteAvailability(os.Stdout, sum.Availability)
	}
	if out == "" {
		out = resultsDir(name, sum.Started)
	}
	if len(results) > 0 {
		if err := report.WriteDir(out, sum, results); err != nil {
			return err
		}
		fmt.Printf("\nresults: %s\n", out)
	}
	if runErr != nil {
		return runErr
	}
	if err := report.Check(sum, maxErrorRatio); err != nil {
		return fmt.Errorf("the run failed: %w", err)
	}
	return nil
}

// resultsDir is the default results directory: named by the run's start,
// the time its report shows, so that the two are found from each other.
func resultsDir(name string, started time.Time) string {
	if started.IsZero() { // stopped before it began
		started = time.Now()
	}
	return filepath.Join("bench-results", name+"-"+started.Format("20060102-150405"))
}

func isTerminal() bool {
	fi, err := os.Stdout.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressInterval: a live line on a terminal, plain lines less often
// into a log.
func progressInterval(terminal bool) time.Duration {
	if terminal {
		return time.Second
	}
	return 5 * time.Second
}

func newBenchRunCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run FILE [flags]",
		Short: "run a workload file (COSBench XML or YAML)",
		Long: `Run a workload file: COSBench XML (recognised by its content) or YAML.
Keys in the environment (OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY,
or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) override the file's, and
--access-key and --secret-key override both.

A workload may carry a fault schedule (faults:, or <faults> in XML):
commands run at set times of the run; the report then adds the
availability per second and each fault's error window, time to recover,
and the acknowledged writes read back afterwards.`,
		Example: `  ostium bench run internal/bench/workload/testdata/hybrid-small.xml --endpoint http://localhost:9000
  ostium bench run --drivers host1:9101,host2:9101 workload.yaml`,
		Args: cobra.ExactArgs(1),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	var endpoints listFlag
	fs.Var(&endpoints, "endpoint", "override the file's S3 endpoint; repeatable or comma-separated")
	var o workload.Options
	fs.StringVar(&o.AccessKey, "access-key", "", "override the file's access key (default $OSTIUM_ROOT_ACCESS_KEY or $AWS_ACCESS_KEY_ID when set)")
	fs.StringVar(&o.SecretKey, "secret-key", "", "override the file's secret key (default $OSTIUM_ROOT_SECRET_KEY or $AWS_SECRET_ACCESS_KEY when set)")
	maxErr := fs.Float64("max-error-ratio", 0.01, "fail the run when more than this share of its operations failed")
	out := fs.String("out", "", "results directory (default bench-results/NAME-TIME)")
	var drivers listFlag
	fs.Var(&drivers, "drivers", "run on these drivers (host:port, repeatable or comma-separated) instead of here")
	noCeiling := fs.Bool("no-ceiling", false, "skip measuring the generator's own ceiling first")
	cmd.RunE = func(_ *cobra.Command, a []string) error {
		return benchRun(a[0], o, endpoints, drivers, *out, *noCeiling, *maxErr)
	}
	return cmd
}

func benchRun(file string, o workload.Options, endpoints, drivers listFlag, out string, noCeiling bool, maxErr float64) error {
	// As the quick modes: keys from the environment, which override the
	// file's (its shipped keys are placeholders), and flags override both.
	credsFrom := "the workload file"
	if o.AccessKey == "" && o.SecretKey == "" {
		ak, sk := envPair("OSTIUM_ROOT_ACCESS_KEY", "OSTIUM_ROOT_SECRET_KEY")
		if ak == "" {
			ak, sk = envPair("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
		}
		if ak != "" {
			o.AccessKey, o.SecretKey, credsFrom = ak, sk, "the environment"
		}
	} else {
		credsFrom = "--access-key/--secret-key"
	}
	if o.AccessKey != "" || o.SecretKey != "" { // else the file's keys stand
		if err := checkCredentials(o.AccessKey, o.SecretKey, "both keys of a pair (from "+credsFrom+")"); err != nil {
			return fmt.Errorf("bench run: %w", err)
		}
	}
	for _, e := range endpoints {
		o.Endpoints = append(o.Endpoints, strings.Split(e, ",")...)
	}
	w, err := workload.Load(file)
	if err != nil {
		return err
	}
	terminal := isTerminal()
	o.Progress = func(name string) func(engine.Progress) {
		return func(p engine.Progress) {
			line := report.ProgressLine(name, p)
			switch {
			case terminal && p.Final:
				fmt.Printf("\r%-100s\n", line) // a stage's last line stays
			case terminal:
				fmt.Printf("\r%-100s", line)
			default:
				fmt.Println(line)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("ostium bench run %s: workload %q, %d stages, credentials from %s\n", file, w.Name, len(w.Stages), credsFrom)
	var ceilings []report.Ceiling
	if !noCeiling && len(drivers) == 0 {
		fmt.Printf("measuring the generator ceilings: each measured stage against an in-process target, %s each\n", workload.CeilingTime)
		if ceilings, err = workload.Ceilings(ctx, w, 16, func(c report.Ceiling) { fmt.Println(&c) }); err != nil {
			return err
		}
	}
	var sum report.Summary
	var results []*engine.Result
	var runErr error
	if len(drivers) > 0 {
		c := &driver.Controller{Log: os.Stdout}
		for _, d := range drivers {
			c.Drivers = append(c.Drivers, strings.Split(d, ",")...)
		}
		sum, results, runErr = c.Run(ctx, w, o)
	} else {
		sum, results, runErr = workload.Run(ctx, w, o)
	}
	if len(ceilings) > 0 {
		sum.Ceiling, sum.Ceilings = &ceilings[0], ceilings
	}
	return finish(sum, results, runErr, out, w.Name, maxErr)
}

// envPair is a key pair from the environment, or "" when the access key
// is not set.
func envPair(ak, sk string) (string, string) {
	if os.Getenv(ak) == "" {
		return "", ""
	}
	return os.Getenv(ak), os.Getenv(sk)
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func newBenchMockCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "mock [flags]",
		Short:   "serve a no-op S3 endpoint",
		Long:    "Serve a no-op S3 endpoint: no signature check, no bytes stored, only sizes;\nthe generator's ceiling, or a target of known latency with --delay.",
		Example: "  ostium bench mock --listen :9001 --delay 2ms",
		Args:    cobra.NoArgs,
	}
	listen := cmd.Flags().String("listen", ":9001", "address to listen on")
	m := mock.New()
	cmd.Flags().DurationVar(&m.Delay, "delay", 0, "hold every response back this long (a target of known latency)")
	cmd.RunE = func(*cobra.Command, []string) error { return benchMock(*listen, m) }
	return cmd
}

func benchMock(listen string, m *mock.Server) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("ostium bench mock: a no-op S3 endpoint on http://%s (signatures are not checked)\n", ln.Addr())
	return (&http.Server{Handler: m, ReadHeaderTimeout: 30 * time.Second}).Serve(ln)
}

func newBenchCompareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "compare A B [flags]",
		Short:   "two runs side by side (result directories)",
		Long:    "Two runs side by side: per stage and operation, the change of throughput,\nbandwidth, mean and p99 latency, as a table and an SVG chart.",
		Example: "  ostium bench compare bench-results/before bench-results/after --svg diff.svg",
		Args:    cobra.ExactArgs(2),
	}
	svg := cmd.Flags().String("svg", "", "where to write the chart (default compare-A-vs-B.svg beside A)")
	cmd.RunE = func(_ *cobra.Command, a []string) error { return benchCompare(a[0], a[1], *svg) }
	return cmd
}

func benchCompare(dirA, dirB, svg string) error {
	if svg == "" {
		svg = report.ComparePath(dirA, dirB)
	}
	a, err := report.ReadSummary(dirA)
	if err != nil {
		return err
	}
	b, err := report.ReadSummary(dirB)
	if err != nil {
		return err
	}
	ds := report.Compare(a, b)
	if len(ds) == 0 {
		return errors.New("the two runs have no stage and operation in common")
	}
	report.WriteCompare(os.Stdout, dirA, dirB, ds)
	if err := os.WriteFile(svg, []byte(report.CompareSVG(dirA, dirB, ds)), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nchart: %s\n", svg)
	return nil
}

func newBenchDriverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "driver [flags]",
		Short:   "run stages for a controller (a load machine of a distributed run)",
		Long:    "A load machine of a distributed run: it waits for a controller\n(ostium bench run --drivers ...) and runs the stages it is sent.",
		Example: "  ostium bench driver --listen :9101",
		Args:    cobra.NoArgs,
	}
	listen := cmd.Flags().String("listen", ":9101", "address to listen on for a controller")
	cmd.RunE = func(*cobra.Command, []string) error { return benchDriver(*listen) }
	return cmd
}

func benchDriver(listen string) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("ostium bench driver: waiting for a controller on %s\n", ln.Addr())
	return (&http.Server{Handler: driver.Handler(), ReadHeaderTimeout: 30 * time.Second}).Serve(ln)
}
