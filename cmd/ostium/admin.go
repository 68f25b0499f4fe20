package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
)

const adminUsage = `usage: ostium admin [--endpoint URL] [--access-key K --secret-key S] [--json] COMMAND

  tenant create NAME [--display-name N] [--platform P] | list | get NAME | suspend NAME | resume NAME | delete NAME [--purge]
  tenant platform NAME PLATFORM                 (where the tenant's new blobs go)
  bucket place BUCKET PLATFORM                  (a bucket's new blobs elsewhere; "" = its tenant's)
  user   create TENANT USER [--role admin|user] [--email ADDRESS] | list TENANT | get TENANT USER | delete TENANT USER
  key    create TENANT USER | list TENANT USER
  key    rotate TENANT USER [ACCESS_KEY] [--grace 5m] | disable|enable|delete TENANT USER [ACCESS_KEY]
                                                (ACCESS_KEY may be left out when the user has one key)
  appcred create TENANT USER --bucket B [--bucket B2] [--read-only]
  quota  set TENANT [--bucket B] --max-bytes N --max-objects N | list TENANT
  usage  TENANT [--from T] [--to T] [--csv]     (T: RFC 3339 or Unix seconds)
  audit  [--from T] [--to T] [--tenant T] [--limit N] [--jsonl]
                                                (the audit log, oldest first; --jsonl streams JSON lines)
  root-key list | create | rotate ACCESS_KEY [--grace 5m] | revoke ACCESS_KEY
                                                (the provider's root keys; the last active one cannot be revoked)

The endpoint comes from --endpoint or OSTIUM_ENDPOINT (default
http://localhost:9000), the credentials from flags or OSTIUM_ROOT_ACCESS_KEY
and OSTIUM_ROOT_SECRET_KEY. --json prints machine-readable JSON.`

// adminCmd is one admin subcommand: its positional arguments' names
// (a last one in brackets may be left out) and what it calls.
type adminCmd struct {
	args []string
	run  func(c *admin.Client, a []string, f *adminFlags) (any, error)
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
	purge, readOnly, csv                       bool
	from, to, tenant                           string
	limit                                      int
	jsonl                                      bool
	grace                                      time.Duration
	maxBytes, maxObjects                       int64
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
	"tenant create": {[]string{"NAME"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", "/tenants", map[string]string{"name": a[0], "display_name": f.displayName, "platform": f.platform})
	}},
	"tenant platform": {[]string{"NAME", "PLATFORM"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "PUT", path("tenants", a[0], "platform"), map[string]string{"platform": a[1]})
	}},
	"bucket place": {[]string{"BUCKET", "PLATFORM"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		err := c.Do(context.Background(), "PUT", path("buckets", a[0], "platform"), map[string]string{"platform": a[1]}, nil)
		return map[string]string{"bucket": a[0], "platform": a[1]}, err
	}},
	"tenant list": {nil, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Tenant](c, "GET", "/tenants", nil)
	}},
	"tenant get": {[]string{"NAME"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "GET", path("tenants", a[0]), nil)
	}},
	"tenant suspend": {[]string{"NAME"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", path("tenants", a[0], "suspend"), nil)
	}},
	"tenant resume": {[]string{"NAME"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Tenant](c, "POST", path("tenants", a[0], "resume"), nil)
	}},
	"tenant delete": {[]string{"NAME"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		p := path("tenants", a[0])
		if f.purge {
			p += "?purge=true"
		}
		return deleted(c.Do(context.Background(), "DELETE", p, nil, nil))
	}},
	"user create": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.User](c, "POST", path("tenants", a[0], "users"), map[string]string{"name": a[1], "role": f.role, "email": f.email})
	}},
	"user list": {[]string{"TENANT"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.User](c, "GET", path("tenants", a[0], "users"), nil)
	}},
	"user get": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.User](c, "GET", path("tenants", a[0], "users", a[1]), nil)
	}},
	"user delete": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "users", a[1]), nil, nil))
	}},
	"key create": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Key](c, "POST", path("tenants", a[0], "users", a[1], "keys"), nil)
	}},
	"key list": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Key](c, "GET", path("tenants", a[0], "users", a[1], "keys"), nil)
	}},
	"key rotate": {[]string{"TENANT", "USER", "[ACCESS_KEY]"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "rotate", map[string]int64{"grace_seconds": int64(f.grace / time.Second)})
	}},
	"key disable": {[]string{"TENANT", "USER", "[ACCESS_KEY]"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "disable", nil)
	}},
	"key enable": {[]string{"TENANT", "USER", "[ACCESS_KEY]"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "POST", "enable", nil)
	}},
	"key delete": {[]string{"TENANT", "USER", "[ACCESS_KEY]"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return keyCall(c, a, "DELETE", "", nil)
	}},
	"appcred create": {[]string{"TENANT", "USER"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Key](c, "POST", path("tenants", a[0], "users", a[1], "appcreds"),
			map[string]any{"buckets": []string(f.buckets), "read_only": f.readOnly})
	}},
	"quota set": {[]string{"TENANT"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.Quota](c, "PUT", path("tenants", a[0], "quotas"),
			admin.Quota{Bucket: f.bucket, MaxBytes: f.maxBytes, MaxObjects: f.maxObjects})
	}},
	"usage": {[]string{"TENANT"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
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
	"audit": {nil, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
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
	"root-key list": {nil, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.RootKey](c, "GET", "/root-keys", nil)
	}},
	"root-key create": {nil, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "POST", "/root-keys", nil)
	}},
	"root-key rotate": {[]string{"ACCESS_KEY"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "POST", path("root-keys", a[0], "rotate"), map[string]int64{"grace_seconds": int64(f.grace / time.Second)})
	}},
	"root-key revoke": {[]string{"ACCESS_KEY"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.RootKey](c, "DELETE", path("root-keys", a[0]), nil)
	}},
	"quota list": {[]string{"TENANT"}, func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.Quota](c, "GET", path("tenants", a[0], "quotas"), nil)
	}},
}

