package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PGCluster is a PostgreSQL cluster managed by Patroni, as a provider runs
// the catalog for nodes that must outlive its primary: an etcd member as
// Patroni's store, and Patroni members each running a PostgreSQL server,
// with synchronous replication, all on loopback.
type PGCluster struct {
	t       testing.TB
	dir     string
	patroni string
	as      []string
	etcd    *exec.Cmd
	members []*member
}

type member struct {
	name        string
	pgPort, api int
	config      string
	cmd         *exec.Cmd
	log         *os.File
}

// Patroni starts an etcd member and n Patroni members (the first
// bootstraps the cluster, the others join it as replicas) and waits until
// the cluster has a leader and a synchronous standby. It is skipped unless
// OSTIUM_TEST_PATRONI names the patroni program (.ci/run installs it, with
// etcd and PostgreSQL's server).
func Patroni(t testing.TB, n int) *PGCluster {
	t.Helper()
	prog := os.Getenv("OSTIUM_TEST_PATRONI")
	if prog == "" {
		t.Skip("OSTIUM_TEST_PATRONI is not set")
	}
	if os.Getenv("OSTIUM_TEST_CATALOG") == "postgres" {
		t.Skip("brings its own servers: runs once, in the pass that leaves the catalog to each test")
	}
	// Asked for by name, the cluster fails the test where a part is missing.
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatal("OSTIUM_TEST_PATRONI is set but etcd is not installed")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Fatal("OSTIUM_TEST_PATRONI is set but PostgreSQL's server is not installed (/usr/lib/postgresql/*/bin)")
	}
	sort.Strings(bins)
	c := &PGCluster{t: t, patroni: prog}
	c.dir, c.as = serverDir(t)
	t.Cleanup(c.stop)

	clientPort, peerPort := freePort(t), freePort(t)
	c.etcd = exec.Command(etcd, "--name", "e0", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", clientPort),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", clientPort),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", peerPort),
		"--initial-cluster", fmt.Sprintf("e0=http://127.0.0.1:%d", peerPort))
	c.etcd.Stdout, c.etcd.Stderr = logFile(t, c.dir, "etcd.log"), logFile(t, c.dir, "etcd.log")
	if err := c.etcd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		m := &member{name: fmt.Sprintf("pg%d", i), pgPort: freePort(t), api: freePort(t)}
		m.config = filepath.Join(c.dir, m.name+".yml")
		if err := os.WriteFile(m.config, []byte(patroniConfig(m, c.dir, filepath.Dir(bins[len(bins)-1]), clientPort)), 0o644); err != nil {
			t.Fatal(err)
		}
		c.members = append(c.members, m)
		c.Start(m.name)
		if i == 0 { // the others join once it leads
			c.WaitLeader(60 * time.Second)
		}
	}
	c.WaitSync(90 * time.Second)
	return c
}

func patroniConfig(m *member, dir, bin string, etcdPort int) string {
	return fmt.Sprintf(`scope: ostium-test
name: %[1]s
log: {level: WARNING}
restapi: {listen: "127.0.0.1:%[2]d", connect_address: "127.0.0.1:%[2]d"}
etcd3: {hosts: "127.0.0.1:%[3]d"}
bootstrap:
  dcs:
    ttl: 20
    loop_wait: 1
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        synchronous_commit: "on"
        wal_log_hints: "on"
        max_connections: 100
        max_wal_senders: 10
        max_replication_slots: 10
  initdb: [{encoding: UTF8}, {auth: trust}]
  pg_hba:
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: "127.0.0.1:%[4]d"
  connect_address: "127.0.0.1:%[4]d"
  data_dir: %[5]s/%[1]s
  bin_dir: %[6]s
  pgpass: %[5]s/%[1]s.pgpass
  authentication:
    superuser: {username: postgres, password: postgres}
    replication: {username: replicator, password: replicator}
  parameters: {unix_socket_directories: "%[5]s", fsync: "off"}
`, m.name, m.api, etcdPort, m.pgPort, dir, bin)
}

