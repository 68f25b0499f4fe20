package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ostiumio/ostium/internal/bench/driver"
	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/mock"
	"github.com/ostiumio/ostium/internal/bench/quick"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/target"
	"github.com/ostiumio/ostium/internal/bench/workload"
)

const benchUsage = `usage: ostium bench <mode> [flags]

modes:
  run FILE                              run a workload file (COSBench XML or YAML)
                                        (flags go before or after the arguments)
  compare A B                           two runs side by side (result directories)
  put, get, delete, stat, list, mixed,
  multipart                             one-off runs against S3 endpoints
  mock                                  serve a no-op S3 endpoint (--listen)
  driver                                run stages for a controller (--listen)

run "ostium bench <mode> -h" for the flags`

func bench(args []string) error {
	// -h is an answer, not a failure.
	if err := benchMode(args); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func benchMode(args []string) error {
	if len(args) == 0 {
		return errors.New(benchUsage)
	}
	mode, args := args[0], args[1:]
	switch mode {
	case "mock":
		return benchMock(args)
	case "run":
		return benchRun(args)
	case "compare":
		return benchCompare(args)
	case "driver":
		return benchDriver(args)
	}
	if !slices.Contains(quick.Modes, mode) {
		return fmt.Errorf("unknown bench mode %q\n\n%s", mode, benchUsage)
	}
	fs := flag.NewFlagSet("bench "+mode, flag.ContinueOnError)
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
	fs.BoolVar(&o.Keep, "keep", false, "leave the objects and buckets behind")
	out := fs.String("out", "", "results directory (default bench-results/MODE-TIME)")
	noCeiling := fs.Bool("no-ceiling", false, "skip measuring the generator's own ceiling first")
	maxErr := fs.Float64("max-error-ratio", 0.01, "fail the run when more than this share of its operations failed")
	if err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if tc.AccessKey == "" && tc.SecretKey == "" {
		tc.AccessKey = firstEnv("OSTIUM_ROOT_ACCESS_KEY", "AWS_ACCESS_KEY_ID")
		tc.SecretKey = firstEnv("OSTIUM_ROOT_SECRET_KEY", "AWS_SECRET_ACCESS_KEY")
	}
	if err := checkCredentials(tc.AccessKey, tc.SecretKey, "--access-key and --secret-key, OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"); err != nil {
		return fmt.Errorf("bench %s: %w", mode, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench %s takes no arguments, got %q", mode, fs.Args())
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
	fmt.Printf("ostium bench %s: %s, %d workers, objects of %s, %d bucket(s)\n", mode, strings.Join(tc.Endpoints, " "), o.Concurrency, o.Size, o.Buckets)
	var ceiling *report.Ceiling
	if !*noCeiling {
		if ceiling, err = quick.MeasureCeiling(ctx, o.Concurrency, o.Size, o.Verify); err != nil {
			return err
		}
		fmt.Println(ceiling)
	}
	sum, results, runErr := quick.Run(ctx, t, o)
	sum.Ceiling = ceiling
	return finish(sum, results, runErr, *out, mode, *maxErr)
}

// finish prints the report, writes the results directory and judges the
// run: one that failed, or whose operations failed too often, is an error
// whatever it measured.
func finish(sum report.Summary, results []*engine.Result, runErr error, out, name string, maxErrorRatio float64) error {
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
	if sum.Verified != nil {
		fmt.Printf("Contents: %s.\n", sum.Verified)
	}
	if out == "" {
		out = filepath.Join("bench-results", name+"-"+time.Now().Format("20060102-150405"))
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

// parseInterleaved parses flags before and after the arguments, so that
// "bench run FILE --endpoint URL" reads as "bench run --endpoint URL FILE".
func parseInterleaved(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		rest := fs.Args()
		if rest[0] == "--" || len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional, args = append(positional, rest[0]), rest[1:]
	}
	return fs.Parse(append([]string{"--"}, positional...))
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

func benchRun(args []string) error {
	fs := flag.NewFlagSet("bench run", flag.ContinueOnError)
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
	if err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: ostium bench run FILE [flags]")
	}
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
	w, err := workload.Load(fs.Arg(0))
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
	fmt.Printf("ostium bench run %s: workload %q, %d stages, credentials from %s\n", fs.Arg(0), w.Name, len(w.Stages), credsFrom)
	var ceilings []report.Ceiling
	if !*noCeiling && len(drivers) == 0 {
		for _, sz := range workload.Sizes(w, 64, 8) {
			c, err := quick.Ceiling(ctx, max(sz.Workers, 1), sz.Sizes, sz.Verify, "GET of sizes "+sz.Spec)
			if err != nil {
				return err
			}
			fmt.Println(c)
			ceilings = append(ceilings, *c)
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
	return finish(sum, results, runErr, *out, w.Name, *maxErr)
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

func benchMock(args []string) error {
	fs := flag.NewFlagSet("bench mock", flag.ContinueOnError)
	listen := fs.String("listen", ":9001", "address to listen on")
	m := mock.New()
	fs.DurationVar(&m.Delay, "delay", 0, "hold every response back this long (a target of known latency)")
	if err := parseInterleaved(fs, args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Printf("ostium bench mock: a no-op S3 endpoint on http://%s (signatures are not checked)\n", ln.Addr())
	return (&http.Server{Handler: m, ReadHeaderTimeout: 30 * time.Second}).Serve(ln)
}

func benchCompare(args []string) error {
	fs := flag.NewFlagSet("bench compare", flag.ContinueOnError)
	svg := fs.String("svg", "", "where to write the chart (default compare-A-vs-B.svg beside A)")
	if err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("usage: ostium bench compare A B [--svg FILE]")
	}
	if *svg == "" {
		*svg = report.ComparePath(fs.Arg(0), fs.Arg(1))
	}
	a, err := report.ReadSummary(fs.Arg(0))
	if err != nil {
		return err
	}
	b, err := report.ReadSummary(fs.Arg(1))
	if err != nil {
		return err
	}
	ds := report.Compare(a, b)
	if len(ds) == 0 {
		return errors.New("the two runs have no stage and operation in common")
	}
	report.WriteCompare(os.Stdout, fs.Arg(0), fs.Arg(1), ds)
	if err := os.WriteFile(*svg, []byte(report.CompareSVG(fs.Arg(0), fs.Arg(1), ds)), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nchart: %s\n", *svg)
	return nil
}

func benchDriver(args []string) error {
	fs := flag.NewFlagSet("bench driver", flag.ContinueOnError)
	listen := fs.String("listen", ":9101", "address to listen on for a controller")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Printf("ostium bench driver: waiting for a controller on %s\n", ln.Addr())
	return (&http.Server{Handler: driver.Handler(), ReadHeaderTimeout: 30 * time.Second}).Serve(ln)
}
