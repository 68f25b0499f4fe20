package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/node"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
func (l *listFlag) Type() string       { return "strings" }

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "run the S3 endpoint",
		Long: `Run the S3 endpoint (and the admin API beside it), and the web console
on a listener of its own (--console-listen). Every flag is also an
environment variable (named in its help); with --config, the flags given
win over the file. Root credentials come from OSTIUM_ROOT_ACCESS_KEY and
OSTIUM_ROOT_SECRET_KEY, or are generated and printed once at the first
start. SIGTERM or Ctrl-C stops the node gracefully; SIGHUP re-reads the
TLS certificate.`,
		Example: `  ostium serve --listen :9000 --data /var/lib/ostium
  ostium serve --config /etc/ostium/ostium.yaml`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	configFile := fs.String("config", env("OSTIUM_CONFIG", ""), "configuration file (YAML; OSTIUM_CONFIG); flags given here override it")
	var f node.Config
	fs.StringVar(&f.Listen, "listen", env("OSTIUM_LISTEN", ""), "plain HTTP address (OSTIUM_LISTEN; default :9000, or none when --tls-listen is given)")
	fs.StringVar(&f.TLSListen, "tls-listen", env("OSTIUM_TLS_LISTEN", ""), "HTTPS address (OSTIUM_TLS_LISTEN); needs --tls-cert and --tls-key")
	fs.StringVar(&f.TLSCert, "tls-cert", env("OSTIUM_TLS_CERT", ""), "PEM certificate chain for HTTPS, reloaded on SIGHUP or change (OSTIUM_TLS_CERT)")
	fs.StringVar(&f.TLSKey, "tls-key", env("OSTIUM_TLS_KEY", ""), "PEM private key for HTTPS (OSTIUM_TLS_KEY)")
	fs.StringVar(&f.ConsoleListen, "console-listen", env("OSTIUM_CONSOLE_LISTEN", ""), "the web console's own address, apart from S3's; HTTPS when --tls-listen is given; off = no console (OSTIUM_CONSOLE_LISTEN; default :9001)")
	fs.StringVar(&f.ConsoleS3URL, "console-s3-url", env("OSTIUM_CONSOLE_S3_URL", ""), "the S3 endpoint's URL as browsers reach it, for the console's share links (OSTIUM_CONSOLE_S3_URL; default the console's host name with the S3 port)")
	sandbox := fs.Bool("sandbox-active-objects", env("OSTIUM_SANDBOX_ACTIVE_OBJECTS", "true") != "false", "send objects a browser renders actively (HTML, SVG, ...) with Content-Security-Policy: sandbox; false only when the console has a host name of its own (OSTIUM_SANDBOX_ACTIVE_OBJECTS=false)")
	fs.StringVar(&f.NodeKeyFile, "node-key-file", env("OSTIUM_NODE_KEY_FILE", ""), "file holding the node key, apart from the data (OSTIUM_NODE_KEY_FILE)")
	fs.StringVar(&f.DataDir, "data", env("OSTIUM_DATA", "data"), "data directory (OSTIUM_DATA)")
	fs.StringVar(&f.Catalog, "catalog", "", "catalog URL: sqlite:///path or postgres://... (OSTIUM_CATALOG; default SQLite in the data directory)")
	fs.StringVar(&f.Region, "region", env("OSTIUM_REGION", "us-east-1"), "region reported to clients (OSTIUM_REGION)")
	var domains listFlag
	if v := os.Getenv("OSTIUM_DOMAIN"); v != "" {
		domains = strings.Split(v, ",")
	}
	fs.Var(&domains, "domain", "domain for virtual-hosted style, repeatable (OSTIUM_DOMAIN, comma-separated)")
	fs.DurationVar(&f.GCInterval, "gc-interval", envDuration("OSTIUM_GC_INTERVAL", 10*time.Second), "how often replaced blobs are collected")
	fs.DurationVar(&f.SweepInterval, "sweep-interval", envDuration("OSTIUM_SWEEP_INTERVAL", time.Hour), "how often never-committed blobs are swept")
	fs.DurationVar(&f.SweepGrace, "sweep-grace", envDuration("OSTIUM_SWEEP_GRACE", time.Hour), "age after which an uncommitted blob is swept")
	fs.BoolVar(&f.BlockPublicAccess, "block-public-access", env("OSTIUM_BLOCK_PUBLIC_ACCESS", "") == "true", "block all public access to every bucket, whatever its settings (OSTIUM_BLOCK_PUBLIC_ACCESS=true)")
	fs.StringVar(&f.BucketDefaults, "bucket-defaults", env("OSTIUM_BUCKET_DEFAULTS", ""), "what new buckets get: aws (ACLs disabled, public access blocked) or legacy (ObjectWriter, no block) (OSTIUM_BUCKET_DEFAULTS; default aws)")
	fs.DurationVar(&f.PresignV2MaxAge, "sigv2-presign-max-age", envDuration("OSTIUM_SIGV2_PRESIGN_MAX_AGE", 0), "longest a presigned Signature V2 URL may live (OSTIUM_SIGV2_PRESIGN_MAX_AGE; 0 = a week)")
	fs.StringVar(&f.Log.Level, "log-level", env("OSTIUM_LOG_LEVEL", "info"), "debug, info, warn or error (OSTIUM_LOG_LEVEL)")
	fs.StringVar(&f.Log.Format, "log-format", env("OSTIUM_LOG_FORMAT", "text"), "text or json (OSTIUM_LOG_FORMAT)")
	fs.StringVar(&f.Log.Requests, "log-requests", env("OSTIUM_LOG_REQUESTS", "debug"), "level of the line logged per S3 request: debug, info, warn or error (OSTIUM_LOG_REQUESTS)")
	var metricsAllow listFlag
	if v := os.Getenv("OSTIUM_METRICS_ALLOW"); v != "" {
		metricsAllow = strings.Split(v, ",")
	}
	fs.Var(&metricsAllow, "metrics-allow", "address or CIDR prefix that may scrape /metrics, repeatable (OSTIUM_METRICS_ALLOW, comma-separated; default any)")
	fs.IntVar(&f.Metrics.TenantLabels, "metrics-tenant-labels", 0, "per-tenant request metrics for up to this many tenants (0 = none)")
	var classes listFlag
	if v := os.Getenv("OSTIUM_STORAGE_CLASSES"); v != "" {
		classes = strings.Split(v, ",")
	}
	fs.Var(&classes, "storage-class", "a storage class's platform, CLASS=PLATFORM (STANDARD_IA=ceph), repeatable (OSTIUM_STORAGE_CLASSES, comma-separated)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		// A PostgreSQL URL may hold a password, and so the metrics token
		// is a secret: read after parsing, so that --help does not print
		// them as defaults.
		if !fs.Changed("catalog") {
			f.Catalog = os.Getenv("OSTIUM_CATALOG")
		}
		f.Metrics.Allow = metricsAllow
		f.Metrics.Token = os.Getenv("OSTIUM_METRICS_TOKEN")
		f.Domains = domains
		f.SandboxActiveObjects = sandbox
		var err error
		if f.StorageClasses, err = classFlags(classes); err != nil {
			return err
		}
		return serve(fs, *configFile, f)
	}
	return cmd
}

