package directory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-ldap/ldap/v3"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Errors of the service.
var (
	// ErrInvalidCredentials: the sign-in is refused, whatever is wrong
	// (no such tenant, directory or user, a wrong password, a disabled
	// user): the answer tells a guesser nothing.
	ErrInvalidCredentials = errors.New("directory: invalid credentials")
	// ErrBusy: too many sign-ins wait for directories on this node.
	ErrBusy = errors.New("directory: too many sign-ins at once")
	// ErrSyncRunning: another sync of the tenant's directory runs.
	ErrSyncRunning = errors.New("directory: a sync of this directory is running")
)

// Store is what the service needs of the catalog.
type Store interface {
	catalog.Directories
	catalog.Leases
	GetUser(ctx context.Context, tenant, name string) (catalog.User, error)
}

// Service syncs tenants' directories and signs their users in.
type Service struct {
	cat Store
	// iam keeps the tenant's IAM groups (nil: the catalog keeps none,
	// and iam_groups maps nothing).
	iam    catalog.IAM
	sealer *iam.Sealer
	// binds bounds the sign-ins waiting on directories at once on this
	// node: a slow directory holds its slots for its timeout, no more.
	binds chan struct{}
	// Now is the clock (tests may set it before use).
	Now func() time.Time
	// Audit records what syncs and sign-ins change of users (nil: not
	// recorded): directory:CreateUser, directory:UpdateUser,
	// directory:DisableUser, with the tenant and user as target.
	Audit Auditor
}

// Auditor keeps the audit log (*audit.Log).
type Auditor interface {
	Record(ctx context.Context, id *iam.Identity, e catalog.AuditEntry)
}

// record audits a change to a user.
func (s *Service) record(ctx context.Context, action, tenant, user string) {
	if s.Audit != nil {
		s.Audit.Record(ctx, nil, catalog.AuditEntry{Action: "directory:" + action, Target: "tenants/" + tenant + "/users/" + user,
			Tenant: tenant, Outcome: "ok", Status: 200})
	}
}

// Bounds of the service.
const (
	maxSignIns = 8
	// signInWait is how long a sign-in waits for a slot.
	signInWait = 2 * time.Second
	// maxUserGroups bounds the groups read for one user at sign-in.
	maxUserGroups = 1000
	// syncLeaseTTL bounds how long a sync of one directory may run (and
	// how long a node that died in one keeps others from syncing it).
	syncLeaseTTL = 10 * time.Minute
	// maxConflicts bounds the conflicts a result lists.
	maxConflicts = 20
	// pollInterval is how often the job looks for directories due.
	pollInterval = 30 * time.Second
	// JobName is the sync job's lease.
	JobName = "directory-sync"
)

// New returns the service over store (which must keep directories).
func New(store catalog.Store, sealer *iam.Sealer) (*Service, error) {
	s, ok := store.(Store)
	if !ok {
		return nil, fmt.Errorf("directory: catalog %T keeps no directories", store)
	}
	ia, _ := store.(catalog.IAM)
	return &Service{cat: s, iam: ia, sealer: sealer, binds: make(chan struct{}, maxSignIns), Now: time.Now}, nil
}

