// Package directory connects tenants to their LDAP or Active Directory
// directories: a leased job imports their users and groups on a
// schedule and on demand (as Cloud Director's LDAP sync), and the
// console signs a directory user in by binding as it. A user the
// directory removed or disabled is disabled in the catalog, which every
// node's caches follow (the identity generation): its keys and sessions
// stop.
package directory

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/go-ldap/ldap/v3"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Kinds of directory: they set the defaults of the attributes and
// filters.
const (
	KindLDAP = "ldap" // OpenLDAP and the like (inetOrgPerson, groupOfNames)
	KindAD   = "ad"   // Active Directory
)

// Config is a tenant's directory: how to reach it, where its users and
// groups are, which attributes say what, and which groups give which
// role. The catalog keeps it encoded (Encode); the bind password is
// kept apart, sealed.
type Config struct {
	Kind string `json:"kind"`
	// URL is ldaps://host[:port], or ldap://host[:port] with StartTLS;
	// plain ldap:// only with AllowPlain, which the provider alone sets.
	URL        string `json:"url"`
	StartTLS   bool   `json:"start_tls,omitempty"`
	AllowPlain bool   `json:"allow_plain,omitempty"`
	// CA is the PEM of the certificates that may sign the directory's
	// ("" = the node's system roots).
	CA     string `json:"ca,omitempty"`
	BindDN string `json:"bind_dn"`

	UserBase    string `json:"user_base"`
	UserFilter  string `json:"user_filter,omitempty"`
	GroupBase   string `json:"group_base,omitempty"` // "" = no groups are read
	GroupFilter string `json:"group_filter,omitempty"`

	// Attributes.
	LoginAttribute     string `json:"login_attribute,omitempty"`      // uid; AD sAMAccountName
	IDAttribute        string `json:"id_attribute,omitempty"`         // entryUUID; AD objectGUID
	EmailAttribute     string `json:"email_attribute,omitempty"`      // mail
	DisplayAttribute   string `json:"display_attribute,omitempty"`    // displayName
	MemberAttribute    string `json:"member_attribute,omitempty"`     // a group's members' DNs: member
	MemberOfAttribute  string `json:"member_of_attribute,omitempty"`  // a user's groups' DNs: AD memberOf
	GroupNameAttribute string `json:"group_name_attribute,omitempty"` // cn
	// DisabledAttribute marks a disabled user: for userAccountControl
	// (AD) its bit 2 (ACCOUNTDISABLE); otherwise a value equal to
	// DisabledValue (case aside), or any value when DisabledValue is "".
	// "" = none (AD: userAccountControl).
	DisabledAttribute string `json:"disabled_attribute,omitempty"`
	DisabledValue     string `json:"disabled_value,omitempty"`

	// AdminGroups and UserGroups name groups (by name or DN) whose
	// members get the role admin or user; a user in both is an admin.
	// With UserGroups empty every user the filter finds is imported (as
	// user unless an admin group says admin); otherwise only members of
	// a mapped group are.
	AdminGroups []string `json:"admin_groups,omitempty"`
	UserGroups  []string `json:"user_groups,omitempty"`
	// IAMGroups maps directory groups (by name or DN) to IAM groups of
	// the tenant (made through the IAM API): a sync, and a sign-in, make
	// each user a member of the IAM groups its directory groups map to,
	// and no longer a member of those the mapping names that its groups
	// do not, so the policies of those IAM groups apply to it. IAM groups
	// the mapping does not name are left alone. It admits no one: the
	// admin and user groups decide who is a user of the tenant.
	IAMGroups map[string]string `json:"iam_groups,omitempty"`

	// SyncSeconds is the time between syncs (default an hour, at least
	// a minute); PageSize the paged search's page (default 500);
	// MaxUsers the most users a sync takes (default 10,000: a directory
	// with more fails the sync, which then changes nothing);
	// TimeoutSeconds bounds each connection and operation (default 10).
	SyncSeconds    int `json:"sync_seconds,omitempty"`
	PageSize       int `json:"page_size,omitempty"`
	MaxUsers       int `json:"max_users,omitempty"`
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
}

// Bounds of the settings.
const (
	DefaultSync     = time.Hour
	MinSync         = time.Minute
	DefaultPageSize = 500
	DefaultMaxUsers = 10_000
	MaxMaxUsers     = 1_000_000
	DefaultTimeout  = 10 * time.Second
	MaxTimeout      = 120 * time.Second
	// maxGroupsListed bounds the names of mapped groups in a config.
	maxGroupsListed = 100
)

