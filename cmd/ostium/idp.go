package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/idp"
)

// idpFlags are the flags of `ostium admin idp put`.
type idpFlags struct {
	cfg                     idp.Config
	secretFile              string
	scopes, thumbprints     listFlag
	adminGroups, userGroups listFlag
	iamGroups               listFlag
}

// idpPath is the admin API's path of a provider: the tenant's, or the
// provider's own without --tenant.
func idpPath(tenant string, name ...string) string {
	if tenant == "" {
		return path(append([]string{"idps"}, name...)...)
	}
	return path(append([]string{"tenants", tenant, "idps"}, name...)...)
}

// The identity provider commands: OpenID Connect sign-in to the console.
func init() {
	adminGroups["idp"] = "OpenID Connect providers people sign in to the console with: the provider's own (for every tenant) or a tenant's (--tenant)"
	tenantFlag := func(fs *pflag.FlagSet, f *adminFlags) {
		fs.StringVar(&f.tenant, "tenant", "", "the tenant whose provider it is (default: the provider's own, for every tenant)")
	}
	adminCmds["idp put"] = adminCmd{args: []string{"NAME"},
		short: "register an identity provider, or change it (the client secret is read from a file, or - for standard input)",
		example: "  ostium admin idp put corp --tenant acme --display-name 'Acme SSO' --issuer https://login.acme.example/realms/staff \\\n" +
			"      --client-id ostium --client-secret-file - --admin-groups storage-admins --create-users\n" +
			"  ostium admin idp put keycloak --issuer https://sso.provider.example/realms/customers --client-id ostium \\\n" +
			"      --client-secret-file kc.secret --tenant-claim ostium_tenant --scopes profile,groups --create-users",
		flags: func(fs *pflag.FlagSet, f *adminFlags) {
			p := &f.idp
			tenantFlag(fs, f)
			fs.StringVar(&p.cfg.DisplayName, "display-name", "", "what the sign-in button says (default: the name)")
			fs.StringVar(&p.cfg.Issuer, "issuer", "", "the provider's issuer URL (https), as its tokens' iss")
			fs.StringVar(&p.cfg.ClientID, "client-id", "", "the console's client id at the provider")
			fs.StringVar(&p.secretFile, "client-secret-file", "", "file holding the client secret, - for standard input (default: keep the stored one)")
			fs.Var(&p.scopes, "scopes", "scopes besides openid, comma-separated (default profile,email)")
			fs.Var(&p.thumbprints, "thumbprints", "SHA-1 (hex) of the top certificate the provider serves, comma-separated (default: the node's roots verify it)")
			fs.StringVar(&p.cfg.UserClaim, "user-claim", "", "the claim naming the user (default "+idp.DefaultUserClaim+")")
			fs.StringVar(&p.cfg.GroupsClaim, "groups-claim", "", "the claim listing the user's groups (default "+idp.DefaultGroupsClaim+")")
			fs.StringVar(&p.cfg.TenantClaim, "tenant-claim", "", "the claim naming the tenant (required for the provider's own)")
			fs.Var(&p.adminGroups, "admin-groups", "groups whose members are the tenant's admins, comma-separated")
			fs.Var(&p.userGroups, "user-groups", "groups whose members are users (default: everyone the provider signs in)")
			fs.Var(&p.iamGroups, "iam-group", "GROUP:IAM-GROUP: members of the provider's group are made members of the tenant's IAM group (repeatable)")
			fs.BoolVar(&p.cfg.CreateUsers, "create-users", false, "create a user at its first sign-in (default: only users the tenant made sign in)")
		},
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			p := f.idp
			in := admin.IdentityProviderIn{Config: p.cfg}
			in.Scopes, in.Thumbprints = splitList(p.scopes), splitList(p.thumbprints)
			in.AdminGroups, in.UserGroups = splitList(p.adminGroups), splitList(p.userGroups)
			for _, m := range p.iamGroups {
				i := strings.LastIndexByte(m, ':')
				if i <= 0 || i == len(m)-1 {
					return nil, fmt.Errorf("--iam-group %q: want GROUP:IAM-GROUP", m)
				}
				if in.IAMGroups == nil {
					in.IAMGroups = map[string]string{}
				}
				in.IAMGroups[strings.TrimSpace(m[:i])] = strings.TrimSpace(m[i+1:])
			}
			if p.secretFile != "" {
				s, err := readBindPassword(p.secretFile)
				if err != nil {
					return nil, fmt.Errorf("client secret: %w", err)
				}
				in.ClientSecret = s
			}
			return call[admin.IdentityProvider](c, "PUT", idpPath(f.tenant, a[0]), in)
		}}
	adminCmds["idp list"] = adminCmd{short: "list the provider's identity providers, or a tenant's (--tenant)",
		example: "  ostium admin idp list --tenant acme", flags: tenantFlag,
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.IdentityProvider](c, "GET", idpPath(f.tenant), nil)
		}}
	adminCmds["idp show"] = adminCmd{args: []string{"NAME"}, short: "show an identity provider (never its client secret)",
		example: "  ostium admin idp show corp --tenant acme --json", flags: tenantFlag,
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IdentityProvider](c, "GET", idpPath(f.tenant, a[0]), nil)
		}}
	adminCmds["idp users"] = adminCmd{args: []string{"TENANT"}, short: "list the tenant's users that identity providers signed in, with their subjects and groups",
		example: "  ostium admin idp users acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.IdentityProviderUser](c, "GET", path("tenants", a[0], "idp-users"), nil)
		}}
	adminCmds["idp delete"] = adminCmd{args: []string{"NAME"},
		short:   "remove an identity provider (its users stay, with their keys)",
		example: "  ostium admin idp delete corp --tenant acme", flags: tenantFlag,
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", idpPath(f.tenant, a[0]), nil, nil))
		}}
}