// serve runs the node until a signal stops it. fs tells which flags were
// given, to win over the configuration file.
func serve(fs *pflag.FlagSet, configFile string, f node.Config) error {
	cfg, err := resolveConfig(configFile, f, fs)
	if err != nil {
		return err
	}
	// Before the log is set up from it.
	if err := cfg.Validate(); err != nil {
		return err
	}
	slog.SetDefault(slog.New(cfg.Log.Handler(os.Stderr)))
	for _, w := range cfg.Warnings() {
		slog.Warn(w)
	}

	// The signal that stops the node is its context's cause, so that the
	// shutdown's log line says which it was.
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)
	go func() {
		select {
		case sig := <-sigc:
			stop(fmt.Errorf("signal %v", sig))
		case <-ctx.Done():
		}
	}()
	// Opening the node replaces the root key given in the environment,
	// and a start that fails should change nothing: so first make sure
	// the addresses can be had (taken, they are the usual late failure).
	// The listeners proper come after, so that generated credentials are
	// printed before anything connects.
	// All held at once, so that two keys naming one address fail too.
	var probes []net.Listener
	for _, addr := range []string{cfg.Listen, cfg.TLSListen, cfg.ConsoleListen} {
		if addr == "" || addr == node.ConsoleOff {
			continue
		}
		probe, err := net.Listen("tcp", addr)
		if err != nil {
			for _, p := range probes {
				p.Close()
			}
			return err
		}
		probes = append(probes, probe)
	}
	for _, p := range probes {
		p.Close()
	}
	n, err := node.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer n.Close()
	if n.CreatedNodeKeyFile != "" {
		fmt.Printf("A node key was generated in %s, apart from the data it seals:\n  back it up apart from the data directory and the catalog's backups; without it\n  their secrets and encrypted objects cannot be read. Nodes sharing this catalog\n  need the same key (node_key_file or the systemd credential node-key).\n", n.CreatedNodeKeyFile)
	}
	if n.CreatedRootKey != "" {
		fmt.Printf("Root credentials were generated and will not be shown again:\n  OSTIUM_ROOT_ACCESS_KEY=%s\n  OSTIUM_ROOT_SECRET_KEY=%s\n", n.CreatedRootKey, n.CreatedRootSecret)
	}
	lns, err := node.Listen(ctx, cfg)
	if err != nil {
		return err
	}
	defer lns.Close()
	// SIGHUP (systemctl reload) re-reads the certificate; without TLS it
	// is caught all the same, as its default action would stop the node.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	if lns.Certs != nil {
		go lns.Certs.Run(ctx, node.CertPollInterval, hup)
	} else {
		go func() {
			for range hup {
				slog.Info("SIGHUP: nothing to reload without TLS")
			}
		}()
	}
	srv, consoleSrv := n.HTTPServer(), n.ConsoleServer()
	errc := make(chan error, 3)
	for _, ln := range lns.All() {
		scheme := "http"
		if ln == lns.HTTPS {
			scheme = "https"
		}
		slog.Info("ostium serving S3", "addr", ln.Addr().String(), "scheme", scheme, "data", cfg.DataDir)
		go func() { errc <- srv.Serve(ln) }()
	}
	if ln := lns.Console; ln != nil {
		scheme := "http"
		if lns.ConsoleTLS {
			scheme = "https"
		}
		slog.Info("ostium serving the console", "addr", ln.Addr().String(), "scheme", scheme, "url", scheme+"://"+consoleHost(ln.Addr())+"/console/")
		go func() { errc <- consoleSrv.Serve(ln) }()
	} else {
		slog.Info("the console is off (console_listen: off)")
	}
	select {
	case err := <-errc:
		slog.Error("ostium stopping: a listener failed", "err", err)
		return err
	case <-ctx.Done():
	}
	start := time.Now()
	slog.Info("ostium shutting down: in-flight requests may finish", "reason", context.Cause(ctx).Error(), "grace", shutdownGrace)
	shutdown, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	go consoleSrv.Shutdown(shutdown) // its calls are short; S3's are what the grace is for
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("ostium shutdown cut short: requests were still running", "err", err, "after", time.Since(start).Round(time.Millisecond))
		return err
	}
	slog.Info("ostium shut down: every request finished", "after", time.Since(start).Round(time.Millisecond))
	return nil
}

