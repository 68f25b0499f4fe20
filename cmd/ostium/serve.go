package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ostiumio/ostium/internal/node"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

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

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", env("OSTIUM_LISTEN", ":9000"), "address to listen on (OSTIUM_LISTEN)")
	var cfg node.Config
	fs.StringVar(&cfg.DataDir, "data", env("OSTIUM_DATA", "data"), "data directory (OSTIUM_DATA)")
	fs.StringVar(&cfg.Catalog, "catalog", env("OSTIUM_CATALOG", ""), "catalog URL: sqlite:///path or postgres://... (OSTIUM_CATALOG; default SQLite in the data directory)")
	fs.StringVar(&cfg.Region, "region", env("OSTIUM_REGION", "us-east-1"), "region reported to clients (OSTIUM_REGION)")
	var domains listFlag
	if v := os.Getenv("OSTIUM_DOMAIN"); v != "" {
		domains = strings.Split(v, ",")
	}
	fs.Var(&domains, "domain", "domain for virtual-hosted style, repeatable (OSTIUM_DOMAIN, comma-separated)")
	fs.DurationVar(&cfg.GCInterval, "gc-interval", envDuration("OSTIUM_GC_INTERVAL", 10*time.Second), "how often replaced blobs are collected")
	fs.DurationVar(&cfg.SweepInterval, "sweep-interval", envDuration("OSTIUM_SWEEP_INTERVAL", time.Hour), "how often never-committed blobs are swept")
	fs.DurationVar(&cfg.SweepGrace, "sweep-grace", envDuration("OSTIUM_SWEEP_GRACE", time.Hour), "age after which an uncommitted blob is swept")
	fs.BoolVar(&cfg.BlockPublicAccess, "block-public-access", env("OSTIUM_BLOCK_PUBLIC_ACCESS", "") == "true", "block all public access to every bucket, whatever its settings (OSTIUM_BLOCK_PUBLIC_ACCESS=true)")
	logLevel := fs.String("log-level", env("OSTIUM_LOG_LEVEL", "info"), "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("log-level: %w", err)
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	cfg.Domains = domains
	cfg.RootAccessKey, cfg.RootSecretKey = os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), os.Getenv("OSTIUM_ROOT_SECRET_KEY")
	cfg.NodeKey = os.Getenv("OSTIUM_NODE_KEY")

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := node.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer n.Close()
	if n.CreatedRootKey != "" {
		fmt.Printf("Root credentials were generated and will not be shown again:\n  OSTIUM_ROOT_ACCESS_KEY=%s\n  OSTIUM_ROOT_SECRET_KEY=%s\n", n.CreatedRootKey, n.CreatedRootSecret)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: n.Handler, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	slog.Info("ostium serving S3", "addr", ln.Addr().String(), "data", cfg.DataDir)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
