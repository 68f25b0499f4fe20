// Package admin is the provider's control plane: tenants, users, access
// keys, application credentials and quotas, as a service that authorizes
// every call (Service), its JSON API under /admin/v1 (Handler) and a
// client for it (Client).
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/idp"
	"github.com/ostiumio/ostium/internal/kms"
)

// DefaultGrace is how long a rotated key keeps working, so that running
// applications can switch to the new one.
const DefaultGrace = 5 * time.Minute

// Error is an admin API error: an HTTP status, a code and a message.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newErr(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

var errDenied = newErr(http.StatusForbidden, "AccessDenied", "Access Denied")

// Tenant, User, Key and Quota are the API's records.
type Tenant struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Status      string `json:"status"`
	CanonicalID string `json:"canonical_id"`
	Platform    string `json:"platform,omitempty"` // "" = the node's default
	// Encryption is the default encryption of new objects the provider
	// set (nil = none: the node's default applies).
	Encryption *TenantEncryption `json:"encryption,omitempty"`
	// StorageClasses is the tenant's own map of storage classes to
	// platforms (nil = the provider's applies).
	StorageClasses map[string]string `json:"storage_classes,omitempty"`
	Created        time.Time         `json:"created"`
}

type User struct {
	Tenant      string    `json:"tenant"`
	Name        string    `json:"name"`
	Role        string    `json:"role"`
	CanonicalID string    `json:"canonical_id"`
	Email       string    `json:"email,omitempty"`
	Created     time.Time `json:"created"`
	// Disabled: a directory's user removed or disabled there.
	Disabled bool `json:"disabled,omitempty"`
}

type Key struct {
	AccessKey string     `json:"access_key"`
	SecretKey string     `json:"secret_key,omitempty"` // only when created
	Tenant    string     `json:"tenant"`
	User      string     `json:"user"`
	Kind      string     `json:"kind"`
	Status    string     `json:"status"`
	Expires   *time.Time `json:"expires,omitempty"`
	Buckets   []string   `json:"buckets,omitempty"`
	ReadOnly  bool       `json:"read_only,omitempty"`
	Created   time.Time  `json:"created"`
}

type Quota struct {
	Tenant     string `json:"tenant"`
	Bucket     string `json:"bucket,omitempty"`
	MaxBytes   int64  `json:"max_bytes"`
	MaxObjects int64  `json:"max_objects"`
	// Rates across the cluster, per second (0 = none): requests, and
	// bytes received and sent.
	RequestsPerSec int64 `json:"requests_per_sec,omitempty"`
	BytesInPerSec  int64 `json:"bytes_in_per_sec,omitempty"`
	BytesOutPerSec int64 `json:"bytes_out_per_sec,omitempty"`
}

// Service carries out admin calls for an identity.
type Service struct {
	cat       catalog.Store
	keys      *iam.Keyring
	sealer    *iam.Sealer
	platforms Platforms
	grace     time.Duration
	audit     *audit.Log // nil: none kept
	rootMu    sync.Mutex
	kms       kms.Manager // nil: no key service (SetKMS)
	explainer Explainer   // nil: no explanations (SetExplainer)
	// meterEvery is how often usage counters reach the catalog
	// (SetMeterInterval; 0: DefaultMeterInterval).
	meterEvery time.Duration
	// plainHTTP are the networks where a replication target may be
	// plain http (SetReplicationPlainHTTP).
	plainHTTP []netip.Prefix
	dir       *directory.Service // nil: no directories (SetDirectories)
	idps      *idp.Service       // nil: no identity providers (SetIdPs)
}

// Platforms are the node's storage platforms (*platform.Set).
type Platforms interface {
	Has(name string) bool
	Default() string
	// Prepare sets up a tenant's namespace on a platform (its platform
	// bucket, in the bucket-per-tenant layout).
	Prepare(ctx context.Context, platform, ns string) error
}

