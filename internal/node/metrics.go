package node

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/redact"
	"github.com/ostiumio/ostium/internal/s3"
)

// MetricsConfig says who may scrape /metrics and how finely.
type MetricsConfig struct {
	// Allow lists the addresses or CIDR prefixes that may scrape; empty
	// lets any client that reaches the listener.
	Allow []string `yaml:"allow,omitempty"`
	// Token, when set, must come as "Authorization: Bearer <token>".
	Token string `yaml:"token,omitempty"`
	// TenantLabels enables per-tenant request series for up to this many
	// tenants (the first seen since start; the others count as "other").
	// 0 = none: each tenant is a set of series in every scrape.
	TenantLabels int `yaml:"tenant_labels,omitempty"`
}

// LogConfig shapes the node's log.
type LogConfig struct {
	Format string `yaml:"format,omitempty"` // text (default) or json
	Level  string `yaml:"level,omitempty"`  // debug, info (default), warn, error
	// Requests is the level of the line logged per S3 request (default
	// debug: the hot path logs nothing at the default level).
	Requests string `yaml:"requests,omitempty"`
}

// metricsPath is where the node's metrics are served.
const metricsPath = "/metrics"

// maxTenantLabels bounds metrics.tenant_labels: each tenant costs a
// dozen series in every scrape.
const maxTenantLabels = 10_000

func (c *MetricsConfig) validate() error {
	if _, err := c.allow(); err != nil {
		return err
	}
	if c.TenantLabels < 0 || c.TenantLabels > maxTenantLabels {
		return fmt.Errorf("metrics.tenant_labels: %d is not between 0 and %d", c.TenantLabels, maxTenantLabels)
	}
	return nil
}

func (c *MetricsConfig) allow() ([]netip.Prefix, error) {
	out, err := prefixes(c.Allow)
	if err != nil {
		return nil, fmt.Errorf("metrics.allow: %w", err)
	}
	return out, nil
}

// prefixes reads addresses (as one-address prefixes) and CIDR prefixes.
func prefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range list {
		if a, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR prefix", p)
		}
		out = append(out, pre.Masked())
	}
	return out, nil
}

func (c *LogConfig) validate() error {
	if c.Format != "" && c.Format != "text" && c.Format != "json" {
		return fmt.Errorf("log.format: %q is neither text nor json", c.Format)
	}
	for key, v := range map[string]string{"log.level": c.Level, "log.requests": c.Requests} {
		if _, err := parseLevel(v, 0); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	return nil
}

func parseLevel(v string, def slog.Level) (slog.Level, error) {
	if v == "" {
		return def, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return 0, fmt.Errorf("%q is not debug, info, warn or error", v)
	}
	return l, nil
}

// Handler returns the slog handler the configuration describes, writing
// to w, every line's credentials masked (redact.Handler).
func (c LogConfig) Handler(w io.Writer) slog.Handler {
	level, _ := parseLevel(c.Level, slog.LevelInfo) // validated
	o := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return redact.Handler(slog.NewJSONHandler(w, o))
	}
	return redact.Handler(slog.NewTextHandler(w, o))
}

// requestLevel is the level of the per-request line.
func (c LogConfig) requestLevel() slog.Level {
	l, _ := parseLevel(c.Requests, slog.LevelDebug) // validated
	return l
}

// exportStores adds the families read at scrape time from the node's
// stores: pool use, the collector's backlog, platform health, disk space.
func (n *Node) exportStores() {
	m := n.Metrics
	if p, ok := n.Catalog.(interface{ Pools() (read, write *sql.DB) }); ok {
		read, write := p.Pools()
		if read == write {
			m.DB("catalog", read)
		} else {
			m.DB("catalog_read", read)
			m.DB("catalog_write", write)
		}
	}
	if b, ok := n.Catalog.(gcBacklog); ok {
		m.GaugeVec("gc_queue", "Blobs queued for the collector (what=blobs) and the age in seconds of the oldest (what=oldest_age_seconds), read from the catalog.",
			[]string{"what"}, func(ctx context.Context, emit func(float64, ...string)) error {
				n, oldest, err := b.GCBacklog(ctx)
				if err != nil {
					return err
				}
				emit(float64(n), "blobs")
				emit(oldest.Seconds(), "oldest_age_seconds")
				return nil
			})
	}
	m.GaugeVec("platform_up", "1 while a storage platform answers its health checks, 0 while it is taken for down, by platform.",
		[]string{"platform"}, func(_ context.Context, emit func(float64, ...string)) error {
			for name, err := range n.Platforms.Health() {
				emit(map[bool]float64{true: 1, false: 0}[err == nil], name)
			}
			return nil
		})
	vols := map[string]string{"data": n.cfg.DataDir}
	specs, _ := n.cfg.platforms()
	for name, spec := range specs {
		if spec.Type == platform.TypeFS {
			vols["platform:"+name] = spec.Path
		}
	}
	m.GaugeVec("disk_free_bytes", "Bytes free to the node on the file system of its data directory (volume=data) and of each fs platform (volume=platform:NAME).",
		[]string{"volume"}, diskStat(vols, func(s *unix.Statfs_t) float64 { return float64(s.Bavail) * float64(s.Bsize) }))
	m.GaugeVec("disk_size_bytes", "Size of the file system of the data directory and of each fs platform, by volume.",
		[]string{"volume"}, diskStat(vols, func(s *unix.Statfs_t) float64 { return float64(s.Blocks) * float64(s.Bsize) }))
}

// gcBacklog is a catalog that can tell the collector's backlog.
type gcBacklog interface {
	GCBacklog(ctx context.Context) (n int64, oldest time.Duration, err error)
}

func diskStat(vols map[string]string, f func(*unix.Statfs_t) float64) func(context.Context, func(float64, ...string)) error {
	names := slices.Sorted(maps.Keys(vols))
	return func(_ context.Context, emit func(float64, ...string)) error {
		for _, name := range names {
			var st unix.Statfs_t
			if err := unix.Statfs(filepath.Clean(vols[name]), &st); err == nil {
				emit(f(&st), name)
			}
		}
		return nil
	}
}

// metricsHandler serves /metrics as the configuration allows.
func (n *Node) metricsHandler() http.Handler {
	allow, _ := n.cfg.Metrics.allow() // validated
	return n.Metrics.Handler(metrics.Access{Allow: allow, Token: n.cfg.Metrics.Token})
}

func newMetrics(c Config) *metrics.Metrics {
	specs, _ := c.platforms()
	return metrics.New(metrics.Options{Ops: s3.OpNames(), TenantLabels: c.Metrics.TenantLabels,
		Platforms: slices.Sorted(maps.Keys(specs)), Jobs: []string{"collector", "sweeper"}})
}
