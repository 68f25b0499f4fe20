// Package node assembles one Ostium node from its configuration: catalog,
// blob store, credentials, object service, S3 endpoint and background jobs.
// It is what `ostium serve` runs and what end-to-end tests start.
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/accesslog"
	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/catalog/sqldb"
	"github.com/ostiumio/ostium/internal/catalog/sqlite"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iamapi"
	"github.com/ostiumio/ostium/internal/idp"
	"github.com/ostiumio/ostium/internal/jobs"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/metering"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/notify/delivery"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/oidc"
	"github.com/ostiumio/ostium/internal/osis"
	"github.com/ostiumio/ostium/internal/platform"
	"github.com/ostiumio/ostium/internal/ratelimit"
	"github.com/ostiumio/ostium/internal/replicator"
	"github.com/ostiumio/ostium/internal/s3"
	"github.com/ostiumio/ostium/internal/storageclass"
	"github.com/ostiumio/ostium/internal/sts"
	"github.com/ostiumio/ostium/internal/vcsp"
)

// Config is a node's configuration, as `ostium serve` flags and the
// configuration file (YAML, these keys) give it.
type Config struct {
	Listen  string `yaml:"listen,omitempty"`  // plain HTTP address of the S3 endpoint; "" = none
	DataDir string `yaml:"data"`              // node key, default SQLite catalog and local blobs
	Catalog string `yaml:"catalog,omitempty"` // sqlite:///path or postgres://...; "" = SQLite in DataDir
	// CatalogConns bounds this node's PostgreSQL connections (0 =
	// postgres.DefaultMaxConns).
	CatalogConns int `yaml:"catalog_connections,omitempty"`
	// MaxRequests bounds the S3 requests served at once; more get 503
	// SlowDown (0 = DefaultMaxRequests).
	MaxRequests int `yaml:"max_requests,omitempty"`
	// AnonymousShare and TenantShare are the percentages of max_requests
	// that anonymous requests, and any one tenant, may hold at once (0 =
	// 10 and 50); the provider's root is bounded by max_requests alone.
	AnonymousShare int `yaml:"anonymous_share,omitempty"`
	TenantShare    int `yaml:"tenant_share,omitempty"`
	// DocumentMemoryMiB bounds the memory of the request documents
	// (CompleteMultipartUpload's part lists, DeleteObjects' keys, ACLs,
	// policies, ...) the node holds at once, shared out as the request
	// slots are; a request it cannot cover gets 503 SlowDown (0 =
	// DefaultDocumentMemoryMiB).
	DocumentMemoryMiB int `yaml:"document_memory_mib,omitempty"`
	// BodyMinRate is the average rate, in bytes a second, a request body
	// must keep once the node has waited on it for body_idle_timeout, else
	// it gets 400 RequestTimeout (0 = DefaultBodyMinRate).
	BodyMinRate int `yaml:"body_min_rate,omitempty"`
	// HeaderTimeout bounds reading a request's headers; BodyIdleTimeout
	// how long a request or response body may move no byte (a stalled
	// upload gets 400 RequestTimeout); KeepAliveTimeout how long an idle
	// connection stays open; RequestTimeout how long a request may make no
	// progress (a stalled catalog or platform) before it gets 503 (0 =
	// the Default* values).
	HeaderTimeout    time.Duration `yaml:"header_timeout,omitempty"`
	BodyIdleTimeout  time.Duration `yaml:"body_idle_timeout,omitempty"`
	KeepAliveTimeout time.Duration `yaml:"keepalive_timeout,omitempty"`
	RequestTimeout   time.Duration `yaml:"request_timeout,omitempty"`
	Domains          []string      `yaml:"domains,omitempty"` // virtual-hosted style domains
	// TrustedProxies are the load balancers (addresses or CIDR prefixes)
	// whose X-Forwarded-For tells the client's address to policies.
	TrustedProxies []string `yaml:"trusted_proxies,omitempty"`
	Region         string   `yaml:"region,omitempty"`
	// RootAccessKey/RootSecretKey: the provider's credentials; generated on
	// first start when both are empty.
	RootAccessKey string `yaml:"root_access_key,omitempty"`
	RootSecretKey string `yaml:"root_secret_key,omitempty"`
	NodeKey       string `yaml:"node_key,omitempty"` // base64; "" = a systemd credential, node_key_file or the user's key file
	// GCInterval paces the collector; SweepInterval and SweepGrace the
	// sweeper of never-committed blobs.
	GCInterval    time.Duration `yaml:"gc_interval,omitempty"`
	SweepInterval time.Duration `yaml:"sweep_interval,omitempty"`
	SweepGrace    time.Duration `yaml:"sweep_grace,omitempty"`
	// MeterInterval is how often usage counters reach the catalog.
	MeterInterval time.Duration `yaml:"meter_interval,omitempty"`
	// AccessLogFlush is how often a node queues its access log records
	// in the catalog (0 = 1 s); AccessLogInterval how often the leased
	// job delivers them (0 = 5 min); AccessLogObjectRecords bounds the
	// records of one log object, AccessLogBuffer and AccessLogQueue the
	// records held in memory and queued (0 = the defaults).
	AccessLogFlush         time.Duration `yaml:"access_log_flush,omitempty"`
	AccessLogInterval      time.Duration `yaml:"access_log_interval,omitempty"`
	AccessLogObjectRecords int           `yaml:"access_log_object_records,omitempty"`
	AccessLogBuffer        int           `yaml:"access_log_buffer,omitempty"`
	AccessLogQueue         int           `yaml:"access_log_queue,omitempty"`
	// CatalogIndexInterval is how often the leased indexer regenerates
	// the index of published content libraries whose objects changed
	// (0 = 1 min).
	CatalogIndexInterval time.Duration `yaml:"catalog_index_interval,omitempty"`
	// JobLease is how long a node's hold on a background job lasts
	// unrenewed: how soon another node takes over when it dies (0 = 15 s).
	JobLease time.Duration `yaml:"job_lease,omitempty"`
	// BlockPublicAccess is the provider-wide switch that blocks all public
	// access to every bucket, whatever the bucket's own settings.
	BlockPublicAccess bool `yaml:"block_public_access,omitempty"`
	// BucketDefaults is what a new bucket gets when CreateBucket does not
	// say: "aws" (or "") AWS's defaults since 2023, ACLs disabled
	// (BucketOwnerEnforced) and all public access blocked; "legacy" the
	// older ones Ceph RGW keeps, ObjectWriter and no block, for tenants
	// whose tools create buckets with canned ACLs or public policies.
	BucketDefaults string `yaml:"bucket_defaults,omitempty"`
	// Platforms are where blobs go, by name; none = "local", the blobs
	// directory under DataDir. DefaultPlatform takes the blobs of tenants
	// and buckets that name none ("" = "local").
	Platforms       map[string]platform.Spec `yaml:"platforms,omitempty"`
	DefaultPlatform string                   `yaml:"default_platform,omitempty"`
	// StorageClasses maps S3 storage classes to platforms (STANDARD_IA:
	// ceph), under the maps the provider and tenants set through the
	// admin API; see docs/storage-classes.md.
	StorageClasses storageclass.Map `yaml:"storage_classes,omitempty"`
	// PresignV2MaxAge bounds how far ahead a presigned Signature V2 URL may
	// expire (0 = a week, as S3 bounds V4 URLs).
	PresignV2MaxAge time.Duration `yaml:"sigv2_presign_max_age,omitempty"`

	// TLS: the endpoint over HTTPS on TLSListen, with the PEM certificate
	// chain and key in TLSCert and TLSKey (reloaded on SIGHUP or when
	// they change). NodeKeyFile keeps the node key apart from the data.
	TLSListen   string `yaml:"tls_listen,omitempty"`
	TLSCert     string `yaml:"tls_cert,omitempty"`
	TLSKey      string `yaml:"tls_key,omitempty"`
	NodeKeyFile string `yaml:"node_key_file,omitempty"`
	// ConfigDir is the user configuration directory the user's key file
	// (ostium/node.key) is kept in when no key is given ("" =
	// os.UserConfigDir(): $XDG_CONFIG_HOME, ~/.config). Not a setting of
	// the file: tests give each node their own.
	ConfigDir string `yaml:"-"`
	// AuditRetention is how long audit log entries are kept (0 =
	// audit.DefaultRetention, 90 days).
	AuditRetention time.Duration `yaml:"audit_retention,omitempty"`
	// Lifecycle: the worker's pass interval and pace, and (for tests
	// only) the length of a lifecycle day; see lifecycle.go.
	Lifecycle LifecycleConfig `yaml:",inline"`
	// Notify: the delivery of event notifications; see notify.go.
	Notify NotifyConfig `yaml:",inline"`
	// Replication: the replication worker's pace and bounds, and where
	// remote targets may be plain http; see replication.go.
	Replication ReplicationConfig `yaml:",inline"`
	// SSE: the provider's default encryption of new objects, and (for
	// tests only) SSE-C over plain HTTP; see sse.go.
	SSE SSEConfig `yaml:",inline"`
	// STS: where identity providers may be fetched from; see sts.go.
	STS STSConfig `yaml:",inline"`

	// KMS is the key service of encryption at rest; see kms.go.
	KMS KMSConfig `yaml:"kms,omitempty"`

	// ConsoleListen is the web console's own listener, so that it never
	// shares an origin with S3, whose objects are tenants' pages: HTTPS
	// with the node's certificate when tls_listen is set, else HTTP
	// (ConsoleOff = no console; "" = none here, `serve` defaults it to
	// DefaultConsoleListen). ConsoleS3URL is the S3 endpoint's URL as
	// browsers reach it, for the console's share links ("" = the
	// console's host name with the S3 listener's port and scheme).
	ConsoleListen string `yaml:"console_listen,omitempty"`
	ConsoleS3URL  string `yaml:"console_s3_url,omitempty"`
	// OSIS serves the OSIS API for VMware Cloud Director under /osis
	// (default off: it takes the root secret in basic auth); OSISConsoleURL
	// is the console's address it gives ("" = getConsole not served).
	OSIS           bool   `yaml:"osis,omitempty"`
	OSISConsoleURL string `yaml:"osis_console_url,omitempty"`
	// SandboxActiveObjects (default true) sends every object answer a
	// browser would render actively (HTML, SVG, ...) with
	// `Content-Security-Policy: sandbox`; false lets tenants' pages run
	// scripts as on AWS, for a provider whose console has a host name
	// of its own (docs/s3-compatibility.md).
	SandboxActiveObjects *bool `yaml:"sandbox_active_objects,omitempty"`
	// SOSAPI (default true) serves Veeam's Smart Object Storage API in
	// every bucket: system.xml and capacity.xml computed under
	// .system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/, whose keys no one
	// may write (docs/veeam.md).
	SOSAPI *bool `yaml:"sosapi,omitempty"`

	// ConsoleIdleExpiry and ConsoleMaxAge end console sessions unused
	// for that long, and that long after sign-in (0 = 30 min and 12 h).
	ConsoleIdleExpiry time.Duration `yaml:"console_idle_expiry,omitempty"`
	ConsoleMaxAge     time.Duration `yaml:"console_max_age,omitempty"`

	// Metrics: who may scrape /metrics; per-tenant series. Log: format
	// and levels of the log.
	Metrics MetricsConfig `yaml:"metrics,omitempty"`
	Log     LogConfig     `yaml:"log,omitempty"`
}

