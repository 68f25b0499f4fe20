package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
)

// The content library (VCSP catalog) commands.
func init() {
	adminGroups["catalog"] = "buckets published as content libraries (vSphere, Cloud Director)"
	adminCmds["catalog publish"] = adminCmd{args: []string{"TENANT", "NAME"},
		short: "publish a bucket (or a prefix of it) as a content library; again, to change it (with --auth-user, the password is read from the terminal or stdin)",
		example: "  ostium admin catalog publish acme golden --bucket images --prefix templates/ --description \"Golden images\"\n" +
			"  printf '%s\\n' \"$PW\" | ostium admin catalog publish acme golden --bucket images --auth-user vcsp",
		flags: func(fs *pflag.FlagSet, f *adminFlags) {
			fs.StringVar(&f.bucket, "bucket", "", "the tenant's bucket to publish")
			fs.StringVar(&f.prefix, "prefix", "", "the library's folder in the bucket, ending in / (default: the whole bucket)")
			fs.StringVar(&f.description, "description", "", "what the library holds")
			fs.StringVar(&f.authUser, "auth-user", "", "protect the library with this user name (vcsp: the one the vSphere Client sends) and a password (basic auth)")
		},
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			in := admin.CatalogInput{Bucket: f.bucket, Prefix: f.prefix, Description: f.description, User: f.authUser}
			if f.authUser != "" {
				pw, err := readPassword()
				if err != nil {
					return nil, err
				}
				in.Password = pw
			}
			return call[admin.Catalog](c, "PUT", path("tenants", a[0], "catalogs", a[1]), in)
		}}
	adminCmds["catalog unpublish"] = adminCmd{args: []string{"TENANT", "NAME"}, short: "stop serving a content library (the bucket's objects stay)",
		example: "  ostium admin catalog unpublish acme golden",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "catalogs", a[1]), nil, nil))
		}}
	adminCmds["catalog get"] = adminCmd{args: []string{"TENANT", "NAME"}, short: "show a content library: its lib.json path, version and last indexing",
		example: "  ostium admin catalog get acme golden",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.Catalog](c, "GET", path("tenants", a[0], "catalogs", a[1]), nil)
		}}
	adminCmds["catalog list"] = adminCmd{args: []string{"TENANT"}, short: "list a tenant's content libraries",
		example: "  ostium admin catalog list acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.Catalog](c, "GET", path("tenants", a[0], "catalogs"), nil)
		}}
}