var attrName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{0,63}$`)

// iamGroupName is IAM's rule for a group's name.
var iamGroupName = regexp.MustCompile(`^[A-Za-z0-9_+=,.@-]{1,128}$`)

// WithDefaults fills what was left out with the kind's defaults.
func (c Config) WithDefaults() Config {
	if c.Kind == "" {
		c.Kind = KindLDAP
	}
	def := func(v *string, ldapv, adv string) {
		if *v == "" {
			*v = ldapv
			if c.Kind == KindAD {
				*v = adv
			}
		}
	}
	def(&c.UserFilter, "(objectClass=inetOrgPerson)", "(&(objectCategory=person)(objectClass=user))")
	def(&c.GroupFilter, "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))", "(objectClass=group)")
	def(&c.LoginAttribute, "uid", "sAMAccountName")
	def(&c.IDAttribute, "entryUUID", "objectGUID")
	def(&c.EmailAttribute, "mail", "mail")
	def(&c.DisplayAttribute, "displayName", "displayName")
	def(&c.MemberAttribute, "member", "member")
	def(&c.MemberOfAttribute, "", "memberOf")
	def(&c.GroupNameAttribute, "cn", "cn")
	def(&c.DisabledAttribute, "", "userAccountControl")
	if c.SyncSeconds == 0 {
		c.SyncSeconds = int(DefaultSync / time.Second)
	}
	if c.PageSize == 0 {
		c.PageSize = DefaultPageSize
	}
	if c.MaxUsers == 0 {
		c.MaxUsers = DefaultMaxUsers
	}
	if c.TimeoutSeconds == 0 {
		c.TimeoutSeconds = int(DefaultTimeout / time.Second)
	}
	return c
}

// Validate says which setting is wrong and why.
func (c Config) Validate() error {
	if c.Kind != KindLDAP && c.Kind != KindAD {
		return fmt.Errorf("kind %q: want %q or %q", c.Kind, KindLDAP, KindAD)
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("url %q: want ldaps://host[:port] or ldap://host[:port]", c.URL)
	}
	switch u.Scheme {
	case "ldaps":
		if c.StartTLS {
			return errors.New("start_tls: ldaps:// is TLS already; StartTLS is for ldap://")
		}
	case "ldap":
		if !c.StartTLS && !c.AllowPlain {
			return errors.New("url: ldap:// sends the bind password in the clear; use ldaps:// or start_tls (plain LDAP only where the provider allows it)")
		}
	default:
		return fmt.Errorf("url %q: want ldaps://host[:port] or ldap://host[:port]", c.URL)
	}
	if c.CA != "" {
		if !x509.NewCertPool().AppendCertsFromPEM([]byte(c.CA)) {
			return errors.New("ca: no PEM certificate in it")
		}
	}
	for name, dn := range map[string]string{"bind_dn": c.BindDN, "user_base": c.UserBase, "group_base": c.GroupBase} {
		if dn == "" && name != "group_base" {
			return fmt.Errorf("%s: required", name)
		}
		if dn != "" {
			if _, err := ldap.ParseDN(dn); err != nil {
				return fmt.Errorf("%s %q: %v", name, dn, err)
			}
		}
	}
	for name, f := range map[string]string{"user_filter": c.UserFilter, "group_filter": c.GroupFilter} {
		if _, err := ldap.CompileFilter(f); err != nil || len(f) > 4096 {
			return fmt.Errorf("%s %q: not an LDAP filter", name, f)
		}
	}
	for name, a := range map[string]string{"login_attribute": c.LoginAttribute, "id_attribute": c.IDAttribute,
		"email_attribute": c.EmailAttribute, "display_attribute": c.DisplayAttribute, "member_attribute": c.MemberAttribute,
		"member_of_attribute": c.MemberOfAttribute, "group_name_attribute": c.GroupNameAttribute, "disabled_attribute": c.DisabledAttribute} {
		if a == "" && (name == "login_attribute" || name == "id_attribute") {
			return fmt.Errorf("%s: required", name)
		}
		if a != "" && !attrName.MatchString(a) {
			return fmt.Errorf("%s %q: not an attribute name", name, a)
		}
	}
	if len(c.AdminGroups)+len(c.UserGroups)+len(c.IAMGroups) > maxGroupsListed {
		return fmt.Errorf("admin_groups, user_groups, iam_groups: at most %d groups", maxGroupsListed)
	}
	for g, ig := range c.IAMGroups {
		if strings.TrimSpace(g) == "" || len(g) > 1024 {
			return fmt.Errorf("iam_groups: directory group %q: empty or too long", g)
		}
		if !iamGroupName.MatchString(ig) {
			return fmt.Errorf("iam_groups: %q is no IAM group name", ig)
		}
	}
	if len(c.IAMGroups) > 0 && c.GroupBase == "" && c.MemberOfAttribute == "" {
		return errors.New("iam_groups: groups are read from group_base or member_of_attribute; set one")
	}
	for _, g := range append(append([]string{}, c.AdminGroups...), c.UserGroups...) {
		if strings.TrimSpace(g) == "" || len(g) > 1024 {
			return fmt.Errorf("group %q: empty or too long", g)
		}
	}
	if (len(c.AdminGroups) > 0 || len(c.UserGroups) > 0) && c.GroupBase == "" && c.MemberOfAttribute == "" {
		return errors.New("admin_groups, user_groups: groups are read from group_base or member_of_attribute; set one")
	}
	switch {
	case c.SyncSeconds < int(MinSync/time.Second):
		return fmt.Errorf("sync_seconds %d: at least %d", c.SyncSeconds, int(MinSync/time.Second))
	case c.PageSize < 1 || c.PageSize > 5000:
		return fmt.Errorf("page_size %d: 1 to 5000", c.PageSize)
	case c.MaxUsers < 1 || c.MaxUsers > MaxMaxUsers:
		return fmt.Errorf("max_users %d: 1 to %d", c.MaxUsers, MaxMaxUsers)
	case c.TimeoutSeconds < 1 || c.TimeoutSeconds > int(MaxTimeout/time.Second):
		return fmt.Errorf("timeout_seconds %d: 1 to %d", c.TimeoutSeconds, int(MaxTimeout/time.Second))
	}
	return nil
}

func (c Config) timeout() time.Duration { return time.Duration(c.TimeoutSeconds) * time.Second }

// SyncInterval is the time between scheduled syncs.
func (c Config) SyncInterval() time.Duration { return time.Duration(c.SyncSeconds) * time.Second }

// Encode is the config as the catalog keeps it.
func (c Config) Encode() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// Decode reads an encoded config, with defaults filled.
func Decode(s string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return Config{}, fmt.Errorf("directory: decode config: %w", err)
	}
	return c.WithDefaults(), nil
}

// Of decodes a catalog record's config.
func Of(d catalog.Directory) (Config, error) { return Decode(d.Config) }

// SecretContext is what a tenant's bind password is sealed with.
func SecretContext(tenant string) string { return "directory:" + tenant }
