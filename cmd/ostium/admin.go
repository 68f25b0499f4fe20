package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/bench/quick"
)

// adminCmd is one admin subcommand: its positional arguments' names
// (a last one in brackets may be left out), what it says of itself, its
// own flags, and what it calls.
type adminCmd struct {
	args    []string
	run     func(c *admin.Client, a []string, f *adminFlags) (any, error)
	short   string
	example string
	flags   func(fs *pflag.FlagSet, f *adminFlags)
}

// userKey returns a[2], or, when it was left out, the user's one access
// key: the one that is not an application credential and not on its way
// out after a rotation. Scripts that know the user has one key need not
// list it first.
func userKey(c *admin.Client, a []string) (string, error) {
	if len(a) > 2 {
		return a[2], nil
	}
	var ks []admin.Key
	if err := c.Do(context.Background(), "GET", path("tenants", a[0], "users", a[1], "keys"), nil, &ks); err != nil {
		return "", err
	}
	var names []string
	for _, k := range ks {
		if k.Kind == "key" && k.Expires == nil {
			names = append(names, k.AccessKey)
		}
	}
	if len(names) != 1 {
		return "", fmt.Errorf("%s/%s has %d access keys (%s): name one", a[0], a[1], len(names), strings.Join(names, ", "))
	}
	return names[0], nil
}

// keyCall runs an API call on the user's key named by a (see userKey).
func keyCall(c *admin.Client, a []string, method, action string, in any) (any, error) {
	k, err := userKey(c, a)
	if err != nil {
		return nil, err
	}
	p := path("tenants", a[0], "users", a[1], "keys", k)
	switch {
	case method == "DELETE":
		return deleted(c.Do(context.Background(), method, p, nil, nil))
	case action != "":
		p += "/" + action
	}
	return call[admin.Key](c, method, p, in)
}

type adminFlags struct {
	displayName, role, bucket, email, platform string
	buckets                                    listFlag
	purge, readOnly, csv, yes                  bool
	from, to, tenant                           string
	limit                                      int
	jsonl                                      bool
	grace, expires                             time.Duration
	maxBytes                                   string // with a unit: 1TB, 500GiB
	maxObjects                                 int64
	requestsPerSec                             int64
	bytesInPerSec, bytesOutPerSec              string // with a unit: 100MiB
	sseDefault, kmsKey                         string
	prefix, description, authUser              string
	kind, endpoint, subject, topic, secret     string // notify-target
	tenants                                    listFlag
	iam                                        iamFlags
	targetAccessKey, targetRegion              string
	targetShared, targetPathStyle              bool
	dir                                        directoryFlags
	idp                                        idpFlags
}

// The flags of each subcommand; only its own show in its --help.
func tenantCreateFlags(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.displayName, "display-name", "", "tenant display name")
	fs.StringVar(&f.platform, "platform", "", "storage platform of the tenant's blobs (default: the node's)")
}

func tenantEncryptionFlags(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.sseDefault, "default", "", "sse-s3, sse-kms or none (the node's sse_default then applies)")
	fs.StringVar(&f.kmsKey, "kms-key", "", "sse-kms's key id (default: the tenant's own key)")
}

func graceFlag(fs *pflag.FlagSet, f *adminFlags) {
	fs.DurationVar(&f.grace, "grace", admin.DefaultGrace, "how long the rotated key keeps working")
}

func periodFlags(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.from, "from", "", "from this time on (RFC 3339 or Unix seconds)")
	fs.StringVar(&f.to, "to", "", "up to this time, exclusive (RFC 3339 or Unix seconds)")
}

func path(parts ...string) string {
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return "/" + strings.Join(parts, "/")
}

// call makes one API call and returns what it decoded.
func call[T any](c *admin.Client, method, p string, in any) (any, error) {
	var out T
	err := c.Do(context.Background(), method, p, in, &out)
	return out, err
}

