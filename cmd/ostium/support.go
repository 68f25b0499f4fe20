package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostiumio/ostium/internal/support"
)

func newSupportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "support",
		Short: "write a support bundle",
	}
	bundle := &cobra.Command{
		Use:   "bundle [flags]",
		Short: "write one archive with everything support asks for",
		Long: `Write one archive (mode 0600, never over an existing file) for support:
version and build, the configuration with every secret redacted, health
of the catalog and the platforms, the node's logs of the period (its
systemd journal, or --log-file), catalog statistics, a metrics snapshot,
and runtime profiles (goroutines, heap, CPU) of the node at --endpoint.
MANIFEST.json in it says what each part is and why a part is missing.

The node and the root credentials are found as ostium admin finds them:
--endpoint or OSTIUM_ENDPOINT (default http://localhost:9000), and
--access-key and --secret-key or OSTIUM_ROOT_ACCESS_KEY and
OSTIUM_ROOT_SECRET_KEY; --endpoint "" leaves the node out. The command
exits non-zero, after writing the archive, when any part failed, and
names them.`,
		Example: "  ostium support bundle --config /etc/ostium/ostium.yaml --endpoint http://127.0.0.1:9000 --since 24h",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(bundle)
	fs := bundle.Flags()
	fs.SortFlags = false
	o := support.Options{Version: version, Progress: os.Stderr}
	fs.StringVar(&o.ConfigFile, "config", env("OSTIUM_CONFIG", ""), "the node's configuration file (OSTIUM_CONFIG)")
	var ra rootAccess
	ra.addFlags(fs)
	fs.DurationVar(&o.Since, "since", 24*time.Hour, "how far back the logs go")
	fs.StringVar(&o.Unit, "unit", "ostium", "systemd unit whose journal is read")
	fs.StringVar(&o.LogFile, "log-file", "", "a file the node's standard error goes to, read for the period")
	fs.IntVar(&o.CPUSeconds, "cpu-seconds", 5, "length of the CPU profile (1 to 60)")
	out := fs.String("out", "", "the archive (default ostium-support-HOST-TIME.tar.gz here; never overwritten)")
	bundle.RunE = func(*cobra.Command, []string) error {
		// --endpoint "" is a bundle of this host alone: no node to sign
		// for, but the environment's secret is still scrubbed.
		ra.fromEnv(fs)
		if ra.Endpoint != "" {
			if err := ra.resolve(fs); err != nil {
				return fmt.Errorf("support bundle: %w", err)
			}
		}
		o.Endpoint, o.AccessKey, o.SecretKey = ra.Endpoint, ra.AccessKey, ra.SecretKey
		return supportBundle(o, *out)
	}
	return cmd
}

func supportBundle(o support.Options, out string) error {
	if o.CPUSeconds < 1 || o.CPUSeconds > 60 {
		return errors.New("support bundle: --cpu-seconds is 1 to 60")
	}
	// Secrets of the environment the bundle might meet in a log line.
	o.Secrets = []string{os.Getenv("OSTIUM_NODE_KEY"), os.Getenv("OSTIUM_CONFIG_SECRET")}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if out == "" {
		host, _ := os.Hostname()
		return writeBundle(ctx, fmt.Sprintf("ostium-support-%s-%s", host, time.Now().UTC().Format("20060102-150405")), true, o)
	}
	return writeBundle(ctx, out, false, o)
}

// maxSameName bounds the names tried for bundles made in one second.
const maxSameName = 100

// createBundle makes a new file for the archive, readable by its owner
// only (redacted or not, it tells much of the installation), and never
// over an existing one: a bundle made earlier, in the same second even,
// may be the one support already asked for. With unique, path is a stem
// that gets ".tar.gz", then "-2.tar.gz" and so on while taken.
func createBundle(path string, unique bool) (*os.File, error) {
	if !unique {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	for i := 1; i <= maxSameName; i++ {
		name := path + ".tar.gz"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.tar.gz", path, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s.tar.gz and %d more names like it are taken", path, maxSameName-1)
}

// writeBundle writes the archive (see createBundle for the name) and
// fails, after writing it, when any part failed: a bundle that misses
// what support asks for is not a success, and scripts must see it.
func writeBundle(ctx context.Context, path string, unique bool, o support.Options) error {
	f, err := createBundle(path, unique)
	if err != nil {
		return fmt.Errorf("support bundle: %w", err)
	}
	m, err := support.Write(ctx, f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("support bundle: %s: %w", f.Name(), err)
	}
	var failed []string
	for _, p := range m.Parts {
		if !p.OK {
			failed = append(failed, p.Name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("support bundle: wrote %s, but %d of %d parts failed: %s (each one's reason is above and in MANIFEST.json)",
			f.Name(), len(failed), len(m.Parts), strings.Join(failed, ", "))
	}
	fmt.Fprintf(os.Stderr, "support bundle: wrote %s (%d parts)\n", f.Name(), len(m.Parts))
	return nil
}