// NewService returns the admin service; keys is flushed after each change
// so that this node applies it at once. Every call through the Handler
// is recorded in log (nil: none).
func NewService(cat catalog.Store, keys *iam.Keyring, sealer *iam.Sealer, platforms Platforms, log *audit.Log) *Service {
	return &Service{cat: cat, keys: keys, sealer: sealer, platforms: platforms, grace: DefaultGrace, audit: log}
}

var (
	tenantName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,39}$`)
	userName   = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,64}$`)
)

// allow checks that id may administer tenant ("" = provider-wide).
func allow(id *iam.Identity, tenant string) error {
	if iam.AuthorizeAdmin(id, tenant) != nil {
		return errDenied
	}
	return nil
}

// done flushes this node's identity cache after a change and maps
// catalog errors to API errors.
func (s *Service) done(err error) error {
	if err == nil {
		s.keys.Flush()
		return nil
	}
	return apiErr(err)
}

func apiErr(err error) error {
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return e
	case errors.Is(err, catalog.ErrNoSuchTenant):
		return newErr(http.StatusNotFound, "NoSuchTenant", "The tenant does not exist")
	case errors.Is(err, catalog.ErrTenantExists):
		return newErr(http.StatusConflict, "TenantAlreadyExists", "A tenant of that name exists")
	case errors.Is(err, catalog.ErrTenantNotEmpty):
		return newErr(http.StatusConflict, "TenantNotEmpty", "The tenant still has buckets; delete them or purge")
	case errors.Is(err, catalog.ErrNoSuchUser):
		return newErr(http.StatusNotFound, "NoSuchUser", "The user does not exist")
	case errors.Is(err, catalog.ErrUserExists):
		return newErr(http.StatusConflict, "UserAlreadyExists", "A user of that name exists in the tenant")
	case errors.Is(err, catalog.ErrEmailExists):
		return newErr(http.StatusConflict, "EmailAlreadyExists", "Another user has that e-mail address")
	case errors.Is(err, catalog.ErrNoSuchAccessKey):
		return newErr(http.StatusNotFound, "NoSuchAccessKey", "The access key does not exist")
	case errors.Is(err, catalog.ErrObjectLocked):
		return errObjectLocked("")
	}
	return fmt.Errorf("admin: %w", err)
}

func tenantOut(t catalog.Tenant) Tenant {
	return Tenant{Name: t.Name, DisplayName: t.DisplayName, Status: t.Status, CanonicalID: t.CanonicalID, Platform: t.Platform,
		Encryption: encryptionOut(t.Encryption), StorageClasses: classesOut(t.StorageClasses), Created: t.CreatedAt}
}

func userOut(u catalog.User) User {
	return User{Tenant: u.Tenant, Name: u.Name, Role: u.Role, CanonicalID: u.CanonicalID, Email: u.Email, Created: u.CreatedAt, Disabled: u.Disabled}
}

func keyOut(k catalog.AccessKey) Key {
	out := Key{AccessKey: k.AccessKey, Tenant: k.Tenant, User: k.User, Kind: k.Kind, Status: k.Status,
		Buckets: k.Buckets, ReadOnly: k.ReadOnly, Created: k.CreatedAt}
	if !k.Expires.IsZero() {
		out.Expires = &k.Expires
		// A rotated key past its grace no longer signs anything; saying
		// "active" of it would mislead whoever reads the list.
		if k.Status == catalog.KeyActive && !k.Expires.After(time.Now()) {
			out.Status = KeyExpired
		}
	}
	return out
}

// KeyExpired is the status shown for a rotated key past its grace; the
// catalog keeps it active-until-expiry, so it is never stored.
const KeyExpired = "expired"