// The console's default listener (beside S3's :9000, as MinIO puts its
// console), and the value of console_listen that turns the console off.
const (
	DefaultConsoleListen = ":9001"
	ConsoleOff           = "off"
)

// Values of bucket_defaults.
const (
	BucketDefaultsAWS    = "aws"
	BucketDefaultsLegacy = "legacy"
)

// Defaults of the request limits when the configuration does not say.
const (
	DefaultMaxRequests    = 1024 // S3 requests served at once
	DefaultAnonymousShare = 10   // percent of them anonymous requests may hold
	DefaultTenantShare    = 50   // percent of them one tenant may hold at most
	// DefaultDocumentMemoryMiB is the request documents' memory; at least
	// minDocumentMemoryMiB, so that a tenant's share holds the largest
	// document (5 MiB).
	DefaultDocumentMemoryMiB = s3.DefaultDocumentMemory >> 20
	minDocumentMemoryMiB     = 16
	DefaultBodyMinRate       = s3.DefaultMinBodyRate
	DefaultHeaderTimeout     = 10 * time.Second
	DefaultBodyIdleTimeout   = s3.DefaultIdleTimeout
	DefaultKeepAliveTimeout  = 2 * time.Minute
	DefaultRequestTimeout    = s3.DefaultRequestTimeout
	// maxHeaderBytes bounds a request's headers (AWS allows 8 KiB): what
	// a thousand slow connections can make a node hold.
	maxHeaderBytes = 64 << 10
)