// consoleHost is a listener's address as a browser on this machine
// would name it.
func consoleHost(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// shutdownGrace is how long in-flight requests may run on after a stop
// signal (deploy/ostium.service gives the node 40 s).
const shutdownGrace = 30 * time.Second

// resolveConfig is the configuration `serve` runs and `config validate`
// checks, so that neither passes what the other refuses: the file (if
// any), the flags given (fs; those of f) and the credentials in the
// environment over it, the default listener, then node.Config.Check
// with every error it finds.
func resolveConfig(file string, f node.Config, fs *pflag.FlagSet) (node.Config, error) {
	f.RootAccessKey, f.RootSecretKey = os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), os.Getenv("OSTIUM_ROOT_SECRET_KEY")
	f.NodeKey = os.Getenv("OSTIUM_NODE_KEY")
	cfg := f
	if file != "" {
		var err error
		if cfg, err = node.ReadConfig(file); err != nil {
			return cfg, err
		}
		overrideFromFlags(&cfg, f, fs)
	}
	// Plain HTTP on :9000 unless asked otherwise; asking for HTTPS alone
	// is giving --tls-listen without --listen.
	if cfg.Listen == "" && cfg.TLSListen == "" {
		cfg.Listen = ":9000"
	}
	// The console on a listener of its own unless turned off.
	if cfg.ConsoleListen == "" {
		cfg.ConsoleListen = node.DefaultConsoleListen
	}
	if err := cfg.Check(); err != nil {
		where := "configuration"
		if file != "" {
			where = file
		}
		lines := strings.Split(err.Error(), "\n")
		return cfg, fmt.Errorf("%s: %d error(s):\n  %s", where, len(lines), strings.Join(lines, "\n  "))
	}
	return cfg, nil
}

