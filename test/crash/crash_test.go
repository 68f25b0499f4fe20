// Package crash proves the write protocol: a server killed with SIGKILL in
// the middle of many uploads and deletes loses no acknowledged object or
// version, shows no partial one, and its collector and sweeper leave no
// orphan blob on disk.
package crash

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/testenv"
)

const (
	accessKey = "CRASHTESTROOTKEY0000"
	secretKey = "crash-test-root-secret-0123456789abcdefg"
	bucket    = "crash"
	versioned = "crash-versions"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ostium-crash")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "ostium")
	// The servers make their node key in the user's configuration
	// directory: this suite's own, not the real user's.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	out, err := exec.Command("go", "build", "-o", binary, "../../cmd/ostium").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build ostium: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// content derives an object's bytes from its key and generation, so any
// visible object can be checked without remembering what was sent.
func content(key string, gen int) []byte {
	seed := uint64(gen)
	for _, c := range key {
		seed = seed*31 + uint64(c)
	}
	r := rand.New(rand.NewPCG(seed, 7))
	n := 1 + r.IntN(256<<10)
	b := make([]byte, n+16)
	copy(b, fmt.Sprintf("%-16d", gen))
	for i := 16; i < len(b); i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

type server struct {
	cmd    *exec.Cmd
	addr   string
	exited chan struct{} // closed when cmd has exited
}

// start runs a node on a free port and waits until it answers its
// liveness check. A port is only free until another process takes it:
// then the node exits, and another port is tried.
func start(t *testing.T, data, catalog string, extra ...string) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, err := startOn(t, data, catalog, extra)
		if err == nil {
			return s
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v", attempt, err)
	}
}

func startOn(t *testing.T, data, catalog string, extra []string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append([]string{"serve", "--listen", addr, "--console-listen", "127.0.0.1:0", "--data", data}, extra...)
	if catalog != "" {
		args = append(args, "--catalog", catalog)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "OSTIUM_ROOT_ACCESS_KEY="+accessKey, "OSTIUM_ROOT_SECRET_KEY="+secretKey)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, addr: addr, exited: make(chan struct{})}
	logged := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("server:", sc.Text())
		}
		close(logged)
	}()
	go func() { <-logged; cmd.Wait(); close(s.exited) }()
	// The node's own answer, not any listener's: another process may
	// hold the port.
	hc := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("the server exited before it served on %s (its port taken?)", addr)
		default:
		}
		if resp, err := hc.Get("http://" + addr + "/health/live"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("the server did not serve on %s within 30 s", addr)
		}
	}
}

func (s *server) kill() {
	s.cmd.Process.Signal(os.Kill)
	<-s.exited
}

func client(addr string) *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://" + addr), UsePathStyle: true,
		Credentials:      credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		HTTPClient:       &http.Client{Timeout: 30 * time.Second},
		RetryMaxAttempts: 1,
	})
}

func TestCrashDuringUploads(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test starts real servers")
	}
	rounds := 3
	for round := 0; round < rounds; round++ {
		t.Run(fmt.Sprintf("round%d", round), func(t *testing.T) { crashRound(t, int64(round)) })
	}
}