// CreateTenant onboards a tenant whose blobs go to platform ("" = the
// node's default), and prepares its namespace there.
func (s *Service) CreateTenant(ctx context.Context, id *iam.Identity, name, display, platform string) (Tenant, error) {
	if err := allow(id, ""); err != nil {
		return Tenant{}, err
	}
	if !tenantName.MatchString(name) {
		return Tenant{}, newErr(http.StatusBadRequest, "InvalidArgument", "A tenant name is 2 to 40 of a-z, 0-9 and -, starting with a letter or digit")
	}
	if err := s.knownPlatform(platform); err != nil {
		return Tenant{}, err
	}
	t := catalog.Tenant{Name: name, DisplayName: display, Status: catalog.TenantActive,
		CanonicalID: iam.NewCanonicalID(), Platform: platform, CreatedAt: time.Now().UTC()}
	if err := s.done(s.cat.CreateTenant(ctx, t)); err != nil {
		return Tenant{}, err
	}
	s.prepare(ctx, platform, name)
	return tenantOut(t), nil
}

// SetTenantPlatform sends the tenant's new blobs to platform ("" = the
// node's default); what it stored stays where it is, readable.
func (s *Service) SetTenantPlatform(ctx context.Context, id *iam.Identity, name, platform string) (Tenant, error) {
	if err := allow(id, ""); err != nil {
		return Tenant{}, err
	}
	if err := s.knownPlatform(platform); err != nil {
		return Tenant{}, err
	}
	if err := s.done(s.cat.SetTenantPlatform(ctx, name, platform)); err != nil {
		return Tenant{}, err
	}
	s.prepare(ctx, platform, name)
	return s.GetTenant(ctx, id, name)
}

// PlaceBucket sends a bucket's new blobs to platform ("" = its tenant's).
func (s *Service) PlaceBucket(ctx context.Context, id *iam.Identity, bucket, platform string) error {
	if err := allow(id, ""); err != nil {
		return err
	}
	if err := s.knownPlatform(platform); err != nil {
		return err
	}
	b, err := s.cat.GetBucket(ctx, bucket)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return newErr(http.StatusNotFound, "NoSuchBucket", "The bucket does not exist")
	}
	if err != nil {
		return apiErr(err)
	}
	if err := s.done(s.cat.SetBucketSetting(ctx, bucket, catalog.SettingPlatform, platform)); err != nil {
		return err
	}
	if b.Tenant != "" {
		s.prepare(ctx, platform, b.Tenant)
	}
	return nil
}

func (s *Service) knownPlatform(name string) error {
	if name != "" && !s.platforms.Has(name) {
		return newErr(http.StatusBadRequest, "NoSuchPlatform", "The platform is not configured on this node")
	}
	return nil
}

// prepare sets a tenant up on a platform. A platform that is down now
// does it on the tenant's first write, so failure is only logged.
func (s *Service) prepare(ctx context.Context, platform, tenant string) {
	if platform == "" {
		platform = s.platforms.Default()
	}
	if err := s.platforms.Prepare(ctx, platform, tenant); err != nil {
		slog.Warn("prepare tenant on platform", "tenant", tenant, "platform", platform, "err", err)
	}
}

func (s *Service) ListTenants(ctx context.Context, id *iam.Identity) ([]Tenant, error) {
	if err := allow(id, ""); err != nil {
		return nil, err
	}
	ts, err := s.cat.ListTenants(ctx)
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]Tenant, len(ts))
	for i, t := range ts {
		out[i] = tenantOut(t)
	}
	return out, nil
}

func (s *Service) GetTenant(ctx context.Context, id *iam.Identity, name string) (Tenant, error) {
	if err := allow(id, name); err != nil {
		return Tenant{}, err
	}
	t, err := s.cat.GetTenant(ctx, name)
	return tenantOut(t), apiErr(err)
}

