package testenv

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGServer is a PostgreSQL server of a test's own, on a loopback port,
// which the test may restart, stop and kill (the shared server of
// OSTIUM_TEST_POSTGRES serves other tests at once).
type PGServer struct {
	t        testing.TB
	bin, dir string
	port     int
	as       []string // runs a command as the server's user
}

// PrivatePostgres initialises and starts a PostgreSQL server for the
// test, stopped when it ends. It is skipped where the server is not
// installed, or where OSTIUM_TEST_POSTGRES is unset (a machine set up
// without PostgreSQL).
func PrivatePostgres(t testing.TB) *PGServer {
	t.Helper()
	if PostgresURL() == "" {
		t.Skip("OSTIUM_TEST_POSTGRES is not set")
	}
	if os.Getenv("OSTIUM_TEST_CATALOG") == "postgres" {
		t.Skip("brings its own server: runs once, in the pass that leaves the catalog to each test")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("PostgreSQL's server is not installed (/usr/lib/postgresql/*/bin)")
	}
	sort.Strings(bins)
	p := &PGServer{t: t, bin: filepath.Dir(bins[len(bins)-1])}
	p.dir, p.as = serverDir(t)
	p.port = freePort(t)
	p.run("initdb", "-D", p.data(), "-A", "trust", "-U", "postgres", "--no-sync")
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nmax_connections = 60\n", p.port, p.dir)
	if err := os.WriteFile(filepath.Join(p.data(), "postgresql.auto.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p.Start()
	t.Cleanup(func() { p.pgctl("stop", "-m", "immediate") })
	return p
}

// serverDir makes a directory for PostgreSQL's files, removed when the
// test ends, and tells how to run a command as the user who may own them:
// PostgreSQL refuses to run as root, so a test run as root runs it as
// postgres. It is outside t.TempDir, whose 0700 parents that user could
// not enter.
func serverDir(t testing.TB) (dir string, as []string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "ostium-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() != 0 {
		return dir, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("running as root and no postgres user to run the server as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return dir, []string{"runuser", "-u", "postgres", "--"}
}

func (p *PGServer) data() string { return filepath.Join(p.dir, "data") }

// URL is the server's database for the test.
func (p *PGServer) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

func (p *PGServer) run(name string, args ...string) {
	p.t.Helper()
	argv := append(append(append([]string{}, p.as...), filepath.Join(p.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		p.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
}

func (p *PGServer) pgctl(args ...string) {
	p.t.Helper()
	p.run("pg_ctl", append([]string{"-D", p.data(), "-l", filepath.Join(p.dir, "log"), "-w"}, args...)...)
}

// CtlCommand is the shell command line of pg_ctl with args on this
// server, as the test's user may run it: a fault command for a workload.
func (p *PGServer) CtlCommand(args ...string) string {
	argv := append(append([]string{}, p.as...), filepath.Join(p.bin, "pg_ctl"), "-D", p.data(), "-l", filepath.Join(p.dir, "log"))
	var q []string
	for _, a := range append(argv, args...) {
		q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}

// Start starts the server and waits until it accepts connections.
func (p *PGServer) Start() {
	p.t.Helper()
	p.pgctl("start")
	p.WaitReady(30 * time.Second)
}

// Restart is `pg_ctl restart -m mode` (fast: sessions are ended).
func (p *PGServer) Restart(mode string) {
	p.t.Helper()
	p.pgctl("restart", "-m", mode)
}

// Kill kills the server and its processes with SIGKILL, as a crash of
// its machine would; Start brings it back through crash recovery.
func (p *PGServer) Kill() {
	p.t.Helper()
	b, err := os.ReadFile(filepath.Join(p.data(), "postmaster.pid"))
	if err != nil {
		p.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		p.t.Fatal(err)
	}
	children := childrenOf(pid)
	syscall.Kill(pid, syscall.SIGKILL)
	for _, c := range children {
		syscall.Kill(c, syscall.SIGKILL)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil && !anyAlive(children) {
			return
		}
	}
	p.t.Fatal("postgres did not die")
}

// WaitReady waits until the server takes a query.
func (p *PGServer) WaitReady(within time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, p.URL())
		if err == nil {
			err = c.Ping(ctx)
			c.Close(ctx)
		}
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("postgres on port %d not ready: %v", p.port, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after ")".
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, c)
		}
	}
	return out
}

func anyAlive(pids []int) bool {
	for _, p := range pids {
		if syscall.Kill(p, 0) == nil {
			return true
		}
	}
	return false
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
