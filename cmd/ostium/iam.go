package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
)

// iamFlags are the flags of `ostium admin iam ...`.
type iamFlags struct {
	documentFile, path, description string
	setDefault                      bool
	maxSession                      int
	kind                            string
	context, clientIDs, thumbprints listFlag
}

// readDocument reads a policy document from a file, - for standard input.
func readDocument(file string) (string, error) {
	if file == "" {
		return "", fmt.Errorf("--document-file names the policy document (- for standard input)")
	}
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 64<<10))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", fmt.Errorf("policy document: %w", err)
	}
	return string(b), nil
}

func documentFlag(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.iam.documentFile, "document-file", "", "file holding the policy document (JSON), - for standard input")
}

func entityFlags(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.iam.path, "path", "/", "IAM path (/ or /a/b/)")
}

// iamDoc reads the document and calls with it.
func iamDoc[T any](c *admin.Client, f *adminFlags, method, p string, in map[string]any) (any, error) {
	doc, err := readDocument(f.iam.documentFile)
	if err != nil {
		return nil, err
	}
	in["document"] = doc
	return call[T](c, method, p, in)
}

// principalKinds are the kinds of principal whose policies the
// subcommands reach, by their plural in the API's paths.
var principalKinds = map[string]string{"user": "users", "group": "groups", "role": "roles"}

func principalPath(a []string, rest ...string) (string, error) {
	plural, ok := principalKinds[a[1]]
	if !ok {
		return "", fmt.Errorf("a principal is a user, a group or a role, not %q", a[1])
	}
	return path(append([]string{"tenants", a[0], "iam", plural, a[2]}, rest...)...), nil
}