// SetSuspended suspends or resumes a tenant: all of its access stops (or
// resumes) at once, on every node within a second.
func (s *Service) SetSuspended(ctx context.Context, id *iam.Identity, name string, suspended bool) (Tenant, error) {
	if err := allow(id, ""); err != nil {
		return Tenant{}, err
	}
	status := catalog.TenantActive
	if suspended {
		status = catalog.TenantSuspended
	}
	if err := s.done(s.cat.SetTenantStatus(ctx, name, status)); err != nil {
		return Tenant{}, err
	}
	return s.GetTenant(ctx, id, name)
}

// errObjectLocked refuses to purge a bucket holding a version under
// legal hold or retention in force.
func errObjectLocked(bucket string) error {
	where := "A bucket"
	if bucket != "" {
		where = "Bucket " + bucket
	}
	return newErr(http.StatusConflict, "ObjectLocked", "%s holds object versions under object lock (legal hold or retention in force): "+
		"they cannot be deleted until their retention ends and their legal holds are removed; suspend the tenant meanwhile", where)
}

// DeleteTenant deletes a tenant; with purge, its buckets and their data go
// first (the collector then deletes the blobs). A tenant whose buckets
// hold locked versions is refused (ObjectLocked, 409) and left as it was.
func (s *Service) DeleteTenant(ctx context.Context, id *iam.Identity, name string, purge bool) error {
	if err := allow(id, ""); err != nil {
		return err
	}
	if _, err := s.cat.GetTenant(ctx, name); err != nil {
		return apiErr(err)
	}
	if purge {
		bs, err := s.cat.ListBuckets(ctx, catalog.BucketFilter{Tenant: name})
		if err != nil {
			return apiErr(err)
		}
		// Object lock binds the provider too: a tenant holding a locked
		// version is refused before anything is suspended or deleted
		// (PurgeBucket refuses it again, in case one is locked meanwhile).
		for _, b := range bs {
			locked, err := s.cat.HoldsLocked(ctx, b.Name, time.Now())
			if err != nil {
				return apiErr(err)
			}
			if locked {
				return errObjectLocked(b.Name)
			}
		}
		// Suspend first, so that nothing is written while buckets go.
		if err := s.done(s.cat.SetTenantStatus(ctx, name, catalog.TenantSuspended)); err != nil {
			return err
		}
		// Then crypto-shred: from here, whatever of its data a purge cut
		// short (or a platform, or a backup) keeps is unreadable.
		if err := s.destroyTenantKeys(ctx, name); err != nil {
			return err
		}
		for _, b := range bs {
			if err := s.cat.PurgeBucket(ctx, b.Name); err != nil && !errors.Is(err, catalog.ErrNoSuchBucket) {
				return apiErr(err)
			}
		}
	}
	if err := s.done(s.cat.DeleteTenant(ctx, name)); err != nil {
		return err
	}
	// A tenant made again under this name is a new one: it gets none of
	// these keys.
	return s.destroyTenantKeys(ctx, name)
}

// CreateUser adds a user; email (optional, unique) lets ACLs grant to it
// by e-mail address. Only the provider's root gives addresses: an
// address is unique over every tenant, so a tenant admin giving one could
// claim another tenant's address, or learn from the refusal that it is
// in use elsewhere; a tenant admin who gives one is refused before the
// address is looked at.
func (s *Service) CreateUser(ctx context.Context, id *iam.Identity, tenant, name, role, email string) (User, error) {
	if err := allow(id, tenant); err != nil {
		return User{}, err
	}
	if email != "" && !id.Root {
		return User{}, errDenied
	}
	if role == "" {
		role = catalog.RoleUser
	}
	if role != catalog.RoleUser && role != catalog.RoleAdmin {
		return User{}, newErr(http.StatusBadRequest, "InvalidArgument", "A role is admin or user")
	}
	if !userName.MatchString(name) {
		return User{}, newErr(http.StatusBadRequest, "InvalidArgument", "A user name is 1 to 64 of A-Z, a-z, 0-9 and _+=,.@-")
	}
	email, err := normalEmail(email)
	if err != nil {
		return User{}, err
	}
	u := catalog.User{Tenant: tenant, Name: name, Role: role, CanonicalID: iam.NewCanonicalID(), Email: email, CreatedAt: time.Now().UTC()}
	return userOut(u), s.done(s.cat.CreateUser(ctx, u))
}

