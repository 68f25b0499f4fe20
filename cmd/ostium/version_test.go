package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/buildinfo"
)

// The version tests build real binaries the ways they are built: with
// the linker given the version (deploy/package/build.sh), and a plain go
// build in a git checkout. They build as build.sh does (-trimpath, no
// cgo), so that the build cache serves the package smoke test too.

// moduleRoot is the repository's root, two directories up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// skipSecondPass skips the PostgreSQL pass of the suite, which runs every
// test again: no catalog is involved, so the binaries need not be
// linked a second time.
func skipSecondPass(t *testing.T) {
	if os.Getenv("OSTIUM_TEST_CATALOG") == "postgres" {
		t.Skip("builds no catalog: run in the SQLite pass")
	}
}

// buildOstium builds cmd/ostium of the module in dir into a temporary
// directory, with args given to go build, and returns the binary.
func buildOstium(t *testing.T, dir string, args ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a binary with")
	}
	bin := filepath.Join(t.TempDir(), "ostium")
	cmd := exec.Command(goBin, append(append([]string{"build", "-trimpath", "-o", bin}, args...), "./cmd/ostium")...)
	cmd.Dir = dir
	// GOFLAGS may hold -buildvcs=false (a machine's go env); the flags
	// each test gives are the ones that count.
	cmd.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, out)
	}
	return bin
}

// runVersion runs `bin version` and `bin version --json`.
func runVersion(t *testing.T, bin string) (string, buildinfo.Info) {
	t.Helper()
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("ostium version: %v", err)
	}
	js, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("ostium version --json: %v", err)
	}
	var in buildinfo.Info
	if err := json.Unmarshal(js, &in); err != nil {
		t.Fatalf("ostium version --json: %v\n%s", err, js)
	}
	return strings.TrimSpace(string(out)), in
}

func platform() string { return runtime.GOOS + "/" + runtime.GOARCH }

// A release build says what its build script gave the linker, whatever
// the toolchain knows.
func TestVersionFromLdflags(t *testing.T) {
	skipSecondPass(t)
	const pkg = "github.com/ostiumio/ostium/internal/buildinfo"
	const commit = "0123456789abcdef0123456789abcdef01234567"
	bin := buildOstium(t, moduleRoot(t), "-buildvcs=false", "-ldflags",
		"-X "+pkg+".version=9.8.7 -X "+pkg+".commit="+commit+" -X "+pkg+".date=2026-01-02T03:04:05Z -X "+pkg+".modified=false")
	line, in := runVersion(t, bin)
	want := "ostium 9.8.7 (commit 0123456789ab, 2026-01-02T03:04:05Z, " + runtime.Version() + ", " + platform() + ")"
	if line != want {
		t.Errorf("ostium version:\n got %s\nwant %s", line, want)
	}
	if in.Version != "9.8.7" || in.Commit != commit || in.Date != "2026-01-02T03:04:05Z" || in.Modified || in.Source != "ldflags" || in.Platform != platform() {
		t.Errorf("ostium version --json: %+v", in)
	}
}

// A plain go build in a git checkout says the commit, its time and
// whether the tree had changes, as the toolchain stamped them; the
// version is the module's pseudo-version of that commit. The checkout
// is a copy of this tree committed at a known time (the toolchain
// stamps only a checkout whose .git is a directory, not a worktree's).
func TestVersionFromBuildInfo(t *testing.T) {
	skipSecondPass(t)
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to make a checkout with")
	}
	dir := copyTree(t, moduleRoot(t), gitBin)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2020-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2020-01-02T03:04:05Z",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "version test")
	head := git("rev-parse", "HEAD")

	line, in := runVersion(t, buildOstium(t, dir, "-buildvcs=true"))
	pseudo := "v0.0.0-20200102030405-" + head[:12]
	want := "ostium " + pseudo + " (commit " + head[:12] + ", 2020-01-02T03:04:05Z, " + runtime.Version() + ", " + platform() + ")"
	if line != want {
		t.Errorf("clean checkout: ostium version:\n got %s\nwant %s", line, want)
	}
	if in.Version != pseudo || in.Commit != head || in.Date != "2020-01-02T03:04:05Z" || in.Modified || in.Source != "buildinfo" {
		t.Errorf("clean checkout: ostium version --json: %+v", in)
	}

	// A change not committed: the same commit, marked dirty.
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	line, in = runVersion(t, buildOstium(t, dir, "-buildvcs=true"))
	if !strings.Contains(line, "(commit "+head[:12]+"+dirty, 2020-01-02T03:04:05Z,") || !in.Modified || in.Commit != head {
		t.Errorf("changed checkout: ostium version: %s\n%+v", line, in)
	}
}

// A build that recorded nothing says so: never a bare "dev" that looks
// like a version.
func TestVersionWithoutInformation(t *testing.T) {
	skipSecondPass(t)
	line, in := runVersion(t, buildOstium(t, moduleRoot(t), "-buildvcs=false"))
	want := "ostium devel (commit unknown, unknown, " + runtime.Version() + ", " + platform() + ")"
	if line != want {
		t.Errorf("ostium version:\n got %s\nwant %s", line, want)
	}
	if in.Source != "none" || in.Commit != buildinfo.Unknown {
		t.Errorf("ostium version --json: %+v", in)
	}
}

// copyTree copies the files git would commit from root (tracked, and
// untracked but not ignored: the tree as it is being worked on) into a
// new directory.
func copyTree(t *testing.T, root, gitBin string) string {
	t.Helper()
	cmd := exec.Command(gitBin, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("%s is not a git checkout: %v", root, err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the tree, or a link
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