// userName is the catalog's rule for user names; a login that breaks it
// is not imported.
var userName = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,64}$`)

// Configure stores a tenant's directory. An empty password keeps the
// one stored (ErrNoSuchDirectory when there is none to keep).
func (s *Service) Configure(ctx context.Context, tenant string, cfg Config, password string) (Config, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return Config{}, &ConfigError{err}
	}
	now := s.Now().UTC()
	d := catalog.Directory{Tenant: tenant, Config: cfg.Encode(), Created: now, Updated: now}
	if password == "" {
		old, err := s.cat.GetDirectory(ctx, tenant)
		if err != nil {
			if errors.Is(err, catalog.ErrNoSuchDirectory) {
				return Config{}, &ConfigError{errors.New("bind_password: required")}
			}
			return Config{}, err
		}
		d.SecretSealed = old.SecretSealed
	} else {
		d.SecretSealed = s.sealer.Seal(password, SecretContext(tenant))
	}
	return cfg, s.cat.PutDirectory(ctx, d)
}

// ConfigError is a config that does not validate.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "directory: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// load reads a tenant's directory, its config and bind password.
func (s *Service) load(ctx context.Context, tenant string) (catalog.Directory, Config, string, error) {
	d, err := s.cat.GetDirectory(ctx, tenant)
	if err != nil {
		return d, Config{}, "", err
	}
	cfg, err := Of(d)
	if err != nil {
		return d, Config{}, "", err
	}
	password, err := s.sealer.Open(d.SecretSealed, SecretContext(tenant))
	if err != nil {
		return d, Config{}, "", fmt.Errorf("directory: open the bind password of %s: %w", tenant, err)
	}
	return d, cfg, password, nil
}

// Result is what a sync did.
type Result struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	// Users is how many users the directory gave; Imported how many of
	// them are enabled and let in by a mapped group (or none required).
	Users    int `json:"users"`
	Imported int `json:"imported"`
	Groups   int `json:"groups"`
	Created  int `json:"created"`
	Updated  int `json:"updated"`
	// Disabled counts the users disabled by this sync: removed, disabled
	// or out of every mapped group in the directory.
	Disabled int `json:"disabled"`
	// Conflicts names users not imported (a user of their name is not
	// theirs, or the login is no valid user name), at most 20.
	Conflicts []string `json:"conflicts,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// DecodeResult reads a recorded result ("" = none).
func DecodeResult(s string) (Result, error) {
	var r Result
	if s == "" {
		return r, nil
	}
	err := json.Unmarshal([]byte(s), &r)
	return r, err
}

func (r *Result) conflict(login, why string) {
	if r != nil && len(r.Conflicts) < maxConflicts {
		r.Conflicts = append(r.Conflicts, login+": "+why)
	}
}

// Sync imports a tenant's directory now: users and groups, roles by
// group, and users the directory no longer gives (or gives disabled)
// disabled. One sync of a directory runs at a time across the nodes
// (ErrSyncRunning). A sync that fails (the directory unreachable, more
// users than max_users) disables no one. The result is recorded either
// way.
func (s *Service) Sync(ctx context.Context, tenant string) (Result, error) {
	_, cfg, password, err := s.load(ctx, tenant)
	if err != nil {
		return Result{}, err
	}
	lease, holder := JobName+"/"+tenant, randomHolder()
	ok, err := s.cat.AcquireLease(ctx, lease, holder, syncLeaseTTL)
	if err != nil {
		return Result{}, fmt.Errorf("directory: sync lease: %w", err)
	}
	if !ok {
		return Result{}, ErrSyncRunning
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.cat.ReleaseLease(rctx, lease, holder)
	}()
	res := Result{Started: s.Now().UTC()}
	sctx, cancel := context.WithTimeout(ctx, syncLeaseTTL-time.Minute)
	err = s.sync(sctx, tenant, cfg, password, &res)
	cancel()
	res.Ended = s.Now().UTC()
	if err != nil {
		res.Error = err.Error()
	}
	b, _ := json.Marshal(res)
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := s.cat.RecordDirectorySync(rctx, tenant, res.Ended, string(b)); rerr != nil && !errors.Is(rerr, catalog.ErrNoSuchDirectory) {
		slog.Warn("directory: record a sync", "tenant", tenant, "err", rerr)
	}
	return res, err
}