// normalEmail checks an e-mail address and lower-cases it ("" = none).
func normalEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email != "" && (len(email) > 254 || strings.Count(email, "@") != 1 || strings.HasPrefix(email, "@") || strings.HasSuffix(email, "@")) {
		return "", newErr(http.StatusBadRequest, "InvalidArgument", "An e-mail address is local@domain")
	}
	return email, nil
}

// SetUserEmail gives a user another e-mail address ("" = none). The
// root's alone, as at creation (see CreateUser). ACL grants already made
// to the old address stay with the user: they were resolved to its
// canonical id when made.
func (s *Service) SetUserEmail(ctx context.Context, id *iam.Identity, tenant, name, email string) (User, error) {
	if err := allow(id, ""); err != nil {
		return User{}, err
	}
	email, err := normalEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := s.done(s.cat.SetUserEmail(ctx, tenant, name, email)); err != nil {
		return User{}, err
	}
	return s.GetUser(ctx, id, tenant, name)
}

func (s *Service) ListUsers(ctx context.Context, id *iam.Identity, tenant string) ([]User, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
		return nil, apiErr(err)
	}
	us, err := s.cat.ListUsers(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]User, len(us))
	for i, u := range us {
		out[i] = userOut(u)
	}
	return out, nil
}

func (s *Service) GetUser(ctx context.Context, id *iam.Identity, tenant, name string) (User, error) {
	if err := allow(id, tenant); err != nil {
		return User{}, err
	}
	u, err := s.cat.GetUser(ctx, tenant, name)
	return userOut(u), apiErr(err)
}

func (s *Service) DeleteUser(ctx context.Context, id *iam.Identity, tenant, name string) error {
	if err := allow(id, tenant); err != nil {
		return err
	}
	return s.done(s.cat.DeleteUser(ctx, tenant, name))
}

func (s *Service) SetQuota(ctx context.Context, id *iam.Identity, q Quota) (Quota, error) {
	if err := allow(id, ""); err != nil { // a tenant does not set its own quota
		return Quota{}, err
	}
	if q.MaxBytes < 0 || q.MaxObjects < 0 || q.RequestsPerSec < 0 || q.BytesInPerSec < 0 || q.BytesOutPerSec < 0 {
		return Quota{}, newErr(http.StatusBadRequest, "InvalidArgument", "Quota limits are zero (none) or positive")
	}
	if q.Bucket != "" {
		if b, err := s.cat.GetBucket(ctx, q.Bucket); err != nil || b.Tenant != q.Tenant {
			return Quota{}, newErr(http.StatusNotFound, "NoSuchBucket", "The tenant has no bucket %s", q.Bucket)
		}
	}
	return q, s.done(s.cat.SetQuota(ctx, catalog.Quota{Tenant: q.Tenant, Bucket: q.Bucket, MaxBytes: q.MaxBytes, MaxObjects: q.MaxObjects,
		RequestsPerSec: q.RequestsPerSec, BytesInPerSec: q.BytesInPerSec, BytesOutPerSec: q.BytesOutPerSec}))
}

func (s *Service) ListQuotas(ctx context.Context, id *iam.Identity, tenant string) ([]Quota, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	qs, err := s.cat.ListQuotas(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]Quota, len(qs))
	for i, q := range qs {
		out[i] = Quota{Tenant: q.Tenant, Bucket: q.Bucket, MaxBytes: q.MaxBytes, MaxObjects: q.MaxObjects,
			RequestsPerSec: q.RequestsPerSec, BytesInPerSec: q.BytesInPerSec, BytesOutPerSec: q.BytesOutPerSec}
	}
	return out, nil
}
