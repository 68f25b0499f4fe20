// Command flood measures what an anonymous flood costs a tenant: a
// tenant's small GETs (p50, p99, errors) on an idle node, then while
// 1,000 anonymous connections trickle request bodies and 300 anonymous
// 2 MiB XML bodies are in flight, and the node's peak RSS (VmHWM of the
// `ostium serve` process). A benchmark, not a test: it prints figures
// and asserts nothing.
//
//	go run ./bench/flood                 # SQLite catalog, 20 s per phase
//	go run ./bench/flood -catalog postgres://... -d 30s
//
// bench/README.md records its results.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/admin"
)

const (
	rootKey    = "FLOODBENCHROOTKEY000"
	rootSecret = "flood-bench-root-secret-0123456789abcdef"
)

func main() {
	bin := flag.String("bin", "", "ostium binary (default: go build ./cmd/ostium)")
	catalog := flag.String("catalog", "", "catalog URL (default: SQLite in a fresh data directory)")
	dur := flag.Duration("d", 20*time.Second, "length of each phase")
	getters := flag.Int("getters", 8, "the tenant's concurrent GET clients")
	trickles := flag.Int("trickles", 1000, "anonymous connections trickling a body")
	xmls := flag.Int("xml", 300, "anonymous 2 MiB XML bodies in flight")
	public := flag.Bool("public", false, "let anyone write to the bucket the trickles go to, so that their bodies are read")
	extra := flag.String("config", "", "YAML lines added to the node's configuration (e.g. \"max_requests: 512\")")
	flag.Parse()
	log.SetFlags(0)

	dir, err := os.MkdirTemp("", "ostium-flood-")
	check(err)
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "ostium")
		build := exec.Command("go", "build", "-o", *bin, "./cmd/ostium")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		check(build.Run())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	addr := ln.Addr().String()
	ln.Close()
	cfg := fmt.Sprintf("listen: %q\nconsole_listen: \"off\"\ndata: %q\n", addr, filepath.Join(dir, "data"))
	if *catalog != "" {
		cfg += fmt.Sprintf("catalog: %q\n", *catalog)
	}
	cfg += *extra + "\n"
	check(os.WriteFile(filepath.Join(dir, "ostium.yaml"), []byte(cfg), 0o600))
	srv := exec.Command(*bin, "serve", "--config", filepath.Join(dir, "ostium.yaml"), "--log-level", "warn")
	// Its own configuration directory: the node key is made there.
	srv.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"OSTIUM_ROOT_ACCESS_KEY="+rootKey, "OSTIUM_ROOT_SECRET_KEY="+rootSecret)
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	check(srv.Start())
	defer srv.Process.Kill()
	url := "http://" + addr
	waitReady(url)

	// The tenant: acme, its admin's key, a bucket of 64 objects of 4 KiB.
	ctx := context.Background()
	ad := admin.NewClient(url, rootKey, rootSecret, http.DefaultClient)
	check(ad.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil))
	check(ad.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil))
	var k admin.Key
	check(ad.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k))
	cred := aws.Credentials{AccessKeyID: k.AccessKey, SecretAccessKey: k.SecretKey}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *getters}}
	mustDo(hc, sign(cred, "PUT", url+"/acme-data", nil), 200)
	mustDo(hc, sign(cred, "PUT", url+"/acme-drop", nil), 200)
	if *public {
		mustDo(hc, sign(cred, "DELETE", url+"/acme-drop?publicAccessBlock", nil), 204)
		mustDo(hc, sign(cred, "PUT", url+"/acme-drop?policy",
			[]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::acme-drop/*"}]}`)), 204)
	}
	const objects = 64
	for i := range objects {
		mustDo(hc, sign(cred, "PUT", fmt.Sprintf("%s/acme-data/o%d", url, i), bytes.Repeat([]byte{byte(i)}, 4<<10)), 200)
	}
	gets := func() stats { return getLoad(hc, cred, url, *getters, objects, *dur) }

	log.Printf("machine load average before: %s", loadavg())
	idle := gets()
	log.Printf("idle:   %s", idle)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answers sync.Map // "trickle 403" -> *atomic.Int64
	count := func(what string, status int) {
		c, _ := answers.LoadOrStore(what+" "+strconv.Itoa(status), new(atomic.Int64))
		c.(*atomic.Int64).Add(1)
	}
	for i := range *trickles {
		wg.Add(1)
		go func() { defer wg.Done(); trickle(addr, fmt.Sprintf("/acme-drop/t%d", i), stop, count) }()
	}
	xmlBody := deleteXML(2 << 20)
	for range *xmls {
		wg.Add(1)
		go func() { defer wg.Done(); postXML(addr, "/acme-data?delete", xmlBody, stop, count) }()
	}
	time.Sleep(5 * time.Second) // let the flood build up
	nodeCPU0, selfCPU0, wall0 := cpu(srv.Process.Pid), cpu(os.Getpid()), time.Now()
	loaded := gets()
	nodeCPU, selfCPU, wall := cpu(srv.Process.Pid)-nodeCPU0, cpu(os.Getpid())-selfCPU0, time.Since(wall0)
	log.Printf("loaded: %s", loaded)
	ready := readiness(url)
	hwm, rss := memory(srv.Process.Pid)
	close(stop)
	wg.Wait()

	log.Printf("machine load average after: %s", loadavg())
	log.Printf("CPU during the loaded phase (cores): node %.2f, this program (the flood and the GETs) %.2f",
		nodeCPU.Seconds()/wall.Seconds(), selfCPU.Seconds()/wall.Seconds())
	log.Printf("readiness under the flood: %s", ready)
	log.Printf("node memory: peak RSS (VmHWM) %d MiB, RSS at the end of the load %d MiB", hwm>>10, rss>>10)
	var keys []string
	answers.Range(func(k, _ any) bool { keys = append(keys, k.(string)); return true })
	slices.Sort(keys)
	for _, key := range keys {
		v, _ := answers.Load(key)
		log.Printf("flood answers: %s: %d", key, v.(*atomic.Int64).Load())
	}
	fmt.Printf("| %s | %s | %.2f | %s | %.2f | %d | %d MiB |\n",
		ms(idle.p50), ms(loaded.p50), float64(loaded.p50)/float64(idle.p50),
		ms(loaded.p99)+" (idle "+ms(idle.p99)+")", float64(loaded.p99)/float64(idle.p99), loaded.errors, hwm>>10)
}

// stats are a phase's GET latencies.
type stats struct {
	n, errors int
	p50, p99  time.Duration
}

func (s stats) String() string {
	return fmt.Sprintf("%d GETs, %d errors, p50 %s, p99 %s", s.n, s.errors, ms(s.p50), ms(s.p99))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// getLoad runs n clients GETting 4 KiB objects for d.
func getLoad(hc *http.Client, cred aws.Credentials, url string, n, objects int, d time.Duration) stats {
	var mu sync.Mutex
	var lat []time.Duration
	errors := 0
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; time.Now().Before(end); i += n {
				req := sign(cred, "GET", fmt.Sprintf("%s/acme-data/o%d", url, i%objects), nil)
				start := time.Now()
				resp, err := hc.Do(req)
				ok := err == nil
				if ok {
					b, rerr := io.ReadAll(resp.Body)
					resp.Body.Close()
					ok = rerr == nil && resp.StatusCode == 200 && len(b) == 4<<10
				}
				took := time.Since(start)
				mu.Lock()
				lat = append(lat, took)
				if !ok {
					errors++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return stats{n: len(lat), errors: errors, p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}
}

// trickle keeps a connection sending a PUT body of 1 MiB a few bytes a
// second; when the node answers or closes, it opens another.
func trickle(addr, path string, stop chan struct{}, count func(string, int)) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			count("trickle dial-error", 0)
			time.Sleep(time.Second)
			continue
		}
		fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n", path, addr, 1<<20)
		status := make(chan int, 1)
		go func() { status <- readStatus(conn) }()
		t := time.NewTicker(500 * time.Millisecond)
	send:
		for {
			select {
			case <-stop:
				conn.Close()
				t.Stop()
				return
			case st := <-status:
				count("trickle", st)
				break send
			case <-t.C:
				if _, err := conn.Write([]byte("xxxxxxxx")); err != nil {
					count("trickle write-error", 0)
					break send
				}
			}
		}
		t.Stop()
		conn.Close()
	}
}

// postXML keeps sending an anonymous XML body at full speed.
func postXML(addr, path string, body []byte, stop chan struct{}, count func(string, int)) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			count("xml dial-error", 0)
			time.Sleep(time.Second)
			continue
		}
		status := make(chan int, 1)
		go func() { status <- readStatus(conn) }()
		go func() {
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n\r\n", path, addr, len(body))
			conn.Write(body)
		}()
		select {
		case <-stop:
			conn.Close()
			return
		case st := <-status:
			count("xml", st)
		}
		conn.Close()
	}
}

// readStatus reads a response's status (0: the connection ended first).
func readStatus(conn net.Conn) int {
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// deleteXML is a DeleteObjects body of about size bytes.
func deleteXML(size int) []byte {
	var b bytes.Buffer
	b.WriteString("<Delete>")
	for i := 0; b.Len() < size-20; i++ {
		fmt.Fprintf(&b, "<Object><Key>k%08d</Key></Object>", i)
	}
	b.WriteString("</Delete>")
	return b.Bytes()
}

func sign(cred aws.Credentials, method, url string, body []byte) *http.Request {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	check(err)
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	req.Header.Set("X-Amz-Content-Sha256", hash)
	check(v4.NewSigner().SignHTTP(context.Background(), cred, req, hash, "s3", "us-east-1", time.Now()))
	return req
}

func mustDo(hc *http.Client, req *http.Request, want int) {
	resp, err := hc.Do(req)
	check(err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want && !(want == 204 && resp.StatusCode == 200) {
		log.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, b)
	}
}

func waitReady(url string) {
	for range 300 {
		if resp, err := http.Get(url + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatal("the node did not become ready")
}

func readiness(url string) string {
	resp, err := http.Get(url + "/health/ready")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// loadavg is the machine's, which other work on a shared machine moves.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// cpu is the user and system time pid has used.
func cpu(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	check(err)
	// Fields after the command's closing parenthesis: utime and stime are
	// the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// memory reads the peak and current resident set of pid, in KiB.
func memory(pid int) (hwm, rss int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			hwm = n
		case "VmRSS:":
			rss = n
		}
	}
	return hwm, rss
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
