package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// runCLI runs the command line with what it prints, on cobra's writers
// (help, completion) and on os.Stdout (the commands' own output).
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	var buf bytes.Buffer
	root := newRootCmd()
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs(goStyleFlags(args))
	err = root.Execute()
	os.Stdout = stdout
	w.Close()
	return buf.String() + string(<-got), err
}

// every command of the tree, by its words after "ostium".
func allCommands(c *cobra.Command, words []string, out *[][]string) {
	if len(words) > 0 {
		*out = append(*out, words)
	}
	for _, sub := range c.Commands() {
		if sub.Name() != "help" {
			allCommands(sub, append(append([]string{}, words...), sub.Name()), out)
		}
	}
}

var listedFlag = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`)

// Every subcommand's --help exits 0, names that subcommand and lists its
// own flags (and those of the commands above it) only; no secret of the
// environment is printed as a default.
func TestHelpOfEverySubcommand(t *testing.T) {
	secrets := map[string]string{
		"OSTIUM_ROOT_ACCESS_KEY": "AKSECRETNEVERSHOWN", "OSTIUM_ROOT_SECRET_KEY": "root-secret-never-shown",
		"AWS_SECRET_ACCESS_KEY": "aws-secret-never-shown", "OSTIUM_CONFIG_SECRET": "config-secret-never-shown",
		"OSTIUM_CATALOG": "postgres://ostium:pg-password-never-shown@db/ostium", "OSTIUM_NODE_KEY": "node-key-never-shown",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	var cmds [][]string
	allCommands(newRootCmd(), nil, &cmds)
	if len(cmds) < 40 {
		t.Fatalf("only %d commands: %q", len(cmds), cmds)
	}
	for _, words := range cmds {
		c, _, err := newRootCmd().Find(words)
		if err != nil {
			t.Fatalf("%q: %v", words, err)
		}
		own := map[string]bool{"help": true}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { own[f.Name] = true })
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) { own[f.Name] = true })
		for _, help := range []string{"--help", "-h"} {
			out, err := runCLI(t, append(append([]string{}, words...), help)...)
			name := "ostium " + strings.Join(words, " ")
			if err != nil || !strings.Contains(out, "Usage:\n  "+name) {
				t.Errorf("%s %s: %v\n%s", name, help, err, out)
				continue
			}
			for _, m := range listedFlag.FindAllStringSubmatch(out, -1) {
				if !own[m[1]] {
					t.Errorf("%s %s lists --%s, not its flag:\n%s", name, help, m[1], out)
				}
			}
			for k, v := range secrets {
				if strings.Contains(out, v) {
					t.Errorf("%s %s prints %s:\n%s", name, help, k, out)
				}
			}
			if !c.HasSubCommands() && len(words) > 1 && words[0] != "completion" && c.Example == "" {
				t.Errorf("%s has no example", name)
			}
		}
	}
}

// A wrong word or argument count is an error with the usage line, not a
// group's help with exit status 0.
func TestWrongWordsFail(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"frob", `unknown command "frob" for "ostium"`},
		{"admin frob", `unknown command "frob" for "ostium admin"`},
		{"admin tenant creat acme", `unknown command "creat" for "ostium admin tenant"`},
		{"bench frob", `unknown command "frob" for "ostium bench"`},
		{"admin tenant create", "usage: ostium admin tenant create NAME [flags]"},
		{"admin key rotate a b c d", "usage: ostium admin key rotate TENANT USER [ACCESS_KEY] [flags]"},
		{"bench compare onlyone", "usage: ostium bench compare A B [flags]"},
		{"serve extra", `unknown command "extra" for "ostium serve"`},
		{"admin tenant list --no-such-flag", "unknown flag: --no-such-flag (see ostium admin tenant list --help)"},
	} {
		_, err := runCLI(t, strings.Fields(tc.args)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.args, err, tc.want)
		}
	}
	// The group alone still shows its help.
	if out, err := runCLI(t, "admin", "tenant"); err != nil || !strings.Contains(out, "ostium admin tenant [command]") {
		t.Errorf("admin tenant: %v\n%s", err, out)
	}
}

// Before the move to cobra, flags were Go's, and -flag was --flag.
func TestGoStyleFlags(t *testing.T) {
	got := goStyleFlags([]string{"-endpoint", "E", "-h", "--json", "-max-bytes=1TB", "x", "--", "-keep"})
	want := []string{"--endpoint", "E", "-h", "--json", "--max-bytes=1TB", "x", "--", "-keep"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCompletion(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, err := runCLI(t, "completion", sh)
		if err != nil || len(out) < 1000 || !strings.Contains(out, "ostium") {
			t.Errorf("completion %s: %v, %d bytes", sh, err, len(out))
		}
	}
	// The subcommands are what a shell completes after "ostium admin ".
	out, err := runCLI(t, "__complete", "admin", "")
	if err != nil || !strings.Contains(out, "tenant") || !strings.Contains(out, "root-key") {
		t.Errorf("completing admin: %v\n%s", err, out)
	}
}

// Against a node: flags before and after the arguments, sizes with
// units, Go-style single-dash flags, and key list showing a rotated key
// past its grace as expired.
func TestAdminAgainstANode(t *testing.T) {
	clearCredentials(t)
	srv := nodetest.Start(t, nodetest.Options{})
	t.Setenv("OSTIUM_ENDPOINT", srv.URL)
	t.Setenv("OSTIUM_ROOT_ACCESS_KEY", nodetest.AccessKey)
	t.Setenv("OSTIUM_ROOT_SECRET_KEY", nodetest.SecretKey)
	cli := func(v any, args ...string) {
		t.Helper()
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		if v != nil {
			if err := json.Unmarshal([]byte(out), v); err != nil {
				t.Fatalf("%q: %v\n%s", args, err, out)
			}
		}
	}
	cli(nil, "admin", "tenant", "create", "acme", "--display-name", "Acme")
	cli(nil, "admin", "--json", "user", "create", "acme", "alice")
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"admin", "quota", "set", "acme", "--max-bytes", "1TB", "--json"}, 1e12},
		{[]string{"admin", "--json", "quota", "set", "--max-bytes", "2GiB", "acme"}, 2 << 30},
		{[]string{"admin", "-json", "quota", "set", "acme", "-max-bytes", "1.5KB"}, 1500},
		{[]string{"admin", "--json", "quota", "set", "acme", "--max-bytes=512"}, 512},
	} {
		var q struct {
			MaxBytes int64 `json:"max_bytes"`
		}
		cli(&q, tc.args...)
		if q.MaxBytes != tc.want {
			t.Errorf("%q: max_bytes %d, want %d", tc.args, q.MaxBytes, tc.want)
		}
	}
	if _, err := runCLI(t, "admin", "quota", "set", "acme", "--max-bytes", "1 parsec"); err == nil || !strings.Contains(err.Error(), "--max-bytes") {
		t.Errorf("a wrong size: %v", err)
	}

	var old, fresh map[string]any
	cli(&old, "admin", "--json", "key", "create", "acme", "alice")
	cli(&fresh, "admin", "key", "rotate", "acme", "alice", "--grace", "1s", "--json")
	status := func() map[string]string {
		var keys []map[string]any
		cli(&keys, "admin", "--json", "key", "list", "acme", "alice")
		st := map[string]string{}
		for _, k := range keys {
			st[k["access_key"].(string)] = k["status"].(string)
		}
		return st
	}
	if st := status(); st[old["access_key"].(string)] != "active" || st[fresh["access_key"].(string)] != "active" {
		t.Errorf("in the grace period: %v", st)
	}
	time.Sleep(1100 * time.Millisecond)
	if st := status(); st[old["access_key"].(string)] != "expired" || st[fresh["access_key"].(string)] != "active" {
		t.Errorf("after the grace: %v", st)
	}
	// The table says so as well.
	out, err := runCLI(t, "admin", "key", "list", "acme", "alice")
	if err != nil || !strings.Contains(out, "expired") {
		t.Errorf("key list table: %v\n%s", err, out)
	}
}