// rawOutput is printed as the server sent it.
type rawOutput []byte

// streamed was printed as it arrived.
type streamed struct{}

func deleted(err error) (any, error) { return map[string]bool{"deleted": err == nil}, err }

func adminMain(args []string) error {
	fs := flag.NewFlagSet("admin", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, adminUsage) }
	endpoint := fs.String("endpoint", env("OSTIUM_ENDPOINT", "http://localhost:9000"), "node URL")
	ak := fs.String("access-key", os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), "access key")
	sk := fs.String("secret-key", os.Getenv("OSTIUM_ROOT_SECRET_KEY"), "secret key")
	asJSON := fs.Bool("json", false, "print JSON")
	var f adminFlags
	fs.StringVar(&f.displayName, "display-name", "", "tenant display name")
	fs.StringVar(&f.role, "role", "user", "user role: admin or user")
	fs.StringVar(&f.platform, "platform", "", "storage platform of the tenant's blobs (default: the node's)")
	fs.StringVar(&f.email, "email", "", "user's e-mail address, for ACL grants by e-mail")
	fs.Var(&f.buckets, "bucket", "bucket (repeat for an app credential)")
	fs.BoolVar(&f.purge, "purge", false, "delete the tenant's buckets and data too")
	fs.BoolVar(&f.readOnly, "read-only", false, "app credential may only read")
	fs.DurationVar(&f.grace, "grace", admin.DefaultGrace, "how long a rotated key keeps working")
	fs.StringVar(&f.from, "from", "", "usage from (RFC 3339 or Unix seconds)")
	fs.StringVar(&f.to, "to", "", "usage to, exclusive")
	fs.BoolVar(&f.csv, "csv", false, "usage as CSV")
	fs.StringVar(&f.tenant, "tenant", "", "audit entries of this tenant's callers")
	fs.IntVar(&f.limit, "limit", 0, "at most this many audit entries (0: all)")
	fs.BoolVar(&f.jsonl, "jsonl", false, "audit log as JSON lines, streamed")
	fs.Int64Var(&f.maxBytes, "max-bytes", 0, "quota in bytes (0: none)")
	fs.Int64Var(&f.maxObjects, "max-objects", 0, "quota in objects (0: none)")

	// Flags may come anywhere among the words, as people type them.
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		words, args = append(words, fs.Arg(0)), fs.Args()[1:]
	}
	if len(words) == 0 {
		fs.Usage()
		return errors.New("admin: a command is needed")
	}
	// Commands are one word (usage) or two (tenant create).
	name, rest := words[0], words[1:]
	cmd, ok := adminCmds[name]
	if !ok && len(words) > 1 {
		name, rest = words[0]+" "+words[1], words[2:]
		cmd, ok = adminCmds[name]
	}
	if !ok {
		fs.Usage()
		return fmt.Errorf("admin: unknown command %q", name)
	}
	need := len(cmd.args)
	if need > 0 && strings.HasPrefix(cmd.args[need-1], "[") {
		need--
	}
	if len(rest) < need || len(rest) > len(cmd.args) {
		return fmt.Errorf("admin %s: wants %s", name, strings.Join(cmd.args, " "))
	}
	if len(f.buckets) == 1 {
		f.bucket = f.buckets[0]
	}
	if err := checkCredentials(*ak, *sk, "--access-key and --secret-key, or OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY"); err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	c := admin.NewClient(*endpoint, *ak, *sk, nil)
	out, err := cmd.run(c, rest, &f)
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
	if u, ok := out.(admin.Usage); ok && !*asJSON {
		fmt.Printf("tenant %s stores %d bytes in %d objects; %s to %s:\n", u.Tenant, u.Now.Bytes, u.Now.Objects,
			u.From.Format(time.RFC3339), u.To.Format(time.RFC3339))
		return printTable(u.Rows)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return printTable(out)
}

// printTable prints a record or a list of records as aligned columns, by
// way of their JSON fields.
func printTable(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// Numbers stay as written (1000000, not 1e+06).
	decode := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		return d.Decode(v)
	}
	var rows []map[string]any
	if decode(&rows) != nil {
		var one map[string]any
		if err := decode(&one); err != nil {
			return err
		}
		rows = []map[string]any{one}
	}
	if len(rows) == 0 {
		fmt.Println("(none)")
		return nil
	}
	var cols []string
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	// Names first, then the rest alphabetically.
	first := map[string]int{"id": -2, "time": -1, "name": 1, "tenant": 2, "user": 3, "access_key": 4, "secret_key": 5, "kind": 6, "role": 7, "status": 8}
	rank := func(k string) int {
		if r, ok := first[k]; ok {
			return r
		}
		return len(first) + 1
	}
	slices.SortFunc(cols, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(cols, "\t")))
	for _, r := range rows {
		vals := make([]string, len(cols))
		for i, c := range cols {
			if v, ok := r[c]; ok {
				vals[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t"))
	}
	return tw.Flush()
}