func randomHolder() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Service) sync(ctx context.Context, tenant string, cfg Config, password string, res *Result) error {
	c, err := dial(ctx, cfg, password)
	if err != nil {
		return err
	}
	defer c.Close()
	var users []entry
	err = c.search(cfg.UserBase, cfg.UserFilter, c.userAttrs(), cfg.MaxUsers, func(e *ldap.Entry) error {
		users = append(users, c.entryOf(e))
		return nil
	})
	if errors.Is(err, ErrTooMany) {
		return fmt.Errorf("directory: the user filter finds more than max_users (%d) users; nothing was changed", cfg.MaxUsers)
	}
	if err != nil {
		return err
	}
	var groups []group
	if cfg.GroupBase != "" {
		err = c.search(cfg.GroupBase, cfg.GroupFilter, c.groupAttrs(), cfg.MaxUsers, func(e *ldap.Entry) error {
			groups = append(groups, c.groupOf(e))
			return nil
		})
		if errors.Is(err, ErrTooMany) {
			return fmt.Errorf("directory: the group filter finds more than max_users (%d) groups; nothing was changed", cfg.MaxUsers)
		}
		if err != nil {
			return err
		}
	}
	res.Users, res.Groups = len(users), len(groups)
	byMember := map[string][]int{} // a member's DN (normalised) -> its groups
	byDN := map[string]int{}
	for i, g := range groups {
		byDN[normDN(g.DN)] = i
		for _, m := range g.Members {
			byMember[normDN(m)] = append(byMember[normDN(m)], i)
		}
	}
	members := make([]int, len(groups))
	seen := map[string]bool{}
	for _, u := range users {
		if u.ExternalID == "" || u.Login == "" {
			res.conflict(u.DN, "no "+cfg.IDAttribute+" or "+cfg.LoginAttribute)
			continue
		}
		gs := userGroups(u, groups, byMember[normDN(u.DN)], byDN)
		role := roleOf(cfg, gs)
		if role == "" || u.Disabled {
			// In no mapped group, or disabled: not a user of the tenant
			// (disabled below if it was one).
			continue
		}
		for _, g := range gs {
			if i, ok := byDN[normDN(g.DN)]; ok {
				members[i]++
			}
		}
		res.Imported++
		seen[u.ExternalID] = true
		switch created, changed, err := s.apply(ctx, tenant, cfg, u, role, gs, res); {
		case errors.Is(err, catalog.ErrUserExists):
			res.conflict(u.Login, "a user of that name exists and is not this directory's")
		case errors.Is(err, errBadName):
			res.conflict(u.Login, "not a valid user name")
		case err != nil:
			return err
		case created:
			res.Created++
		case changed:
			res.Updated++
		}
	}
	links, err := s.cat.DirectoryUsers(ctx, tenant)
	if err != nil {
		return err
	}
	for _, l := range links {
		if seen[l.ExternalID] {
			continue
		}
		// Gone, disabled or out of every mapped group: disabled (not
		// deleted: it may own buckets, and may come back).
		n, err := s.disable(ctx, tenant, l.User)
		if err != nil {
			return err
		}
		res.Disabled += n
	}
	out := make([]catalog.DirectoryGroup, 0, len(groups))
	for i, g := range groups {
		out = append(out, catalog.DirectoryGroup{Tenant: tenant, ExternalID: g.ExternalID, Name: g.Name, DN: clean(g.DN),
			Role: roleOf(cfg, []groupRef{{g.Name, g.DN}}), Members: members[i]})
	}
	return s.cat.ReplaceDirectoryGroups(ctx, tenant, out)
}

// disable disables a user unless it is already: 1 if it did.
func (s *Service) disable(ctx context.Context, tenant, user string) (int, error) {
	u, err := s.cat.GetUser(ctx, tenant, user)
	if errors.Is(err, catalog.ErrNoSuchUser) || err == nil && u.Disabled {
		return 0, nil
	}
	if err == nil {
		err = s.cat.SetUserDisabled(ctx, tenant, user, true)
	}
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s.record(ctx, "DisableUser", tenant, user)
	return 1, nil
}

var errBadName = errors.New("directory: login is not a valid user name")