// The IAM commands: a tenant's groups, managed policies, roles,
// principals' policies and OpenID Connect providers, policy validation
// and explanations.
func init() {
	adminGroups["iam"] = "a tenant's IAM: groups, policies, roles, OpenID Connect providers; validate a policy; explain a decision"
	adminGroups["iam group"] = "IAM groups and their members"
	adminGroups["iam policy"] = "managed policies and their versions"
	adminGroups["iam role"] = "roles and their trust policies"
	adminGroups["iam principal"] = "the inline and attached policies of a user, group or role"
	adminGroups["iam oidc-provider"] = "OpenID Connect providers for web identity (AssumeRoleWithWebIdentity)"
	cmds := map[string]adminCmd{
		"iam explain": {args: []string{"TENANT", "USER", "ACTION", "[RESOURCE]"},
			short: "why may (or may not) a user do this? the decision and every statement that applied (--role: USER names a role)",
			example: "  ostium admin iam explain acme alice s3:GetObject reports/2024/q1.csv\n" +
				"  ostium admin iam explain acme alice s3:ListBucket reports --context s3:prefix=2024/ --context aws:SourceIp=10.1.2.3\n" +
				"  ostium admin iam explain acme auditor s3:GetObject reports/q1.csv --role",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				fs.Var(&f.iam.context, "context", "KEY=VALUE: a condition key the request carries (repeatable)")
				fs.BoolVar(&f.yes, "role", false, "USER names a role, acting as its session")
			},
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				in := admin.ExplainIn{Action: a[2]}
				if f.yes {
					in.Role = a[1]
				} else {
					in.User = a[1]
				}
				if len(a) > 3 {
					in.Resource = a[3]
				}
				for _, kv := range f.iam.context {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return nil, fmt.Errorf("--context %q: want KEY=VALUE", kv)
					}
					if in.Context == nil {
						in.Context = map[string][]string{}
					}
					in.Context[k] = append(in.Context[k], v)
				}
				var out admin.Explanation
				err := c.Do(context.Background(), "POST", path("tenants", a[0], "iam", "explain"), in, &out)
				return out, err
			}},
		"iam validate": {args: []string{"TENANT"}, short: "check a policy document as it would be checked when stored (line and column of each problem)",
			example: "  ostium admin iam validate acme --document-file read-reports.json\n  ostium admin iam validate acme --kind trust --document-file trust.json",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				documentFlag(fs, f)
				fs.StringVar(&f.iam.kind, "kind", "identity", "identity (a user's, group's, role's or managed policy) or trust (a role's trust policy)")
			},
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				out, err := iamDoc[admin.Validation](c, f, "POST", path("tenants", a[0], "iam", "validate"), map[string]any{"kind": f.iam.kind})
				if v, ok := out.(admin.Validation); ok && err == nil && !v.Valid {
					printTable(os.Stdout, v.Problems)
					return nil, fmt.Errorf("the document would be refused")
				}
				if v, ok := out.(admin.Validation); ok && err == nil {
					return v.Problems, nil
				}
				return out, err
			}},
		"iam group list": {args: []string{"TENANT"}, short: "the tenant's IAM groups", example: "  ostium admin iam group list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.IAMGroup](c, "GET", path("tenants", a[0], "iam", "groups"), nil)
		}},
		"iam group create": {args: []string{"TENANT", "GROUP"}, short: "create an IAM group", example: "  ostium admin iam group create acme analysts", flags: entityFlags, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IAMGroup](c, "POST", path("tenants", a[0], "iam", "groups"), map[string]string{"name": a[1], "path": f.iam.path})
		}},
		"iam group get": {args: []string{"TENANT", "GROUP"}, short: "a group with its members and policies", example: "  ostium admin --json iam group get acme analysts", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IAMGroup](c, "GET", path("tenants", a[0], "iam", "groups", a[1]), nil)
		}},
		"iam group delete": {args: []string{"TENANT", "GROUP"}, short: "delete an empty group", example: "  ostium admin iam group delete acme analysts", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "groups", a[1]), nil, nil))
		}},
		"iam group add": {args: []string{"TENANT", "GROUP", "USER"}, short: "add a user to a group", example: "  ostium admin iam group add acme analysts alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			err := c.Do(context.Background(), "PUT", path("tenants", a[0], "iam", "groups", a[1], "members", a[2]), nil, nil)
			return map[string]string{"group": a[1], "member": a[2]}, err
		}},
		"iam group remove": {args: []string{"TENANT", "GROUP", "USER"}, short: "remove a user from a group", example: "  ostium admin iam group remove acme analysts alice", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "groups", a[1], "members", a[2]), nil, nil))
		}},
		"iam policy list": {args: []string{"TENANT"}, short: "the tenant's managed policies", example: "  ostium admin iam policy list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.IAMPolicy](c, "GET", path("tenants", a[0], "iam", "policies"), nil)
		}},
		"iam policy create": {args: []string{"TENANT", "POLICY"}, short: "create a managed policy (its document is version v1)", example: "  ostium admin iam policy create acme read-reports --document-file read-reports.json",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				documentFlag(fs, f)
				entityFlags(fs, f)
				fs.StringVar(&f.iam.description, "description", "", "what the policy is for")
			}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				return iamDoc[admin.IAMPolicy](c, f, "POST", path("tenants", a[0], "iam", "policies"), map[string]any{"name": a[1], "path": f.iam.path, "description": f.iam.description})
			}},
		"iam policy get": {args: []string{"TENANT", "POLICY"}, short: "a managed policy with its versions", example: "  ostium admin --json iam policy get acme read-reports", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IAMPolicy](c, "GET", path("tenants", a[0], "iam", "policies", a[1]), nil)
		}},
		"iam policy delete": {args: []string{"TENANT", "POLICY"}, short: "delete a managed policy that is attached nowhere", example: "  ostium admin iam policy delete acme read-reports", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "policies", a[1]), nil, nil))
		}},
		"iam policy version": {args: []string{"TENANT", "POLICY"}, short: "add a version of a managed policy (at most 5)", example: "  ostium admin iam policy version acme read-reports --document-file v2.json --set-default",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				documentFlag(fs, f)
				fs.BoolVar(&f.iam.setDefault, "set-default", false, "make it the version in force")
			}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				return iamDoc[admin.PolicyVersion](c, f, "POST", path("tenants", a[0], "iam", "policies", a[1], "versions"), map[string]any{"set_default": f.iam.setDefault})
			}},
		"iam policy default": {args: []string{"TENANT", "POLICY", "VERSION"}, short: "make a version the one in force", example: "  ostium admin iam policy default acme read-reports v1", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IAMPolicy](c, "PUT", path("tenants", a[0], "iam", "policies", a[1], "default"), map[string]string{"version": a[2]})
		}},
		"iam policy delete-version": {args: []string{"TENANT", "POLICY", "VERSION"}, short: "delete a version other than the default", example: "  ostium admin iam policy delete-version acme read-reports v2", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "policies", a[1], "versions", a[2]), nil, nil))
		}},
		"iam role list": {args: []string{"TENANT"}, short: "the tenant's roles", example: "  ostium admin iam role list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.IAMRole](c, "GET", path("tenants", a[0], "iam", "roles"), nil)
		}},
		"iam role create": {args: []string{"TENANT", "ROLE"}, short: "create a role; its trust policy says who may assume it", example: "  ostium admin iam role create acme auditor --document-file trust.json --max-session 7200",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				documentFlag(fs, f)
				entityFlags(fs, f)
				fs.StringVar(&f.iam.description, "description", "", "what the role is for")
				fs.IntVar(&f.iam.maxSession, "max-session", 3600, "longest session, in seconds (3600 to 43200)")
			}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				doc, err := readDocument(f.iam.documentFile)
				if err != nil {
					return nil, err
				}
				return call[admin.IAMRole](c, "POST", path("tenants", a[0], "iam", "roles"), admin.RoleIn{Name: a[1], Path: f.iam.path,
					Description: f.iam.description, TrustPolicy: doc, MaxSessionDuration: f.iam.maxSession})
			}},
		"iam role get": {args: []string{"TENANT", "ROLE"}, short: "a role with its trust policy and policies", example: "  ostium admin --json iam role get acme auditor", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[admin.IAMRole](c, "GET", path("tenants", a[0], "iam", "roles", a[1]), nil)
		}},
		"iam role delete": {args: []string{"TENANT", "ROLE"}, short: "delete a role without policies (its sessions end)", example: "  ostium admin iam role delete acme auditor", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "roles", a[1]), nil, nil))
		}},
		"iam role trust": {args: []string{"TENANT", "ROLE"}, short: "replace a role's trust policy", example: "  ostium admin iam role trust acme auditor --document-file trust.json", flags: documentFlag,
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				return iamDoc[admin.IAMRole](c, f, "PUT", path("tenants", a[0], "iam", "roles", a[1], "trust-policy"), map[string]any{})
			}},
		"iam principal policies": {args: []string{"TENANT", "KIND", "NAME"}, short: "a user's, group's or role's inline and attached policies (KIND: user, group or role)", example: "  ostium admin iam principal policies acme user alice",
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "policies")
				if err != nil {
					return nil, err
				}
				return call[admin.Policies](c, "GET", p, nil)
			}},
		"iam principal put": {args: []string{"TENANT", "KIND", "NAME", "POLICY"}, short: "put an inline policy of a user, group or role", example: "  ostium admin iam principal put acme user alice home --document-file home.json", flags: documentFlag,
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "policies", a[3])
				if err != nil {
					return nil, err
				}
				return iamDoc[admin.InlinePolicy](c, f, "PUT", p, map[string]any{})
			}},
		"iam principal get": {args: []string{"TENANT", "KIND", "NAME", "POLICY"}, short: "an inline policy of a user, group or role", example: "  ostium admin --json iam principal get acme user alice home",
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "policies", a[3])
				if err != nil {
					return nil, err
				}
				return call[admin.InlinePolicy](c, "GET", p, nil)
			}},
		"iam principal delete": {args: []string{"TENANT", "KIND", "NAME", "POLICY"}, short: "delete an inline policy of a user, group or role", example: "  ostium admin iam principal delete acme user alice home",
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "policies", a[3])
				if err != nil {
					return nil, err
				}
				return deleted(c.Do(context.Background(), "DELETE", p, nil, nil))
			}},
		"iam principal attach": {args: []string{"TENANT", "KIND", "NAME", "POLICY"}, short: "attach a managed policy to a user, group or role", example: "  ostium admin iam principal attach acme user alice read-reports",
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "attached", a[3])
				if err != nil {
					return nil, err
				}
				err = c.Do(context.Background(), "PUT", p, nil, nil)
				return map[string]string{a[1]: a[2], "attached": a[3]}, err
			}},
		"iam principal detach": {args: []string{"TENANT", "KIND", "NAME", "POLICY"}, short: "detach a managed policy from a user, group or role", example: "  ostium admin iam principal detach acme user alice read-reports",
			run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				p, err := principalPath(a, "attached", a[3])
				if err != nil {
					return nil, err
				}
				return deleted(c.Do(context.Background(), "DELETE", p, nil, nil))
			}},
		"iam oidc-provider list": {args: []string{"TENANT"}, short: "the tenant's OpenID Connect providers", example: "  ostium admin iam oidc-provider list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return call[[]admin.OIDCProvider](c, "GET", path("tenants", a[0], "iam", "oidc-providers"), nil)
		}},
		"iam oidc-provider create": {args: []string{"TENANT", "URL"}, short: "register an OpenID Connect provider (https issuer URL)",
			example: "  ostium admin iam oidc-provider create acme https://idp.acme.example/realms/acme --client-id sts \\\n      --thumbprint 9e99a48a9960b14926bb7f3b02e22da2b0ab7280",
			flags: func(fs *pflag.FlagSet, f *adminFlags) {
				fs.Var(&f.iam.clientIDs, "client-id", "an audience its tokens carry (repeatable)")
				fs.Var(&f.iam.thumbprints, "thumbprint", "SHA-1 of the issuer's certificate, 40 hex digits (repeatable, at most 5)")
			}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
				return call[admin.OIDCProvider](c, "POST", path("tenants", a[0], "iam", "oidc-providers"),
					map[string]any{"url": a[1], "client_ids": []string(f.iam.clientIDs), "thumbprints": []string(f.iam.thumbprints)})
			}},
		"iam oidc-provider delete": {args: []string{"TENANT", "URL"}, short: "remove an OpenID Connect provider", example: "  ostium admin iam oidc-provider delete acme https://idp.acme.example/realms/acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			return deleted(c.Do(context.Background(), "DELETE", path("tenants", a[0], "iam", "oidc-providers")+"?url="+url.QueryEscape(a[1]), nil, nil))
		}},
	}
	for name, cmd := range cmds {
		adminCmds[name] = cmd
	}
}

// printExplanation prints an explanation for people: the decision, then
// each statement with where it came from.
func printExplanation(w io.Writer, e admin.Explanation) error {
	fmt.Fprintf(w, "%s %s on %s: %s\n", e.Principal, e.Action, e.Resource, e.Decision)
	if len(e.Statements) == 0 {
		fmt.Fprintln(w, "  no statement applies")
	}
	for _, s := range e.Statements {
		sid := ""
		if s.Sid != "" {
			sid = " " + s.Sid
		}
		fmt.Fprintf(w, "  %s%s: %s", s.Effect, sid, s.From.Label)
		if s.Start.Line > 0 {
			fmt.Fprintf(w, ", line %d", s.Start.Line)
		}
		fmt.Fprintln(w)
		if s.Text != "" {
			for _, l := range strings.Split(s.Text, "\n") {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
	return nil
}