// Validate reports every invalid value, each naming its key (joined by
// errors.Join, one a line), so that one run of `ostium config validate`
// lists all there is to fix. It is the one check `serve` and `config
// validate` run.
func (c *Config) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if c.DataDir == "" {
		add(errors.New("data: a data directory is required"))
	}
	if c.Catalog != "" && !strings.HasPrefix(c.Catalog, "sqlite://") &&
		!strings.HasPrefix(c.Catalog, "postgres://") && !strings.HasPrefix(c.Catalog, "postgresql://") {
		// The URL may hold a password: name the scheme only.
		scheme, _, _ := strings.Cut(c.Catalog, ":")
		add(fmt.Errorf("catalog: a URL of scheme %q is neither sqlite:///path nor postgres://...", scheme))
	}
	for _, d := range c.Domains {
		if d == "" || strings.ContainsAny(d, "/: ") {
			add(fmt.Errorf("domains: %q is not a host name", d))
		}
	}
	_, err := c.trustedProxies()
	add(err)
	add(c.validateConsole())
	add(c.validateOSIS())
	add(c.validateTLSAndKey())
	add(c.Metrics.validate())
	add(c.Log.validate())
	add(c.Lifecycle.validate())
	add(c.Notify.validate())
	add(c.Replication.validate())
	add(c.KMS.validate())
	add(c.SSE.validate())
	add(c.STS.validate())
	// Sorted, so that the same file gives the same report.
	if n := c.DocumentMemoryMiB; n != 0 && n < minDocumentMemoryMiB {
		add(fmt.Errorf("document_memory_mib: %d is under %d (0 = the default, %d)", n, minDocumentMemoryMiB, DefaultDocumentMemoryMiB))
	}
	ints := map[string]int{"catalog_connections": c.CatalogConns, "max_requests": c.MaxRequests, "body_min_rate": c.BodyMinRate,
		"access_log_object_records": c.AccessLogObjectRecords, "access_log_buffer": c.AccessLogBuffer, "access_log_queue": c.AccessLogQueue}
	for _, name := range slices.Sorted(maps.Keys(ints)) {
		if n := ints[name]; n < 0 {
			add(fmt.Errorf("%s: %d must not be negative", name, n))
		}
	}
	shares := map[string]int{"anonymous_share": c.AnonymousShare, "tenant_share": c.TenantShare}
	for _, name := range slices.Sorted(maps.Keys(shares)) {
		if n := shares[name]; n < 0 || n > 100 {
			add(fmt.Errorf("%s: %d is not a percentage (0 to 100; 0 = the default)", name, n))
		}
	}
	durations := map[string]time.Duration{"gc_interval": c.GCInterval, "sweep_interval": c.SweepInterval, "sweep_grace": c.SweepGrace, "meter_interval": c.MeterInterval, "job_lease": c.JobLease,
		"header_timeout": c.HeaderTimeout, "body_idle_timeout": c.BodyIdleTimeout, "keepalive_timeout": c.KeepAliveTimeout, "request_timeout": c.RequestTimeout,
		"sigv2_presign_max_age": c.PresignV2MaxAge, "audit_retention": c.AuditRetention, "access_log_flush": c.AccessLogFlush, "access_log_interval": c.AccessLogInterval,
		"console_idle_expiry": c.ConsoleIdleExpiry, "console_max_age": c.ConsoleMaxAge, "catalog_index_interval": c.CatalogIndexInterval}
	for _, name := range slices.Sorted(maps.Keys(durations)) {
		if d := durations[name]; d < 0 {
			add(fmt.Errorf("%s: %v must not be negative", name, d))
		}
	}
	switch c.BucketDefaults {
	case "", BucketDefaultsAWS, BucketDefaultsLegacy:
	default:
		add(fmt.Errorf("bucket_defaults: %q is neither %s nor %s", c.BucketDefaults, BucketDefaultsAWS, BucketDefaultsLegacy))
	}
	if (c.RootAccessKey == "") != (c.RootSecretKey == "") {
		add(errors.New("root_secret_key: give both root keys or neither"))
	}
	specs, def := c.platforms()
	if _, ok := specs[def]; !ok {
		add(fmt.Errorf("default_platform: %q is not among the platforms", def))
	}
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		add(platform.Validate(name, specs[name]))
	}
	add(c.StorageClasses.Validate(func(p string) bool { _, ok := specs[p]; return ok }))
	return errors.Join(errs...)
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
	KMS       kms.Manager // encryption at rest's key service
	Service   *objects.Service
	Admin     *admin.Service
	OSIS      *osis.Handler // nil: not served
	Meter     *metering.Meter
	Metrics   *metrics.Metrics
	AccessLog *accesslog.Logger
	Audit     *audit.Log
	// Replicator delivers bucket replication (under its lease).
	Replicator *replicator.Worker
	// Directories syncs tenants' directories (a leased job) and signs
	// their users in; nil when the catalog keeps none.
	Directories *directory.Service
	// Handler serves the S3 listeners (S3, admin API, health, metrics);
	// Console the console's own listener (the console alone).
	Handler http.Handler
	Console http.Handler
	// S3 is the S3 endpoint inside Handler (its load tells readiness).
	S3 *s3.Server
	// STS is the Security Token Service served on the S3 endpoint.
	STS *sts.Service
	// OIDC verifies identity providers' tokens.
	OIDC *oidc.Verifier
	// IdPs signs people in to the console through OpenID Connect
	// providers (nil when the catalog keeps none).
	IdPs *idp.Service
	// Rates holds tenants to their quotas' rates with the other nodes.
	Rates *ratelimit.Limiter
	// ID names this node in job leases and on the readiness endpoint.
	ID string
	// CreatedRoot holds root credentials generated by this start, if any.
	CreatedRootKey, CreatedRootSecret string
	// CreatedNodeKeyFile is the key file this start made, if any (see
	// loadNodeKey).
	CreatedNodeKeyFile string

	cfg    Config
	cancel context.CancelFunc
	wg     sync.WaitGroup
	ready  readyCache

	notifier *delivery.Worker // delivers event notifications (a leased job)
}