// apply imports one directory user: created (as login) or brought up to
// date. A user the directory gives disabled is not created.
func (s *Service) apply(ctx context.Context, tenant string, cfg Config, u entry, role string, gs []groupRef, res *Result) (created, changed bool, err error) {
	if !userName.MatchString(u.Login) {
		return false, false, errBadName
	}
	if u.Disabled {
		if _, err := s.cat.DirectoryUser(ctx, tenant, u.ExternalID); errors.Is(err, catalog.ErrNoSuchUser) {
			return false, false, nil
		}
	}
	var names []string
	for _, g := range gs {
		if g.Name != "" && !strings.ContainsRune(g.Name, '\n') {
			names = append(names, g.Name)
		}
	}
	now := s.Now().UTC()
	id := iam.NewCanonicalID()
	got, changed, err := s.cat.ImportDirectoryUser(ctx,
		catalog.DirectoryUser{Tenant: tenant, User: u.Login, ExternalID: u.ExternalID, Login: u.Login, DN: clean(u.DN),
			DisplayName: u.Display, Groups: names, Synced: now},
		catalog.User{Tenant: tenant, Name: u.Login, Role: role, CanonicalID: id, Email: u.Email, CreatedAt: now, Disabled: u.Disabled})
	if err != nil {
		return false, false, err
	}
	switch {
	case got.CanonicalID == id:
		s.record(ctx, "CreateUser", tenant, got.Name)
	case changed:
		s.record(ctx, "UpdateUser", tenant, got.Name)
	}
	if err := s.applyIAMGroups(ctx, tenant, cfg, got.Name, gs, res); err != nil {
		return false, false, err
	}
	return got.CanonicalID == id, changed, nil
}

// applyIAMGroups makes user a member of the IAM groups its directory
// groups map to (cfg.IAMGroups), and of no other group the mapping
// names. A mapped IAM group that does not exist is a conflict of the
// sync (res), not its failure; so is a user already in the most groups
// IAM allows.
func (s *Service) applyIAMGroups(ctx context.Context, tenant string, cfg Config, user string, gs []groupRef, res *Result) error {
	if len(cfg.IAMGroups) == 0 {
		return nil
	}
	if s.iam == nil {
		if res != nil {
			res.conflict(user, "iam_groups: this catalog keeps no IAM groups")
		}
		return nil
	}
	changes, err := iam.MapGroups(ctx, s.iam, tenant, user, cfg.IAMGroups, func(dg string) bool {
		return slices.ContainsFunc(gs, func(g groupRef) bool { return strings.EqualFold(dg, g.Name) || normDN(dg) == normDN(g.DN) })
	})
	for _, c := range changes {
		switch {
		case errors.Is(c.Err, catalog.ErrNoSuchEntity):
			res.conflict(user, "IAM group "+c.Group+" does not exist")
		case errors.Is(c.Err, catalog.ErrLimitExceeded):
			res.conflict(user, "in too many IAM groups to join "+c.Group)
		case c.Added:
			s.record(ctx, "AddUserToGroup", tenant, user)
		default:
			s.record(ctx, "RemoveUserFromGroup", tenant, user)
		}
	}
	if err != nil {
		return fmt.Errorf("directory: %w", err)
	}
	return nil
}

// groupRef names a group a user is in.
type groupRef struct{ Name, DN string }

// userGroups are the groups a user is in: those listing it as a member,
// and those its memberOf attribute names.
func userGroups(u entry, groups []group, idx []int, byDN map[string]int) []groupRef {
	var out []groupRef
	have := map[string]bool{}
	add := func(name, dn string) {
		if k := normDN(dn); !have[k] {
			have[k] = true
			out = append(out, groupRef{name, dn})
		}
	}
	for _, i := range idx {
		add(groups[i].Name, groups[i].DN)
	}
	for _, dn := range u.MemberOf {
		if i, ok := byDN[normDN(dn)]; ok {
			add(groups[i].Name, groups[i].DN)
		} else {
			add(rdnValue(dn), dn)
		}
	}
	return out
}