// URL names every member with target_session_attrs=read-write: a node
// connects to whichever is the primary, as deploy/ describes.
func (c *PGCluster) URL() string {
	var hosts []string
	for _, m := range c.members {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", m.pgPort))
	}
	return "postgres://postgres:postgres@" + strings.Join(hosts, ",") + "/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2"
}

func (c *PGCluster) member(name string) *member {
	for _, m := range c.members {
		if m.name == name {
			return m
		}
	}
	c.t.Fatalf("no member %s", name)
	return nil
}

// Start starts a member's Patroni (again, after Kill).
func (c *PGCluster) Start(name string) {
	c.t.Helper()
	m := c.member(name)
	argv := append(append([]string{}, c.as...), c.patroni, m.config)
	m.cmd = exec.Command(argv[0], argv[1:]...)
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Kill takes Patroni and its server together
	m.cmd.Stdout, m.cmd.Stderr = logFile(c.t, c.dir, name+".log"), logFile(c.t, c.dir, name+".log")
	if err := m.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
}

// Kill kills a member's Patroni and PostgreSQL with SIGKILL, as the loss
// of its machine would.
func (c *PGCluster) Kill(name string) {
	c.t.Helper()
	m := c.member(name)
	syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	m.cmd.Wait()
	// The server's processes are in the group, but make sure.
	if b, err := os.ReadFile(filepath.Join(c.dir, name, "postmaster.pid")); err == nil {
		if pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0]); err == nil {
			for _, p := range append(childrenOf(pid), pid) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
}

// Member is one member as Patroni's REST API tells it.
type Member struct {
	Name  string `json:"name"`
	Role  string `json:"role"` // leader, sync_standby, replica
	State string `json:"state"`
}

// Members asks the first member that answers for the cluster's members.
func (c *PGCluster) Members() []Member {
	for _, m := range c.members {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/cluster", m.api), nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var out struct{ Members []Member }
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			cancel()
			if err == nil {
				return out.Members
			}
			continue
		}
		cancel()
	}
	return nil
}

// Leader is the running leader's name, "" while there is none.
func (c *PGCluster) Leader() string {
	for _, m := range c.Members() {
		if m.Role == "leader" && m.State == "running" {
			return m.Name
		}
	}
	return ""
}

// WaitLeader waits for a running leader other than not ("" = any) and
// returns its name.
func (c *PGCluster) WaitLeader(within time.Duration, not ...string) string {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if l := c.Leader(); l != "" && (len(not) == 0 || l != not[0]) {
			return l
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no leader within %v: %+v\n%s", within, c.Members(), c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// WaitSync waits for a synchronous standby that is streaming.
func (c *PGCluster) WaitSync(within time.Duration) string {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		for _, m := range c.Members() {
			if m.Role == "sync_standby" && (m.State == "streaming" || m.State == "running") {
				return m.Name
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no synchronous standby within %v: %+v\n%s", within, c.Members(), c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Switchover asks Patroni to hand the leadership from the leader to
// candidate, as an operator does for maintenance.
func (c *PGCluster) Switchover(leader, candidate string) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]string{"leader": leader, "candidate": candidate})
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/switchover", c.member(leader).api), "application/json", bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		c.t.Fatalf("switchover: %s: %s", resp.Status, b.String())
	}
}

func (c *PGCluster) logs() string {
	var out strings.Builder
	for _, m := range c.members {
		b, _ := os.ReadFile(filepath.Join(c.dir, m.name+".log"))
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		fmt.Fprintf(&out, "--- %s\n%s\n", m.name, b)
	}
	return out.String()
}

func (c *PGCluster) stop() {
	for _, m := range c.members {
		if m.cmd != nil && m.cmd.Process != nil {
			syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
			m.cmd.Wait()
		}
		if b, err := os.ReadFile(filepath.Join(c.dir, m.name, "postmaster.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0]); err == nil {
				for _, p := range append(childrenOf(pid), pid) {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}
	}
	if c.etcd != nil && c.etcd.Process != nil {
		c.etcd.Process.Kill()
		c.etcd.Wait()
	}
}

func logFile(t testing.TB, dir, name string) *os.File {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
