package main

import (
	"fmt"
	"strings"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/storageclass"
)

// classFlags reads --storage-class CLASS=PLATFORM flags into a map; the
// node's validation checks the classes and platforms.
func classFlags(flags []string) (storageclass.Map, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	m := storageclass.Map{}
	for _, f := range flags {
		class, platform, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || class == "" || platform == "" {
			return nil, fmt.Errorf("--storage-class: %q is not CLASS=PLATFORM", f)
		}
		m[strings.ToUpper(class)] = platform
	}
	return m, nil
}

// classArg reads "CLASS=PLATFORM,CLASS=PLATFORM" ("" = none: clears the
// map) into the admin API's form.
func classArg(a []string, i int) (admin.StorageClasses, error) {
	out := admin.StorageClasses{Classes: map[string]string{}}
	if len(a) <= i || a[i] == "" {
		return out, nil
	}
	m, err := classFlags(strings.Split(a[i], ","))
	if err != nil {
		return out, fmt.Errorf("%q is not CLASS=PLATFORM[,CLASS=PLATFORM...]", a[i])
	}
	for c, p := range m {
		out.Classes[c] = p
	}
	return out, nil
}

func init() {
	adminGroups["storage-class"] = "the platforms of S3 storage classes, provider-wide"
	adminCmds["tenant classes"] = adminCmd{args: []string{"NAME", "[CLASS=PLATFORM,...]"}, short: "the tenant's own platforms of storage classes (none given: the provider's apply)",
		example: "  ostium admin tenant classes acme STANDARD_IA=ceph,GLACIER_IR=cold\n  ostium admin tenant classes acme",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			in, err := classArg(a, 1)
			if err != nil {
				return nil, err
			}
			return call[admin.Tenant](c, "PUT", path("tenants", a[0], "storage-classes"), in)
		}}
	adminCmds["storage-class list"] = adminCmd{short: "the provider-wide platforms of storage classes set through the API", example: "  ostium admin storage-class list",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.StorageClasses](c, "GET", "/storage-classes", nil)
		}}
	adminCmds["storage-class set"] = adminCmd{args: []string{"[CLASS=PLATFORM,...]"}, short: "set the provider-wide platforms of storage classes (none given: clear them)",
		example: "  ostium admin storage-class set STANDARD_IA=ceph,GLACIER_IR=cold",
		run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			in, err := classArg(a, 0)
			if err != nil {
				return nil, err
			}
			return call[admin.StorageClasses](c, "PUT", "/storage-classes", in)
		}}
}
