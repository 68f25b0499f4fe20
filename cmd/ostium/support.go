package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ostiumio/ostium/internal/support"
)

const supportUsage = `usage: ostium support bundle [--config FILE] [--endpoint URL] [--since 24h] [--out FILE.tar.gz]

Writes one archive (mode 0600) for support: version and build, the
configuration with every secret redacted, health of the catalog and the
platforms, the node's logs of the period (its systemd journal, or
--log-file), catalog statistics, a metrics snapshot, and runtime profiles
(goroutines, heap, CPU) of the node at --endpoint. MANIFEST.json in it
says what each part is and why a part is missing. Profiles and the
statistics through the admin API are signed with the root credentials
(OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY).`

func supportMain(args []string) error {
	if len(args) == 0 || args[0] != "bundle" {
		return errors.New(supportUsage)
	}
	fs := flag.NewFlagSet("support bundle", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, supportUsage); fs.PrintDefaults() }
	o := support.Options{Version: version, Progress: os.Stderr}
	fs.StringVar(&o.ConfigFile, "config", env("OSTIUM_CONFIG", ""), "the node's configuration file (OSTIUM_CONFIG)")
	fs.StringVar(&o.Endpoint, "endpoint", env("OSTIUM_ENDPOINT", ""), "a running node, http://host:port (OSTIUM_ENDPOINT)")
	// The environment's keys are read after parsing, so that --help
	// prints no secret as a default.
	fs.StringVar(&o.AccessKey, "access-key", "", "root access key (default OSTIUM_ROOT_ACCESS_KEY)")
	fs.StringVar(&o.SecretKey, "secret-key", "", "root secret key (default OSTIUM_ROOT_SECRET_KEY)")
	fs.DurationVar(&o.Since, "since", 24*time.Hour, "how far back the logs go")
	fs.StringVar(&o.Unit, "unit", "ostium", "systemd unit whose journal is read")
	fs.StringVar(&o.LogFile, "log-file", "", "a file the node's standard error goes to, read for the period")
	fs.IntVar(&o.CPUSeconds, "cpu-seconds", 5, "length of the CPU profile (1 to 60)")
	out := fs.String("out", "", "the archive (default ostium-support-HOST-TIME.tar.gz here)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.AccessKey == "" && o.SecretKey == "" {
		o.AccessKey, o.SecretKey = os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), os.Getenv("OSTIUM_ROOT_SECRET_KEY")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("support bundle: unexpected argument %q", fs.Arg(0))
	}
	if o.CPUSeconds < 1 || o.CPUSeconds > 60 {
		return errors.New("support bundle: --cpu-seconds is 1 to 60")
	}
	if o.Endpoint != "" && (o.AccessKey != "" || o.SecretKey != "") {
		if err := checkCredentials(o.AccessKey, o.SecretKey, "--access-key and --secret-key, or OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY"); err != nil {
			return fmt.Errorf("support bundle: %w", err)
		}
	}
	// Secrets of the environment the bundle might meet in a log line.
	o.Secrets = []string{os.Getenv("OSTIUM_NODE_KEY"), os.Getenv("OSTIUM_CONFIG_SECRET")}
	if *out == "" {
		host, _ := os.Hostname()
		*out = fmt.Sprintf("ostium-support-%s-%s.tar.gz", host, time.Now().UTC().Format("20060102-150405"))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return writeBundle(ctx, *out, o)
}

// writeBundle writes the archive to path, readable by its owner only:
// redacted or not, it tells much of the installation.
func writeBundle(ctx context.Context, path string, o support.Options) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("support bundle: %w", err)
	}
	// An existing file keeps its mode through O_TRUNC.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("support bundle: %w", err)
	}
	m, err := support.Write(ctx, f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("support bundle: %w", err)
	}
	failed := 0
	for _, p := range m.Parts {
		if !p.OK {
			failed++
		}
	}
	fmt.Fprintf(os.Stderr, "support bundle: wrote %s (%d parts, %d failed or missing: see MANIFEST.json)\n", path, len(m.Parts), failed)
	return nil
}