// rdnValue is the value of a DN's first RDN (a group's name when only
// its DN is known).
func rdnValue(dn string) string {
	if p, err := ldap.ParseDN(dn); err == nil && len(p.RDNs) > 0 && len(p.RDNs[0].Attributes) > 0 {
		return p.RDNs[0].Attributes[0].Value
	}
	return ""
}

// roleOf is the role a user in gs gets: admin if a group of AdminGroups
// is among them, else user if one of UserGroups is (or UserGroups is
// empty), else none ("": not a user of the tenant).
func roleOf(cfg Config, gs []groupRef) string {
	in := func(list []string) bool {
		for _, want := range list {
			for _, g := range gs {
				if strings.EqualFold(want, g.Name) || normDN(want) == normDN(g.DN) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case in(cfg.AdminGroups):
		return catalog.RoleAdmin
	case len(cfg.UserGroups) == 0 || in(cfg.UserGroups):
		return catalog.RoleUser
	}
	return ""
}

// SignIn signs a directory user of tenant in by binding as it with
// password: found by its login attribute (the login escaped: no filter
// injection), then bound as itself; the catalog never holds its
// password. A user signing in for the first time is imported then. A
// user the directory gives disabled, out of every mapped group, or no
// longer at all is disabled in the catalog at once, and refused.
// ErrInvalidCredentials for any refusal; other errors are the
// directory's (unreachable, timed out).
func (s *Service) SignIn(ctx context.Context, tenant, login, password string) (catalog.User, error) {
	// No login name has control characters or broken UTF-8 (which the
	// catalog could not even look up).
	if login == "" || password == "" || len(login) > 256 || len(password) > 1024 ||
		!utf8.ValidString(login) || strings.ContainsFunc(login, unicode.IsControl) {
		return catalog.User{}, ErrInvalidCredentials
	}
	t := time.NewTimer(signInWait)
	defer t.Stop()
	select {
	case s.binds <- struct{}{}:
		defer func() { <-s.binds }()
	case <-t.C:
		return catalog.User{}, ErrBusy
	case <-ctx.Done():
		return catalog.User{}, ctx.Err()
	}
	_, cfg, secret, err := s.load(ctx, tenant)
	if errors.Is(err, catalog.ErrNoSuchDirectory) {
		return catalog.User{}, ErrInvalidCredentials
	}
	if err != nil {
		return catalog.User{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*cfg.timeout())
	defer cancel()
	c, err := dial(ctx, cfg, secret)
	if err != nil {
		return catalog.User{}, err
	}
	defer c.Close()
	var found []entry
	err = c.search(cfg.UserBase, and(cfg.UserFilter, "("+cfg.LoginAttribute+"="+ldap.EscapeFilter(login)+")"), c.userAttrs(), 1,
		func(e *ldap.Entry) error { found = append(found, c.entryOf(e)); return nil })
	if errors.Is(err, ErrTooMany) {
		return catalog.User{}, ErrInvalidCredentials // ambiguous: no one
	}
	if err != nil {
		return catalog.User{}, err
	}
	if len(found) == 0 {
		if err := s.gone(ctx, c, tenant, login); err != nil {
			return catalog.User{}, err
		}
		return catalog.User{}, ErrInvalidCredentials
	}
	u := found[0]
	gs, err := c.groupsOf(u)
	if err != nil {
		return catalog.User{}, err
	}
	role := roleOf(cfg, gs)
	if u.Disabled || role == "" || u.ExternalID == "" {
		if err := s.cutOff(ctx, tenant, u.ExternalID); err != nil {
			return catalog.User{}, err
		}
		return catalog.User{}, ErrInvalidCredentials
	}
	if err := c.Bind(u.DN, password); err != nil {
		if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
			return catalog.User{}, ErrInvalidCredentials
		}
		return catalog.User{}, fmt.Errorf("directory: bind as %s: %w", u.DN, err)
	}
	if _, _, err := s.apply(ctx, tenant, cfg, u, role, gs, nil); err != nil {
		if errors.Is(err, catalog.ErrUserExists) || errors.Is(err, errBadName) {
			return catalog.User{}, ErrInvalidCredentials
		}
		return catalog.User{}, err
	}
	l, err := s.cat.DirectoryUser(ctx, tenant, u.ExternalID)
	if err != nil {
		return catalog.User{}, err
	}
	return catalog.User{Tenant: tenant, Name: l.User}, nil
}

// groupsOf reads the groups a user is in: those of the group base
// listing it as a member, and those its memberOf names.
func (c *conn) groupsOf(u entry) ([]groupRef, error) {
	var groups []group
	if c.cfg.GroupBase != "" {
		err := c.search(c.cfg.GroupBase, and(c.cfg.GroupFilter, "("+c.cfg.MemberAttribute+"="+ldap.EscapeFilter(u.DN)+")"),
			c.groupAttrs()[:2], maxUserGroups, func(e *ldap.Entry) error { groups = append(groups, c.groupOf(e)); return nil })
		if err != nil && !errors.Is(err, ErrTooMany) {
			return nil, err
		}
	}
	idx := make([]int, len(groups))
	byDN := map[string]int{}
	for i, g := range groups {
		idx[i] = i
		byDN[normDN(g.DN)] = i
	}
	return userGroups(u, groups, idx, byDN), nil
}

// gone disables the user that last signed in as login when the
// directory no longer has its entry (by its id: a user renamed since
// keeps its rights) or has it disabled.
func (s *Service) gone(ctx context.Context, c *conn, tenant, login string) error {
	l, err := s.cat.DirectoryUserByLogin(ctx, tenant, login)
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return nil
	}
	if err != nil {
		return err
	}
	var found []entry
	err = c.search(c.cfg.UserBase, and(c.cfg.UserFilter, idFilter(c.cfg, l.ExternalID)), c.userAttrs(), 1,
		func(e *ldap.Entry) error { found = append(found, c.entryOf(e)); return nil })
	if err != nil && !errors.Is(err, ErrTooMany) {
		return err
	}
	if len(found) == 0 || found[0].Disabled {
		_, err = s.disable(ctx, tenant, l.User)
	}
	return err
}

// cutOff disables the user linked to externalID, if any.
func (s *Service) cutOff(ctx context.Context, tenant, externalID string) error {
	if externalID == "" {
		return nil
	}
	l, err := s.cat.DirectoryUser(ctx, tenant, externalID)
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.disable(ctx, tenant, l.User)
	return err
}

// Run syncs every directory whose last sync is older than its interval,
// looking every pollInterval until ctx ends: the leased job.
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		s.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce syncs the directories that are due, one after another.
func (s *Service) RunOnce(ctx context.Context) {
	ds, err := s.cat.ListDirectories(ctx)
	if err != nil {
		if ctx.Err() == nil {
			slog.Warn("directory sync: list directories", "err", err)
		}
		return
	}
	for _, d := range ds {
		cfg, err := Of(d)
		if err != nil {
			slog.Warn("directory sync", "tenant", d.Tenant, "err", err)
			continue
		}
		if !d.LastSync.IsZero() && s.Now().Before(d.LastSync.Add(cfg.SyncInterval())) {
			continue
		}
		res, err := s.Sync(ctx, d.Tenant)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrSyncRunning):
		case err != nil:
			slog.Warn("directory sync failed", "tenant", d.Tenant, "err", err)
		default:
			slog.Info("directory synced", "tenant", d.Tenant, "users", res.Imported, "created", res.Created,
				"updated", res.Updated, "disabled", res.Disabled, "conflicts", len(res.Conflicts))
		}
	}
}
