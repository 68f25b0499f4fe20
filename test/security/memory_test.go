package security_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/admin"
)

// Memory is bounded for authenticated callers too: request documents
// are parsed as they stream, within a node-wide budget that no tenant
// can exhaust. Measured on a real `ostium serve` process, whose peak
// resident memory (VmHWM) the kernel keeps.

const (
	memAccessKey = "MEMTESTROOTKEY000000"
	memSecretKey = "mem-test-root-secret-0123456789abcdefgh"
)

// serveBinary builds cmd/ostium and starts `ostium serve` on a data
// directory of its own; it returns the endpoint and the process.
func serveBinary(t *testing.T) (string, *os.Process) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "ostium")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/ostium").CombinedOutput(); err != nil {
		t.Fatalf("build ostium: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--listen", addr, "--console-listen", "127.0.0.1:0", "--data", filepath.Join(dir, "data"))
	// Its own configuration directory: the node key is made there.
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"OSTIUM_ROOT_ACCESS_KEY="+memAccessKey, "OSTIUM_ROOT_SECRET_KEY="+memSecretKey)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if !strings.Contains(sc.Text(), " INFO ") {
				t.Log("server:", sc.Text())
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("ostium serve did not start listening")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr, cmd.Process
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, p *os.Process) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// signedTo signs a request for base+path whose body has the SHA-256 hash.
func signedTo(t *testing.T, base string, c creds, method, path string, body []byte, hash string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: c.AccessKey, SecretAccessKey: c.SecretKey},
		req, hash, "s3", "us-east-1", time.Now()); err != nil {
		t.Fatal(err)
	}
	return req
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// 100 CompleteMultipartUpload requests at once, each a 5 MiB document
// of 60,000 <Part> elements, all signed by one tenant's key: parsed
// whole, they took the node past 3 GB; streamed within the document
// budget, the node's peak resident memory stays under 600 MB (it is
// about 100 MB; the bound is generous). Each request is refused, as AWS
// refuses a list past 10,000 parts, or told to slow down.
func TestCompleteFloodMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts ostium serve")
	}
	base, proc := serveBinary(t)
	ctx := context.Background()
	a := admin.NewClient(base, memAccessKey, memSecretKey, &http.Client{Timeout: time.Minute})
	if err := a.Do(ctx, "POST", "/tenants", map[string]string{"name": "acme"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Do(ctx, "POST", "/tenants/acme/users", map[string]string{"name": "ann", "role": "admin"}, nil); err != nil {
		t.Fatal(err)
	}
	var k admin.Key
	if err := a.Do(ctx, "POST", "/tenants/acme/users/ann/keys", nil, &k); err != nil {
		t.Fatal(err)
	}
	u := creds{k.AccessKey, k.SecretKey}
	client := &http.Client{Timeout: 5 * time.Minute}
	send := func(req *http.Request) (int, []byte) {
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if st, b := send(signedTo(t, base, u, "PUT", "/acme-data", nil, hashOf(nil))); st != 200 {
		t.Fatalf("create bucket: %d %s", st, b)
	}
	st, b := send(signedTo(t, base, u, "POST", "/acme-data/big?uploads", nil, hashOf(nil)))
	var up struct{ UploadId string }
	if err := xml.Unmarshal(b, &up); st != 200 || err != nil {
		t.Fatalf("create upload: %d %s", st, b)
	}

	// The document: 60,000 parts in ascending order, padded to 5 MiB.
	var doc bytes.Buffer
	doc.WriteString("<CompleteMultipartUpload>")
	for i := range 60000 {
		fmt.Fprintf(&doc, `<Part><PartNumber>%d</PartNumber><ETag>"%08x"</ETag></Part>`, i+1, i)
	}
	end := "</CompleteMultipartUpload>"
	doc.WriteString(strings.Repeat(" ", 5<<20-doc.Len()-len(end)))
	doc.WriteString(end)
	body, hash := doc.Bytes(), hashOf(doc.Bytes())

	before := peakRSS(t, proc)
	const n = 100
	codes := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		req := signedTo(t, base, u, "POST", "/acme-data/big?uploadId="+up.UploadId, body, hash)
		// As SDKs send large bodies: a request refused before its body is
		// read is answered without the body being sent.
		req.Header.Set("Expect", "100-continue")
		go func() {
			defer wg.Done()
			// Each on a connection of its own, as separate clients.
			c := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: time.Minute}}
			resp, err := c.Do(req)
			switch {
			case err != nil && strings.Contains(err.Error(), "connection reset"):
				// Refused once part of the body was read (past 10,000
				// parts): the node closes the connection rather than
				// read the rest, which the client may see first.
				codes[i] = "reset"
				return
			case err != nil:
				codes[i] = "error: " + err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e s3Error
			_ = xml.Unmarshal(b, &e)
			codes[i] = fmt.Sprintf("%d %s", resp.StatusCode, e.Code)
		}()
	}
	wg.Wait()
	after := peakRSS(t, proc)
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	t.Logf("peak RSS (VmHWM) %d MB before, %d MB after %d CompleteMultipartUpload bodies of 5 MiB with 60,000 parts at once; answers %v",
		before>>20, after>>20, n, count)
	for c := range count {
		switch c {
		case "400 InvalidArgument", "503 SlowDown", "reset":
		default:
			t.Errorf("%d answered %q, want 400 InvalidArgument (more than 10,000 parts) or 503 SlowDown", count[c], c)
		}
	}
	if count["400 InvalidArgument"] == 0 || count["503 SlowDown"] == 0 {
		t.Errorf("answers %v: want some documents parsed and refused, and some told to slow down", count)
	}
	if after > 600<<20 {
		t.Errorf("peak RSS %d MB, want under 600 MB", after>>20)
	}
}