// overrideFromFlags lets the flags given on the command line, and the
// credentials in the environment, win over the configuration file.
func overrideFromFlags(cfg *node.Config, f node.Config, fs *pflag.FlagSet) {
	set := map[string]func(){
		"listen": func() { cfg.Listen = f.Listen }, "data": func() { cfg.DataDir = f.DataDir },
		"catalog": func() { cfg.Catalog = f.Catalog }, "region": func() { cfg.Region = f.Region },
		"domain": func() { cfg.Domains = f.Domains }, "gc-interval": func() { cfg.GCInterval = f.GCInterval },
		"sweep-interval": func() { cfg.SweepInterval = f.SweepInterval }, "sweep-grace": func() { cfg.SweepGrace = f.SweepGrace },
		"block-public-access": func() { cfg.BlockPublicAccess = f.BlockPublicAccess },
		"storage-class":       func() { cfg.StorageClasses = f.StorageClasses },
		"bucket-defaults":     func() { cfg.BucketDefaults = f.BucketDefaults },
		"tls-listen":          func() { cfg.TLSListen = f.TLSListen }, "tls-cert": func() { cfg.TLSCert = f.TLSCert },
		"tls-key": func() { cfg.TLSKey = f.TLSKey }, "node-key-file": func() { cfg.NodeKeyFile = f.NodeKeyFile },
		"log-level": func() { cfg.Log.Level = f.Log.Level }, "log-format": func() { cfg.Log.Format = f.Log.Format },
		"log-requests": func() { cfg.Log.Requests = f.Log.Requests }, "metrics-allow": func() { cfg.Metrics.Allow = f.Metrics.Allow },
		"metrics-tenant-labels": func() { cfg.Metrics.TenantLabels = f.Metrics.TenantLabels },
	}
	set["sigv2-presign-max-age"] = func() { cfg.PresignV2MaxAge = f.PresignV2MaxAge }
	set["console-listen"] = func() { cfg.ConsoleListen = f.ConsoleListen }
	set["console-s3-url"] = func() { cfg.ConsoleS3URL = f.ConsoleS3URL }
	set["sandbox-active-objects"] = func() { cfg.SandboxActiveObjects = f.SandboxActiveObjects }
	fs.Visit(func(fl *pflag.Flag) {
		if apply, ok := set[fl.Name]; ok {
			apply()
		}
	})
	if f.RootAccessKey != "" {
		cfg.RootAccessKey, cfg.RootSecretKey = f.RootAccessKey, f.RootSecretKey
	}
	if f.NodeKey != "" {
		cfg.NodeKey = f.NodeKey
	}
	if f.Metrics.Token != "" {
		cfg.Metrics.Token = f.Metrics.Token
	}
}
