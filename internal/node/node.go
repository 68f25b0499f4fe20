// Package node assembles one Ostium node from its configuration: catalog,
// blob store, credentials, object service, S3 endpoint and background jobs.
// It is what `ostium serve` runs and what end-to-end tests start.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/jobs"
	"github.com/ostiumio/ostium/internal/metering"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/s3"
)

// Config is a node's configuration, as `ostium serve` flags and the
// configuration file (YAML, these keys) give it.
type Config struct {
	Listen  string `yaml:"listen,omitempty"`  // address of the S3 endpoint
	DataDir string `yaml:"data"`              // node key, default SQLite catalog and local blobs
	Catalog string `yaml:"catalog,omitempty"` // sqlite:///path or postgres://...; "" = SQLite in DataDir
	// CatalogConns bounds this node's PostgreSQL connections (0 =
	// postgres.DefaultMaxConns).
	CatalogConns int `yaml:"catalog_connections,omitempty"`
	// MaxRequests bounds the S3 requests served at once; more get 503
	// SlowDown (0 = DefaultMaxRequests).
	MaxRequests int      `yaml:"max_requests,omitempty"`
	Domains     []string `yaml:"domains,omitempty"` // virtual-hosted style domains
	// TrustedProxies are the load balancers (addresses or CIDR prefixes)
	// whose X-Forwarded-For tells the client's address to policies.
	TrustedProxies []string `yaml:"trusted_proxies,omitempty"`
	Region         string   `yaml:"region,omitempty"`
	// RootAccessKey/RootSecretKey: the provider's credentials; generated on
	// first start when both are empty.
	RootAccessKey string `yaml:"root_access_key,omitempty"`
	RootSecretKey string `yaml:"root_secret_key,omitempty"`
	NodeKey       string `yaml:"node_key,omitempty"` // base64; "" = DataDir/node.key
	// GCInterval paces the collector; SweepInterval and SweepGrace the
	// sweeper of never-committed blobs.
	GCInterval    time.Duration `yaml:"gc_interval,omitempty"`
	SweepInterval time.Duration `yaml:"sweep_interval,omitempty"`
	SweepGrace    time.Duration `yaml:"sweep_grace,omitempty"`
	// MeterInterval is how often usage counters reach the catalog.
	MeterInterval time.Duration `yaml:"meter_interval,omitempty"`
	// JobLease is how long a node's hold on a background job lasts
	// unrenewed: how soon another node takes over when it dies (0 = 15 s).
	JobLease time.Duration `yaml:"job_lease,omitempty"`
	// BlockPublicAccess is the provider-wide switch that blocks all public
	// access to every bucket, whatever the bucket's own settings.
	BlockPublicAccess bool `yaml:"block_public_access,omitempty"`
	// Platforms are where blobs go, by name; none = "local", the blobs
	// directory under DataDir. DefaultPlatform takes the blobs of tenants
	// and buckets that name none ("" = "local").
	Platforms       map[string]platform.Spec `yaml:"platforms,omitempty"`
	DefaultPlatform string                   `yaml:"default_platform,omitempty"`
	// Metrics: who may scrape /metrics; per-tenant series. Log: format
	// and levels of the log.
	Metrics MetricsConfig `yaml:"metrics,omitempty"`
	Log     LogConfig     `yaml:"log,omitempty"`
}

// DefaultMaxRequests is how many S3 requests a node serves at once when
// the configuration does not say.
const DefaultMaxRequests = 1024