func crashRound(t *testing.T, round int64) {
	data := t.TempDir()
	catalog := testenv.CatalogURL(t)
	srv := start(t, data, catalog)
	ctx := context.Background()
	c := client(srv.addr)
	for _, b := range []string{bucket, versioned} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(versioned),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	if err != nil {
		t.Fatal(err)
	}
	// The overwritten bucket is encrypted at rest by default (SSE-S3): a
	// kill mid-write must leave no partly sealed object either.
	_, err = c.PutBucketEncryption(ctx, &s3.PutBucketEncryptionInput{Bucket: aws.String(bucket),
		ServerSideEncryptionConfiguration: &types.ServerSideEncryptionConfiguration{Rules: []types.ServerSideEncryptionRule{{
			ApplyServerSideEncryptionByDefault: &types.ServerSideEncryptionByDefault{SSEAlgorithm: types.ServerSideEncryptionAes256}}}}})
	if err != nil {
		t.Fatal(err)
	}

	// 16 writers overwrite 64 keys, each writer its own 4 keys: writes to
	// one key never overlap, so generation order is commit order and the
	// latest acknowledged generation is the least a key may show.
	var mu sync.Mutex
	acked := map[string]int{} // key -> latest acknowledged generation
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for gen := 1; ; gen++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("k%02d", w*4+gen%4)
				g := gen*100 + w
				_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(content(key, g))})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked[key] = max(acked[key], g)
				mu.Unlock()
			}
		}(w)
	}
	// 8 more writers each add versions to 2 keys of a versioned bucket,
	// and every third operation deletes (a delete marker).
	vacked := map[string][]op{} // key -> acknowledged operations in order
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for gen := 1; ; gen++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("v%02d", w*2+gen%2)
				o := op{gen: gen*100 + w}
				if gen%3 == 0 {
					out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(versioned), Key: aws.String(key)})
					if err != nil {
						return
					}
					o.id, o.marker = aws.ToString(out.VersionId), true
				} else {
					out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(versioned), Key: aws.String(key), Body: bytes.NewReader(content(key, o.gen))})
					if err != nil {
						return
					}
					o.id = aws.ToString(out.VersionId)
				}
				mu.Lock()
				vacked[key] = append(vacked[key], o)
				mu.Unlock()
			}
		}(w)
	}
	time.Sleep(time.Duration(1500+rand.IntN(1500)) * time.Millisecond)
	srv.kill()
	close(stop)
	wg.Wait()
	if len(acked) == 0 || len(vacked) == 0 {
		t.Fatal("no upload was acknowledged before the kill")
	}

	// Restart with fast collection and sweeping.
	srv = start(t, data, catalog, "--gc-interval", "200ms", "--sweep-interval", "500ms", "--sweep-grace", "1s")
	defer srv.kill()
	c = client(srv.addr)
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	visible := map[string]bool{}
	withBlob := 0 // objects too large to live inline in the catalog
	for _, o := range list.Contents {
		visible[*o.Key] = true
		if *o.Size > objects.InlineMax {
			withBlob++
		}
	}
	for key, g := range acked {
		if !visible[key] {
			t.Errorf("acknowledged %s (generation %d) is gone", key, g)
		}
	}
	for key := range visible {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		if err != nil {
			t.Fatalf("get %s: %v", key, err)
		}
		body, err := io.ReadAll(out.Body)
		out.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out.ServerSideEncryption != types.ServerSideEncryptionAes256 {
			t.Errorf("%s is not encrypted at rest (%q)", key, out.ServerSideEncryption)
		}
		var g int
		fmt.Sscanf(string(body[:min(16, len(body))]), "%d", &g)
		if !bytes.Equal(body, content(key, g)) {
			t.Errorf("%s is not a complete object of any generation (%d bytes)", key, len(body))
		}
		// A visible object is the acknowledged one or one in flight at the
		// kill: never older than what was acknowledged.
		if g < acked[key] {
			t.Errorf("%s shows generation %d, older than acknowledged %d", key, g, acked[key])
		}
		if _, ok := acked[key]; !ok && g == 0 {
			t.Errorf("%s visible but never written", key)
		}
	}
	withBlob += checkVersions(t, c, vacked)

	// Eventually exactly one blob per visible object held in a blob remains.
	deadline := time.Now().Add(60 * time.Second)
	for {
		n := countBlobs(t, filepath.Join(data, "blobs"))
		if n == withBlob {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d blobs on disk for %d objects held in blobs: orphans were not collected", n, withBlob)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// op is an acknowledged write to the versioned bucket: a version of
// generation gen, or a delete marker.
type op struct {
	id     string
	gen    int
	marker bool
}

// checkVersions checks the versioned bucket after the restart: every
// acknowledged version and delete marker is there, in the order it was
// acknowledged, each version whole; past a key's last acknowledged
// operation there is at most the one in flight at the kill. It returns
// how many versions are held in blobs.
func checkVersions(t *testing.T, c *s3.Client, acked map[string][]op) int {
	t.Helper()
	ctx := context.Background()
	type entry struct {
		id     string
		marker bool
		size   int64
	}
	listed := map[string][]entry{} // newest first
	p := s3.NewListObjectVersionsPaginator(c, &s3.ListObjectVersionsInput{Bucket: aws.String(versioned)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The SDK splits a page into versions and markers; the order of a
		// key's entries is taken from GETs below, not from here.
		for _, v := range page.Versions {
			listed[*v.Key] = append(listed[*v.Key], entry{*v.VersionId, false, *v.Size})
		}
		for _, m := range page.DeleteMarkers {
			listed[*m.Key] = append(listed[*m.Key], entry{*m.VersionId, true, 0})
		}
	}
	withBlob := 0
	for key, es := range listed {
		have := map[string]entry{}
		for _, e := range es {
			have[e.id] = e
			if e.marker {
				continue
			}
			if e.size > objects.InlineMax {
				withBlob++
			}
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(versioned), Key: aws.String(key), VersionId: aws.String(e.id)})
			if err != nil {
				t.Fatalf("get %s@%s: %v", key, e.id, err)
			}
			body, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			var g int
			fmt.Sscanf(string(body[:min(16, len(body))]), "%d", &g)
			if !bytes.Equal(body, content(key, g)) {
				t.Errorf("%s@%s is not a complete version of any generation (%d bytes)", key, e.id, len(body))
			}
		}
		ops := acked[key]
		for _, o := range ops {
			e, ok := have[o.id]
			switch {
			case !ok:
				t.Errorf("acknowledged %s@%s (marker %v, generation %d) is gone", key, o.id, o.marker, o.gen)
			case e.marker != o.marker:
				t.Errorf("%s@%s: marker %v, acknowledged as marker %v", key, o.id, e.marker, o.marker)
			}
		}
		if extra := len(es) - len(ops); extra < 0 || extra > 1 {
			t.Errorf("%s holds %d entries for %d acknowledged operations", key, len(es), len(ops))
		}
		// The current version is the last acknowledged operation or the
		// one in flight after it.
		if len(ops) == 0 {
			continue
		}
		last := ops[len(ops)-1]
		out, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(versioned), Key: aws.String(key)})
		cur := ""
		if err == nil {
			cur = aws.ToString(out.VersionId)
		}
		if cur != last.id && len(es) == len(ops) && !(last.marker && err != nil) {
			t.Errorf("%s: current %q (%v), want the last acknowledged %s", key, cur, err, last.id)
		}
	}
	for key := range acked {
		if _, ok := listed[key]; !ok {
			t.Errorf("every version of %s is gone", key)
		}
	}
	return withBlob
}

func countBlobs(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
