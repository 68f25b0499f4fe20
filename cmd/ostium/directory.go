package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/directory"
)

// directoryFlags are the flags of `ostium admin directory put`.
type directoryFlags struct {
	cfg                   directory.Config
	caFile, passwordFile  string
	adminGroups, userGrps listFlag
	iamGroups             listFlag
	sync, timeout         time.Duration
}

// The directory commands: a tenant's LDAP or Active Directory.
func init() {
	adminGroups["directory"] = "a tenant's LDAP or Active Directory directory: its users, groups and roles, synced"
	adminCmds["directory put"] = adminCmd{args: []string{"TENANT"},
		short: "connect the tenant to its directory, or change the connection (the bind password is read from a file, or - for standard input)",
		example: "  ostium admin directory put acme --url ldaps://ldap.acme.example --ca-file acme-ca.pem \\\n" +
			"      --bind-dn cn=ostium,ou=services,dc=acme,dc=example --bind-password-file - \\\n" +
			"      --user-base ou=people,dc=acme,dc=example --group-base ou=groups,dc=acme,dc=example \\\n" +
			"      --admin-groups storage-admins --user-groups storage-users\n" +
			"  ostium admin directory put acme --kind ad --url ldaps://dc1.acme.example --bind-dn 'CN=ostium,CN=Users,DC=acme,DC=example' \\\n" +
			"      --bind-password-file ad.pass --user-base 'CN=Users,DC=acme,DC=example' --admin-groups 'Storage Admins'",
		flags: func(fs *pflag.FlagSet, f *adminFlags) {
			d := &f.dir
			fs.StringVar(&d.cfg.Kind, "kind", directory.KindLDAP, "ldap or ad (Active Directory): sets the default filters and attributes")
			fs.StringVar(&d.cfg.URL, "url", "", "ldaps://host[:port], or ldap://host[:port] with --start-tls")
			fs.BoolVar(&d.cfg.StartTLS, "start-tls", false, "upgrade ldap:// with StartTLS")
			fs.BoolVar(&d.cfg.AllowPlain, "allow-plain", false, "plain ldap:// without TLS (the provider only)")
			fs.StringVar(&d.caFile, "ca-file", "", "PEM file of the CA certificates that sign the directory's (default: the system's)")
			fs.StringVar(&d.cfg.BindDN, "bind-dn", "", "the account the nodes bind as to search")
			fs.StringVar(&d.passwordFile, "bind-password-file", "", "file holding its password, - for standard input (default: keep the stored one)")
			fs.StringVar(&d.cfg.UserBase, "user-base", "", "where users are searched")
			fs.StringVar(&d.cfg.UserFilter, "user-filter", "", "which entries are users (default by kind)")
			fs.StringVar(&d.cfg.GroupBase, "group-base", "", "where groups are searched (default: none)")
			fs.StringVar(&d.cfg.GroupFilter, "group-filter", "", "which entries are groups (default by kind)")
			fs.StringVar(&d.cfg.LoginAttribute, "login-attribute", "", "the users' login names (uid; AD sAMAccountName)")
			fs.StringVar(&d.cfg.IDAttribute, "id-attribute", "", "the entries' stable ids (entryUUID; AD objectGUID)")
			fs.StringVar(&d.cfg.EmailAttribute, "email-attribute", "", "e-mail addresses (mail)")
			fs.StringVar(&d.cfg.DisplayAttribute, "display-attribute", "", "display names (displayName)")
			fs.StringVar(&d.cfg.MemberAttribute, "member-attribute", "", "a group's members' DNs (member)")
			fs.StringVar(&d.cfg.MemberOfAttribute, "member-of-attribute", "", "a user's groups' DNs (AD memberOf)")
			fs.StringVar(&d.cfg.DisabledAttribute, "disabled-attribute", "", "marks disabled users (AD userAccountControl, bit 2)")
			fs.StringVar(&d.cfg.DisabledValue, "disabled-value", "", "the disabled attribute's value that disables (default: any value)")
			fs.Var(&d.adminGroups, "admin-groups", "groups (names or DNs, comma-separated) whose members are the tenant's admins")
			fs.Var(&d.userGrps, "user-groups", "groups whose members are users (default: every user the filter finds)")
			fs.Var(&d.iamGroups, "iam-group", "DIRECTORY-GROUP:IAM-GROUP: members of the directory group (name or DN) are made members of the tenant's IAM group (repeatable)")
			fs.DurationVar(&d.sync, "sync-interval", directory.DefaultSync, "time between syncs (at least a minute)")
			fs.IntVar(&d.cfg.MaxUsers, "max-users", directory.DefaultMaxUsers, "most users a sync takes; a directory with more fails the sync")
			fs.IntVar(&d.cfg.PageSize, "page-size", directory.DefaultPageSize, "entries per page of a search")
			fs.DurationVar(&d.timeout, "timeout", directory.DefaultTimeout, "bound of each connection and operation")
		},
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			d := f.dir
			in := admin.DirectoryIn{Config: d.cfg}
			in.AdminGroups, in.UserGroups = splitList(d.adminGroups), splitList(d.userGrps)
			for _, m := range d.iamGroups {
				// IAM group names hold no colon; a DN may.
				i := strings.LastIndexByte(m, ':')
				if i <= 0 || i == len(m)-1 {
					return nil, fmt.Errorf("--iam-group %q: want DIRECTORY-GROUP:IAM-GROUP", m)
				}
				if in.IAMGroups == nil {
					in.IAMGroups = map[string]string{}
				}
				in.IAMGroups[strings.TrimSpace(m[:i])] = strings.TrimSpace(m[i+1:])
			}
			in.SyncSeconds, in.TimeoutSeconds = int(d.sync/time.Second), int(d.timeout/time.Second)
			if d.caFile != "" {
				b, err := os.ReadFile(d.caFile)
				if err != nil {
					return nil, err
				}
				in.CA = string(b)
			}
			if d.passwordFile != "" {
				p, err := readBindPassword(d.passwordFile)
				if err != nil {
					return nil, err
				}
				in.BindPassword = p
			}
			return call[admin.Directory](c, "PUT", path("tenants", a[0], "directory"), in)
		}}
	adminCmds["directory show"] = adminCmd{args: []string{"TENANT"}, short: "show the tenant's directory and its last sync",
		example: "  ostium admin directory show acme --json",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.Directory](c, "GET", path("tenants", a[0], "directory"), nil)
		}}
	adminCmds["directory sync"] = adminCmd{args: []string{"TENANT"}, short: "sync the tenant's directory now, and show what it did",
		example: "  ostium admin directory sync acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[directory.Result](c, "POST", path("tenants", a[0], "directory", "sync"), nil)
		}}
	adminCmds["directory users"] = adminCmd{args: []string{"TENANT"}, short: "list the tenant's users that come from its directory",
		example: "  ostium admin directory users acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.DirectoryUser](c, "GET", path("tenants", a[0], "directory", "users"), nil)
		}}
	adminCmds["directory groups"] = adminCmd{args: []string{"TENANT"}, short: "list the groups the last sync found, and the role each gives",
		example: "  ostium admin directory groups acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.DirectoryGroup](c, "GET", path("tenants", a[0], "directory", "groups"), nil)
		}}
	adminCmds["directory delete"] = adminCmd{args: []string{"TENANT"},
		short:   "disconnect the tenant's directory (its users stay, with their keys, but cannot sign in with a directory password)",
		example: "  ostium admin directory delete acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "directory"), nil, nil))
		}}
}

// splitList splits comma-separated flag values.
func splitList(l listFlag) []string {
	var out []string
	for _, v := range l {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// readBindPassword reads the bind password from a file, or one line of
// standard input for "-" (never an argument others could see in the
// process list), without its trailing newline.
func readBindPassword(name string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(passwordInput, 4096))
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("read the bind password: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