// Validate reports the first invalid value, naming its key.
func (c *Config) Validate() error {
	if c.DataDir == "" {
		return errors.New("data: a data directory is required")
	}
	if c.Catalog != "" && !strings.HasPrefix(c.Catalog, "sqlite://") &&
		!strings.HasPrefix(c.Catalog, "postgres://") && !strings.HasPrefix(c.Catalog, "postgresql://") {
		return fmt.Errorf("catalog: %q is neither sqlite:///path nor postgres://...", c.Catalog)
	}
	for _, d := range c.Domains {
		if d == "" || strings.ContainsAny(d, "/: ") {
			return fmt.Errorf("domains: %q is not a host name", d)
		}
	}
	if _, err := c.trustedProxies(); err != nil {
		return err
	}
	if err := c.Metrics.validate(); err != nil {
		return err
	}
	if err := c.Log.validate(); err != nil {
		return err
	}
	for name, n := range map[string]int{"catalog_connections": c.CatalogConns, "max_requests": c.MaxRequests} {
		if n < 0 {
			return fmt.Errorf("%s: %d must not be negative", name, n)
		}
	}
	for name, d := range map[string]time.Duration{"gc_interval": c.GCInterval, "sweep_interval": c.SweepInterval, "sweep_grace": c.SweepGrace, "meter_interval": c.MeterInterval, "job_lease": c.JobLease} {
		if d < 0 {
			return fmt.Errorf("%s: %v must not be negative", name, d)
		}
	}
	if (c.RootAccessKey == "") != (c.RootSecretKey == "") {
		return errors.New("root_secret_key: give both root keys or neither")
	}
	specs, def := c.platforms()
	if _, ok := specs[def]; !ok {
		return fmt.Errorf("default_platform: %q is not among the platforms", def)
	}
	for name, spec := range specs {
		if err := platform.Validate(name, spec); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) trustedProxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range c.TrustedProxies {
		if a, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("trusted_proxies: %q is neither an address nor a CIDR prefix", p)
		}
		out = append(out, pre.Masked())
	}
	return out, nil
}

// platforms returns the configured platforms, or the one local platform.
func (c *Config) platforms() (map[string]platform.Spec, string) {
	specs := c.Platforms
	if len(specs) == 0 {
		specs = map[string]platform.Spec{platform.Legacy: {Type: platform.TypeFS, Path: filepath.Join(c.DataDir, "blobs")}}
	}
	def := c.DefaultPlatform
	if def == "" {
		def = platform.Legacy
	}
	return specs, def
}

// Node is a running node's parts.
type Node struct {
	Catalog catalog.Store
	Blobs   blob.Store
	// Platforms are the blob stores by name; Blobs routes to them.
	Platforms *platform.Set
	Keys      *iam.Keyring
	Service   *objects.Service
	Admin     *admin.Service
	Meter     *metering.Meter
	Metrics   *metrics.Metrics
	Handler   http.Handler
	// ID names this node in job leases and on the readiness endpoint.
	ID string
	// CreatedRoot holds root credentials generated by this start, if any.
	CreatedRootKey, CreatedRootSecret string

	cfg    Config
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open builds a node and starts its background jobs.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("node: data directory: %w", err)
	}
	n := &Node{cfg: cfg, ID: newNodeID(), Metrics: newMetrics(cfg)}
	var err error
	if n.Catalog, err = openCatalog(ctx, cfg, sqldb.WithMetrics(n.Metrics.Catalog)); err != nil {
		return nil, err
	}
	fail := func(err error) (*Node, error) { n.Close(); return nil, err }
	specs, def := cfg.platforms()
	if n.Platforms, err = platform.Open(specs, def, n.Metrics.Platforms); err != nil {
		return fail(fmt.Errorf("node: %w", err))
	}
	n.Blobs = n.Platforms
	key, err := iam.LoadNodeKey(cfg.DataDir, cfg.NodeKey)
	if err != nil {
		return fail(err)
	}
	sealer, err := iam.NewSealer(key)
	if err != nil {
		return fail(err)
	}
	if n.CreatedRootKey, n.CreatedRootSecret, err = iam.EnsureRoot(ctx, n.Catalog, sealer, cfg.RootAccessKey, cfg.RootSecretKey); err != nil {
		return fail(err)
	}
	n.Keys = iam.NewKeyring(n.Catalog, sealer, time.Minute, n.Metrics.KeyCache)
	n.Service = objects.New(n.Catalog, n.Blobs, n.Keys, objects.Options{Region: cfg.Region, BlockPublicAccess: cfg.BlockPublicAccess, BucketCache: n.Metrics.BucketCache})
	n.Admin = admin.NewService(n.Catalog, n.Keys, sealer, n.Platforms)
	n.Meter = metering.New(n.Catalog)
	proxies, _ := cfg.trustedProxies() // Validate checked them
	s3h := s3.New(n.Service, n.Keys, n.Meter, s3.Options{Domains: cfg.Domains, MaxRequests: or(cfg.MaxRequests, DefaultMaxRequests), TrustedProxies: proxies,
		Metrics: n.Metrics.S3, RequestLog: cfg.Log.requestLevel()})
	n.Handler = n.route(s3h, admin.NewHandler(n.Admin, n.Keys))
	n.exportStores()
	n.startJobs()
	return n, nil
}