var adminCmds = map[string]adminCmd{
	"tenant create": {args: []string{"NAME"}, short: "onboard a tenant", example: `  ostium admin tenant create acme --display-name "Acme Corp" --platform ceph`, flags: tenantCreateFlags, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", "/tenants", map[string]string{"name": a[0], "display_name": f.displayName, "platform": f.platform})
	}},
	"tenant platform": {args: []string{"NAME", "PLATFORM"}, short: "where the tenant's new blobs go", example: "  ostium admin tenant platform acme disk", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "PUT", path("tenants", a[0], "platform"), map[string]string{"platform": a[1]})
	}},
	"tenant encryption": {args: []string{"NAME"}, short: "default encryption of the tenant's new objects", example: "  ostium admin tenant encryption acme --default sse-kms --kms-key 1234abcd\n  ostium admin tenant encryption acme --default none", flags: tenantEncryptionFlags, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "PUT", path("tenants", a[0], "encryption"), admin.TenantEncryption{Default: f.sseDefault, KMSKey: f.kmsKey})
	}},
	"bucket place": {args: []string{"BUCKET", "PLATFORM"}, short: "send a bucket's new blobs to a platform (\"\" = its tenant's)", example: "  ostium admin bucket place photos disk", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		err := c.Do(context.Background(), "PUT", path("buckets", a[0], "platform"), map[string]string{"platform": a[1]}, nil)
		return map[string]string{"bucket": a[0], "platform": a[1]}, err
	}},
	"tenant list": {short: "list the tenants", example: "  ostium admin tenant list --json", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Tenant](c, "GET", "/tenants", nil)
	}},
	"tenant get": {args: []string{"NAME"}, short: "show a tenant", example: "  ostium admin tenant get acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "GET", path("tenants", a[0]), nil)
	}},
	"tenant suspend": {args: []string{"NAME"}, short: "refuse the tenant's requests until resumed", example: "  ostium admin tenant suspend acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", path("tenants", a[0], "suspend"), nil)
	}},
	"tenant resume": {args: []string{"NAME"}, short: "serve a suspended tenant again", example: "  ostium admin tenant resume acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", path("tenants", a[0], "resume"), nil)
	}},
	"tenant delete": {args: []string{"NAME"}, short: "delete a tenant (with --purge, its buckets and data too)", example: "  ostium admin tenant delete acme --purge", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.BoolVar(&f.purge, "purge", false, "delete the tenant's buckets and data too")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		p := path("tenants", a[0])
		if f.purge {
			p += "?purge=true"
		}
		return deleted(c.Do(context.Background(), "DELETE", p, nil, nil))
	}},
	"user create": {args: []string{"TENANT", "USER"}, short: "add a user to a tenant", example: "  ostium admin user create acme alice --role admin --email alice@acme.example", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.StringVar(&f.role, "role", "user", "user role: admin or user")
		fs.StringVar(&f.email, "email", "", "user's e-mail address, for ACL grants by e-mail")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.User](c, "POST", path("tenants", a[0], "users"), map[string]string{"name": a[1], "role": f.role, "email": f.email})
	}},
	"user list": {args: []string{"TENANT"}, short: "list a tenant's users", example: "  ostium admin user list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.User](c, "GET", path("tenants", a[0], "users"), nil)
	}},
	"user get": {args: []string{"TENANT", "USER"}, short: "show a user", example: "  ostium admin user get acme alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.User](c, "GET", path("tenants", a[0], "users", a[1]), nil)
	}},
	"user delete": {args: []string{"TENANT", "USER"}, short: "delete a user and their keys", example: "  ostium admin user delete acme alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "users", a[1]), nil, nil))
	}},
	"user password": {args: []string{"TENANT", "USER"}, short: "set a user's console password (read from the terminal or stdin; the user must change it at its next sign-in)", example: "  ostium admin user password acme alice\n  printf '%s\\n' \"$PW\" | ostium admin user password acme alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		pw, err := readPassword()
		if err != nil {
			return nil, err
		}
		err = c.Do(context.Background(), "PUT", path("tenants", a[0], "users", a[1], "password"), map[string]string{"password": pw}, nil)
		return map[string]bool{"password_set": err == nil}, err
	}},
	"key create": {args: []string{"TENANT", "USER"}, short: "create an access key (its secret is shown once)", example: "  ostium admin key create acme alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Key](c, "POST", path("tenants", a[0], "users", a[1], "keys"), nil)
	}},
	"key list": {args: []string{"TENANT", "USER"}, short: "list a user's keys (rotated keys past their grace as expired)", example: "  ostium admin key list acme alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Key](c, "GET", path("tenants", a[0], "users", a[1], "keys"), nil)
	}},
	"key rotate": {args: []string{"TENANT", "USER", "[ACCESS_KEY]"}, short: "a new key; the old one works for --grace more", example: "  ostium admin key rotate acme alice --grace 1h", flags: graceFlag, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "rotate", map[string]int64{"grace_seconds": int64(f.grace / time.Second)})
	}},
	"key disable": {args: []string{"TENANT", "USER", "[ACCESS_KEY]"}, short: "stop a key from working until enabled", example: "  ostium admin key disable acme alice AKEXAMPLE", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "disable", nil)
	}},
	"key enable": {args: []string{"TENANT", "USER", "[ACCESS_KEY]"}, short: "let a disabled key work again", example: "  ostium admin key enable acme alice AKEXAMPLE", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "enable", nil)
	}},
	"key delete": {args: []string{"TENANT", "USER", "[ACCESS_KEY]"}, short: "delete a key", example: "  ostium admin key delete acme alice AKEXAMPLE", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "DELETE", "", nil)
	}},
	"appcred create": {args: []string{"TENANT", "USER"}, short: "an application credential limited to some buckets", example: "  ostium admin appcred create acme alice --bucket photos --bucket videos --read-only", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.Var(&f.buckets, "bucket", "a bucket of the tenant the credential may use (repeatable; it must exist)")
		fs.BoolVar(&f.readOnly, "read-only", false, "the credential may only read")
		fs.DurationVar(&f.expires, "expires", 0, "the credential stops working after this long (default: never)")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Key](c, "POST", path("tenants", a[0], "users", a[1], "appcreds"),
			map[string]any{"buckets": []string(f.buckets), "read_only": f.readOnly, "expires_seconds": int64(f.expires / time.Second)})
	}},
	"quota set": {args: []string{"TENANT"}, short: "limit a tenant's (or one bucket's) bytes, objects, request rate and bandwidth (the whole quota: what is not given is none)", example: "  ostium admin quota set acme --max-bytes 1TB --max-objects 10000000 --requests-per-sec 500\n  ostium admin quota set acme --bucket photos --max-bytes 500GiB --bytes-out-per-sec 100MiB", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.StringVar(&f.bucket, "bucket", "", "the quota of this bucket (default: the tenant's)")
		fs.StringVar(&f.maxBytes, "max-bytes", "0", "quota in bytes, with an optional unit: 1TB, 500GiB (0: none)")
		fs.Int64Var(&f.maxObjects, "max-objects", 0, "quota in objects (0: none)")
		fs.Int64Var(&f.requestsPerSec, "requests-per-sec", 0, "requests a second across all nodes; beyond, SlowDown (0: none)")
		fs.StringVar(&f.bytesInPerSec, "bytes-in-per-sec", "0", "bytes a second received across all nodes, with an optional unit: 100MiB (0: none)")
		fs.StringVar(&f.bytesOutPerSec, "bytes-out-per-sec", "0", "bytes a second sent across all nodes, with an optional unit (0: none)")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		q := admin.Quota{Bucket: f.bucket, MaxObjects: f.maxObjects, RequestsPerSec: f.requestsPerSec}
		for _, b := range []struct {
			flag, v string
			to      *int64
		}{{"--max-bytes", f.maxBytes, &q.MaxBytes}, {"--bytes-in-per-sec", f.bytesInPerSec, &q.BytesInPerSec}, {"--bytes-out-per-sec", f.bytesOutPerSec, &q.BytesOutPerSec}} {
			n, err := quick.ParseBytes(b.v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.flag, err)
			}
			*b.to = n
		}
		return call[admin.Quota](c, "PUT", path("tenants", a[0], "quotas"), q)
	}},
	"usage": {args: []string{"TENANT"}, short: "a tenant's stored bytes and traffic over a period (" + admin.ProviderUsage + ": the root's own buckets)", example: "  ostium admin usage acme --from 2026-01-01T00:00:00Z --csv\n  ostium admin usage " + admin.ProviderUsage, flags: func(fs *pflag.FlagSet, f *adminFlags) {
		periodFlags(fs, f)
		fs.BoolVar(&f.csv, "csv", false, "usage as CSV")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		q := url.Values{}
		for k, v := range map[string]string{"from": f.from, "to": f.to} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if f.csv {
			q.Set("format", "csv")
			b, err := c.Raw(context.Background(), "GET", path("tenants", a[0], "usage")+"?"+q.Encode(), nil)
			return rawOutput(b), err
		}
		return call[admin.Usage](c, "GET", path("tenants", a[0], "usage")+"?"+q.Encode(), nil)
	}},
	"audit": {short: "the audit log, oldest first", example: "  ostium admin audit --tenant acme --from 2026-01-01T00:00:00Z\n  ostium admin audit --jsonl > audit.jsonl", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		periodFlags(fs, f)
		fs.StringVar(&f.tenant, "tenant", "", "entries of this tenant's callers")
		fs.IntVar(&f.limit, "limit", 0, "at most this many entries (0: all)")
		fs.BoolVar(&f.jsonl, "jsonl", false, "JSON lines, streamed")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		q := url.Values{}
		for k, v := range map[string]string{"from": f.from, "to": f.to, "tenant": f.tenant} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if f.jsonl {
			q.Set("format", "jsonl")
			if f.limit > 0 {
				q.Set("limit", fmt.Sprint(f.limit))
			}
			return streamed{}, c.Stream(context.Background(), "GET", "/audit?"+q.Encode(), nil, os.Stdout)
		}
		// Page through it all (or --limit entries).
		out := []map[string]any{}
		for {
			if f.limit > 0 {
				q.Set("limit", fmt.Sprint(min(f.limit-len(out), 1000)))
			} else {
				q.Set("limit", "1000")
			}
			var page struct {
				Entries []map[string]any `json:"entries"`
				Next    int64            `json:"next"`
			}
			if err := c.Do(context.Background(), "GET", "/audit?"+q.Encode(), nil, &page); err != nil {
				return nil, err
			}
			out = append(out, page.Entries...)
			if page.Next == 0 || (f.limit > 0 && len(out) >= f.limit) {
				return out, nil
			}
			q.Set("after", fmt.Sprint(page.Next))
		}
	}},
	"root-key list": {short: "list the provider's root keys", example: "  ostium admin root-key list", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.RootKey](c, "GET", "/root-keys", nil)
	}},
	"root-key create": {short: "create a root key (its secret is shown once)", example: "  ostium admin root-key create", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "POST", "/root-keys", nil)
	}},
	"root-key rotate": {args: []string{"ACCESS_KEY"}, short: "a new root key; the old one works for --grace more", example: "  ostium admin root-key rotate AKEXAMPLE --grace 1h", flags: graceFlag, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "POST", path("root-keys", a[0], "rotate"), map[string]int64{"grace_seconds": int64(f.grace / time.Second)})
	}},
	"root-key revoke": {args: []string{"ACCESS_KEY"}, short: "revoke a root key (not the last active one)", example: "  ostium admin root-key revoke AKEXAMPLE", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "DELETE", path("root-keys", a[0]), nil)
	}},
	"quota list": {args: []string{"TENANT"}, short: "a tenant's quotas", example: "  ostium admin quota list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Quota](c, "GET", path("tenants", a[0], "quotas"), nil)
	}},
}