// Open builds a node and starts its background jobs.
func Open(ctx context.Context, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := secureDataDir(cfg.DataDir); err != nil {
		return nil, err
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
	nk, err := loadNodeKey(cfg)
	if err != nil {
		return fail(err)
	}
	if err := checkNodeKey(ctx, n.Catalog, nk, cfg); err != nil {
		return fail(err)
	}
	n.CreatedNodeKeyFile = nk.made
	key := nk.key
	sealer, err := iam.NewSealer(key)
	if err != nil {
		return fail(err)
	}
	n.Keys = iam.NewKeyring(n.Catalog, sealer, time.Minute, n.Metrics.KeyCache)
	if n.KMS, err = n.openKMS(key); err != nil {
		return fail(err)
	}
	n.Service = objects.New(n.Catalog, n.Blobs, n.Keys, objects.Options{Region: cfg.Region, BlockPublicAccess: cfg.BlockPublicAccess, BucketCache: n.Metrics.BucketCache,
		LegacyBucketDefaults: cfg.BucketDefaults == BucketDefaultsLegacy, LifecycleDay: cfg.Lifecycle.Day, DefaultEncryption: cfg.SSE.rule(), Keys: n.KMS,
		Observers:      []objects.Observer{&delivery.Observer{Region: cfg.Region}, &replicator.Observer{}},
		StorageClasses: cfg.StorageClasses})
	if n.notifier, err = n.notifyWorker(sealer); err != nil {
		return fail(err)
	}
	n.Replicator = n.newReplicator(sealer)
	n.Audit = audit.New(n.Catalog, cfg.AuditRetention)
	n.Admin = admin.NewService(n.Catalog, n.Keys, sealer, n.Platforms, n.Audit)
	n.Admin.SetMeterInterval(or(cfg.MeterInterval, admin.DefaultMeterInterval))
	n.Admin.SetKMS(n.KMS)
	plain, _ := cfg.Replication.plainHTTP() // Validate checked them
	n.Admin.SetReplicationPlainHTTP(plain)
	n.Admin.SetExplainer(n.Service)
	n.openDirectories(sealer)
	n.Meter = metering.New(n.Catalog)
	n.AccessLog = accesslog.New(n.Catalog, accesslog.Options{Buffer: cfg.AccessLogBuffer, Queue: cfg.AccessLogQueue})
	proxies, _ := cfg.trustedProxies() // Validate checked them
	maxReq := or(cfg.MaxRequests, DefaultMaxRequests)
	n.Rates = ratelimit.New(n.ID, n.Catalog)
	n.S3 = s3.New(n.Service, n.Keys, n.Meter, s3.Options{Domains: cfg.Domains, TrustedProxies: proxies, MaxRequests: maxReq,
		MaxAnonymous:   max(1, maxReq*or(cfg.AnonymousShare, DefaultAnonymousShare)/100),
		MaxPerTenant:   max(1, maxReq*or(cfg.TenantShare, DefaultTenantShare)/100),
		DocumentMemory: int64(or(cfg.DocumentMemoryMiB, DefaultDocumentMemoryMiB)) << 20,
		IdleTimeout:    or(cfg.BodyIdleTimeout, DefaultBodyIdleTimeout), RequestTimeout: or(cfg.RequestTimeout, DefaultRequestTimeout),
		MinBodyRate:     int64(or(cfg.BodyMinRate, DefaultBodyMinRate)),
		PresignV2MaxAge: cfg.PresignV2MaxAge, AccessLog: n.AccessLog, Audit: n.Audit,
		Metrics: n.Metrics.S3, RequestLog: cfg.Log.requestLevel(), SSECOverHTTP: cfg.SSE.COverHTTP,
		AllowActiveObjects: cfg.SandboxActiveObjects != nil && !*cfg.SandboxActiveObjects,
		SOSAPI:             cfg.SOSAPI == nil || *cfg.SOSAPI, Rates: n.Rates})
	n.serveSTS(sealer)
	n.openIdPs(sealer)
	iamh, err := iamapi.New(n.Catalog, sealer, n.Keys, n.Audit)
	if err != nil {
		return fail(err)
	}
	n.S3.Serve("iam", iamh)
	consoleh, err := n.openConsole()
	if err != nil {
		return fail(err)
	}
	n.directorySTS(consoleh)
	n.OSIS = n.openOSIS()
	n.Handler = n.route(n.S3, admin.NewHandler(n.Admin, n.Keys), n.catalogsHandler())
	n.Console = n.consoleRoute(n.S3, consoleh)
	n.exportStores()
	// Root credentials last: a start that fails before this point leaves
	// the root keys as they were, and the replacement is one transaction.
	if n.CreatedRootKey, n.CreatedRootSecret, err = iam.EnsureRoot(ctx, n.Catalog, sealer, cfg.RootAccessKey, cfg.RootSecretKey); err != nil {
		return fail(err)
	}
	n.Keys.Flush()
	n.startJobs()
	return n, nil
}

// HTTPServer returns an HTTP server of the node with its timeouts, so
// that no connection is held by a client that sends nothing: what `serve`
// runs and tests start.
func (n *Node) HTTPServer() *http.Server { return n.server(n.Handler) }

// ConsoleServer is HTTPServer for the console's listener.
func (n *Node) ConsoleServer() *http.Server { return n.server(n.Console) }

func (n *Node) server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: or(n.cfg.HeaderTimeout, DefaultHeaderTimeout),
		IdleTimeout:       or(n.cfg.KeepAliveTimeout, DefaultKeepAliveTimeout),
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

func openCatalog(ctx context.Context, cfg Config, opts ...sqldb.Option) (catalog.Store, error) {
	switch {
	case cfg.Catalog == "":
		return sqlite.Open(ctx, filepath.Join(cfg.DataDir, "catalog.db"), opts...)
	case strings.HasPrefix(cfg.Catalog, "sqlite://"):
		path, err := sqlitePath(cfg.Catalog)
		if err != nil {
			return nil, err
		}
		return sqlite.Open(ctx, path, opts...)
	default:
		st, err := postgres.Open(ctx, cfg.Catalog, cfg.CatalogConns, opts...)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		return st, nil
	}
}

// sqlitePath is the file a sqlite:///path catalog URL names.
func sqlitePath(catalogURL string) (string, error) {
	u, err := url.Parse(catalogURL)
	if err != nil || u.Path == "" {
		return "", fmt.Errorf("catalog: bad sqlite URL %q", catalogURL)
	}
	return u.Host + u.Path, nil
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
	alog := func(ctx context.Context) { n.AccessLog.Run(ctx, or(n.cfg.AccessLogFlush, time.Second)) }
	rates := func(ctx context.Context) { n.Rates.Run(ctx) }
	deliver := accesslog.NewDeliverer(n.Catalog, n.Service, n.cfg.AccessLogInterval, n.cfg.AccessLogObjectRecords)
	runs := []func(context.Context){leased("collector", gc.Run), leased("sweeper", sw.Run), watch, meter, health,
		alog, rates, leased("access-log-delivery", deliver.Run), leased(lifecycle.JobName, n.lifecycleWorker().Run)}
	if rw := n.rewrapJob(); rw != nil {
		runs = append(runs, leased(kms.RewrapJobName, rw.Run))
	}
	if ix := n.catalogIndexer(); ix != nil {
		runs = append(runs, leased(vcsp.JobName, ix.Run))
	}
	runs = append(runs, leased(delivery.JobName, n.notifier.Run))
	runs = append(runs, leased(replicator.JobName, n.Replicator.Run))
	if n.Directories != nil {
		runs = append(runs, leased(directory.JobName, n.Directories.Run))
	}
	prune := jobs.KeyPruner{Keys: n.Catalog, Retention: jobs.ExpiredKeyRetention, Interval: time.Hour}
	runs = append(runs, leased("key-pruner", prune.Run))
	runs = append(runs, leased("temp-cred-pruner", n.tempCredPruner()))
	if n.Audit != nil {
		runs = append(runs, leased("audit-pruner", func(ctx context.Context) { n.Audit.Run(ctx, time.Hour) }))
	}
	for _, run := range runs {
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

// route sends the admin API's, the health checks' and the published
// content libraries' (/catalogs/) paths to them and everything else to
// S3. Path-style buckets of those names would collide, so objects
// refuses the names; on a virtual host the path is a key. The console is not here: it has a listener of its own (consoleRoute), and
// /console/ on this one is S3's, a bucket no one can create.
func (n *Node) route(s3h *s3.Server, adminh, catalogsh http.Handler) http.Handler {
	domains := n.cfg.Domains
	metricsh := n.metricsHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hsts(s3h, w, r)
		switch {
		case virtualHost(r.Host, domains):
		case n.OSIS != nil && strings.HasPrefix(r.URL.Path, osis.Prefix+"/"):
			n.OSIS.ServeHTTP(w, s3h.WithOrigin(n.bodyDeadline(w, r)))
			return
		case strings.HasPrefix(r.URL.Path, admin.Prefix+"/"):
			// Its audit log records the client as S3 sees it.
			adminh.ServeHTTP(w, s3h.WithOrigin(n.bodyDeadline(w, r)))
			return
		case strings.HasPrefix(r.URL.Path, healthPrefix):
			n.health(w, r)
			return
		case catalogsh != nil && strings.HasPrefix(r.URL.Path, vcsp.Prefix):
			catalogsh.ServeHTTP(w, r)
			return
		case r.URL.Path == metricsPath:
			if r.ContentLength != 0 { // as for health checks: no body is read
				w.Header().Set("Connection", "close")
			}
			metricsh.ServeHTTP(w, r)
			return
		}
		s3h.ServeHTTP(w, r)
	})
}

// hstsHeader keeps a browser that reached the node over HTTPS on HTTPS
// for a year.
const hstsHeader = "max-age=31536000"

// hsts sends Strict-Transport-Security on an answer over HTTPS (to the
// node, or through a trusted balancer that ended TLS).
func hsts(s3h *s3.Server, w http.ResponseWriter, r *http.Request) {
	if s3h.Secure(r) {
		w.Header().Set("Strict-Transport-Security", hstsHeader)
	}
}

// bodyDeadline gives an admin request's body (a small JSON document) the
// body idle timeout in all, so that a client that stops sending does not
// hold its connection; the S3 endpoint times its bodies itself.
func (n *Node) bodyDeadline(w http.ResponseWriter, r *http.Request) *http.Request {
	if r.Body == nil || r.Body == http.NoBody {
		return r
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(or(n.cfg.BodyIdleTimeout, DefaultBodyIdleTimeout)))
	r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
	return r
}

type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		// net/http now reads the connection in the background to notice a
		// client that goes away; the deadline would cancel the request.
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
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