func openCatalog(ctx context.Context, cfg Config, opts ...sqldb.Option) (catalog.Store, error) {
	switch {
	case cfg.Catalog == "":
		return sqlite.Open(ctx, filepath.Join(cfg.DataDir, "catalog.db"), opts...)
	case strings.HasPrefix(cfg.Catalog, "sqlite://"):
		u, err := url.Parse(cfg.Catalog)
		if err != nil || u.Path == "" {
			return nil, fmt.Errorf("catalog: bad sqlite URL %q", cfg.Catalog)
		}
		return sqlite.Open(ctx, u.Host+u.Path, opts...)
	default:
		return postgres.Open(ctx, cfg.Catalog, cfg.CatalogConns, opts...)
	}
}

func (n *Node) startJobs() {
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	gc := jobs.NewCollector(n.Catalog, n.Blobs, or(n.cfg.GCInterval, 10*time.Second), n.Metrics.Jobs)
	sw := jobs.NewSweeper(n.Catalog, n.Blobs, or(n.cfg.SweepInterval, time.Hour), or(n.cfg.SweepGrace, time.Hour), n.Metrics.Jobs)
	// Of the nodes sharing the catalog, one runs each of these at a time.
	leased := func(name string, job func(context.Context)) func(context.Context) {
		return func(ctx context.Context) {
			jobs.Leased(ctx, n.Catalog, name, n.ID, or(n.cfg.JobLease, jobs.LeaseTTL), job, n.Metrics.Jobs)
		}
	}
	// Another node's changes to keys and tenants reach this one's cache
	// within a second.
	watch := func(ctx context.Context) { n.Keys.Watch(ctx, time.Second) }
	meter := func(ctx context.Context) { n.Meter.Run(ctx, or(n.cfg.MeterInterval, 10*time.Second)) }
	health := func(ctx context.Context) { n.Platforms.Watch(ctx, 2*time.Second) }
	for _, run := range []func(context.Context){leased("collector", gc.Run), leased("sweeper", sw.Run), watch, meter, health} {
		n.wg.Add(1)
		go func() { defer n.wg.Done(); run(ctx) }()
	}
	slog.Debug("background jobs started")
}

func or[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Close stops the jobs and closes the stores.
func (n *Node) Close() error {
	if n.cancel != nil {
		n.cancel()
		n.wg.Wait()
	}
	var errs []error
	if n.Blobs != nil {
		errs = append(errs, n.Blobs.Close())
	}
	if n.Catalog != nil {
		errs = append(errs, n.Catalog.Close())
	}
	return errors.Join(errs...)
}

// route sends the admin API's and the health checks' paths to them and
// everything else to S3. Path-style buckets of those names would collide,
// so objects refuses the names; on a virtual host the path is a key.
func (n *Node) route(s3h, adminh http.Handler) http.Handler {
	domains := n.cfg.Domains
	metricsh := n.metricsHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case virtualHost(r.Host, domains):
		case strings.HasPrefix(r.URL.Path, admin.Prefix+"/"):
			adminh.ServeHTTP(w, r)
			return
		case strings.HasPrefix(r.URL.Path, healthPrefix):
			n.health(w, r)
			return
		case r.URL.Path == metricsPath:
			metricsh.ServeHTTP(w, r)
			return
		}
		s3h.ServeHTTP(w, r)
	})
}

func virtualHost(host string, domains []string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	for _, d := range domains {
		if strings.HasSuffix(host, "."+strings.ToLower(strings.TrimPrefix(d, "."))) {
			return true
		}
	}
	return false
}