// rawOutput is printed as the server sent it.
type rawOutput []byte

// streamed was printed as it arrived.
type streamed struct{}

func deleted(err error) (any, error) { return map[string]bool{"deleted": err == nil}, err }

func newAdminCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "manage tenants, users, keys and quotas",
		Long: `Manage tenants, users, keys, quotas and root keys through a node's admin API.

The endpoint comes from --endpoint or OSTIUM_ENDPOINT (default
http://localhost:9000), the credentials from --access-key and --secret-key
or OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY. Tables are for
people (sizes in binary units, times in UTC to the second); --json
prints the API's answer unchanged, for scripts. Sizes given take
decimal or binary units (10GB, 10GiB, 1.5TiB) or plain bytes. Where
ACCESS_KEY may be left out, the user's one current key is meant.`,
		Example: `  ostium admin tenant create acme --display-name "Acme Corp"
  ostium admin --json key list acme alice`,
	}
	pf := cmd.PersistentFlags()
	var ra rootAccess
	ra.addFlags(pf)
	asJSON := pf.Bool("json", false, "print JSON")
	groups := map[string]*cobra.Command{}
	for _, name := range slices.Sorted(maps.Keys(adminCmds)) {
		ac := adminCmds[name]
		words := strings.Fields(name)
		parent := cmd
		for i := 1; i < len(words); i++ { // groups, and groups in groups ("tenant key")
			g := strings.Join(words[:i], " ")
			if groups[g] == nil {
				groups[g] = &cobra.Command{Use: words[i-1], Short: adminGroups[g]}
				parent.AddCommand(groups[g])
			}
			parent = groups[g]
		}
		need := len(ac.args)
		if need > 0 && strings.HasPrefix(ac.args[need-1], "[") {
			need--
		}
		var f adminFlags
		sub := &cobra.Command{
			Use:     strings.Join(append([]string{words[len(words)-1]}, ac.args...), " ") + " [flags]",
			Short:   ac.short,
			Example: ac.example,
			Args:    cobra.RangeArgs(need, len(ac.args)),
			RunE: func(c *cobra.Command, a []string) error {
				if err := ra.resolve(c.Flags()); err != nil {
					return fmt.Errorf("admin: %w", err)
				}
				return adminRun(admin.NewClient(ra.Endpoint, ra.AccessKey, ra.SecretKey, nil), ac, a, &f, *asJSON)
			},
		}
		if ac.flags != nil {
			ac.flags(sub.Flags(), &f)
		}
		parent.AddCommand(sub)
	}
	return cmd
}

var adminGroups = map[string]string{
	"tenant":   "onboard, list, suspend and delete tenants",
	"user":     "a tenant's users",
	"key":      "a user's access keys",
	"appcred":  "application credentials limited to some buckets",
	"quota":    "quotas of tenants and buckets",
	"bucket":   "where a bucket's blobs go",
	"root-key": "the provider's root keys (the last active one cannot be revoked)",
}

// adminRun calls the API and prints what it answered.
func adminRun(c *admin.Client, cmd adminCmd, args []string, f *adminFlags, asJSON bool) error {
	out, err := cmd.run(c, args, f)
	if err != nil {
		return err
	}
	if _, ok := out.(streamed); ok {
		return nil
	}
	if raw, ok := out.(rawOutput); ok {
		_, err := os.Stdout.Write(raw)
		return err
	}
	if u, ok := out.(admin.Usage); ok && !asJSON {
		return printUsage(os.Stdout, u)
	}
	if e, ok := out.(admin.Explanation); ok && !asJSON {
		return printExplanation(os.Stdout, e)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return printTable(os.Stdout, out)
}
