package node_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// sdkOver is an aws-sdk-go-v2 client of srv through hc.
func sdkOver(srv *nodetest.HTTPSServer, hc *http.Client) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(nodetest.AccessKey, nodetest.SecretKey, ""),
		HTTPClient:   hc,
	})
}

// probe is one GET /health/live on hc: the serial of the certificate the
// connection was made with, whether the connection was reused, and its
// local address (the same address: the same TCP connection).
type probe struct {
	serial int64
	reused bool
	local  string
}

func get(t *testing.T, srv *nodetest.HTTPSServer, hc *http.Client) probe {
	t.Helper()
	var p probe
	trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		p.reused, p.local = ci.Reused, ci.Conn.LocalAddr().String()
	}}
	req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", srv.URL+"/health/live", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET over TLS: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("GET over TLS: %d, TLS %v", resp.StatusCode, resp.TLS != nil)
	}
	p.serial = resp.TLS.PeerCertificates[0].SerialNumber.Int64()
	return p
}

// waitServing waits until the node hands out the certificate of serial.
func waitServing(t *testing.T, srv *nodetest.HTTPSServer, serial int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.Listeners.Certs.Certificate().Leaf.SerialNumber.Int64() != serial {
		if time.Now().After(deadline) {
			t.Fatalf("certificate %d not loaded within 10 s", serial)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The SDK works over the node's own TLS with a private CA; a renewed
// certificate (written over the files, as certbot does, or announced by
// SIGHUP) reaches new connections while an open keep-alive connection
// goes on serving on the one it began with; a renewal that cannot be
// read keeps the certificate in use.
func TestTLSReloadKeepsConnections(t *testing.T) {
	for _, how := range []string{"file change", "SIGHUP"} {
		t.Run(how, func(t *testing.T) {
			poll := 20 * time.Millisecond
			if how == "SIGHUP" {
				poll = time.Hour // only the signal can cause the reload
			}
			srv := nodetest.StartHTTPS(t, nodetest.Options{}, poll)
			ctx := context.Background()
			keep := srv.Client()
			cl := sdkOver(srv, keep)
			bucket := aws.String("tls-" + strings.ReplaceAll(strings.ToLower(how), " ", "-"))
			if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bucket}); err != nil {
				t.Fatalf("CreateBucket over TLS: %v", err)
			}
			if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String("k"), Body: bytes.NewReader([]byte("over tls"))}); err != nil {
				t.Fatalf("PutObject over TLS: %v", err)
			}
			before := get(t, srv, keep)
			if before.serial != 1 {
				t.Fatalf("first certificate: serial %d", before.serial)
			}

			srv.CA.Issue(t, 2, srv.CertFile, srv.KeyFile)
			if how == "SIGHUP" {
				signal.Notify(srv.HUP, syscall.SIGHUP)
				defer signal.Stop(srv.HUP)
				if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
					t.Fatal(err)
				}
			}
			waitServing(t, srv, 2)

			after := get(t, srv, keep)
			if !after.reused || after.local != before.local || after.serial != 1 {
				t.Fatalf("the open connection did not go on: before %+v, after %+v", before, after)
			}
			out, err := cl.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: aws.String("k")})
			if err != nil {
				t.Fatalf("GetObject on the kept connection: %v", err)
			}
			b, _ := io.ReadAll(out.Body)
			out.Body.Close()
			if string(b) != "over tls" {
				t.Fatalf("GetObject: %q", b)
			}
			if fresh := get(t, srv, srv.Client()); fresh.reused || fresh.serial != 2 {
				t.Fatalf("a new connection: %+v, want serial 2", fresh)
			}

			// A broken renewal: the node keeps serial 2 and says why.
			nodetest.WriteFile(t, srv.CertFile, []byte("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n"))
			if err := srv.Listeners.Certs.Reload(); err == nil {
				t.Fatal("reload of a broken certificate succeeded")
			}
			if fresh := get(t, srv, srv.Client()); fresh.serial != 2 {
				t.Fatalf("after a failed reload: %+v, want serial 2", fresh)
			}
		})
	}
}

// TLS 1.2 and 1.3 only; on 1.2, forward-secret AEAD suites only.
func TestTLSConfigModern(t *testing.T) {
	c := node.TLSConfig(nil)
	if c.MinVersion != tls.VersionTLS12 {
		t.Errorf("MinVersion %x", c.MinVersion)
	}
	for _, id := range c.CipherSuites {
		name := tls.CipherSuiteName(id)
		if !strings.HasPrefix(name, "TLS_ECDHE_") || !(strings.Contains(name, "_GCM_") || strings.Contains(name, "CHACHA20_POLY1305")) {
			t.Errorf("suite %s is not ECDHE with AEAD", name)
		}
	}
	if len(c.CipherSuites) == 0 {
		t.Error("no suites: Go's defaults include CBC ones")
	}
}

// The configuration refuses half a TLS setup and two node keys.
func TestTLSConfigValidation(t *testing.T) {
	for name, c := range map[string]node.Config{
		"tls_cert":      {DataDir: "d", TLSListen: ":9443", TLSCert: "c.pem"},
		"tls_listen":    {DataDir: "d", TLSCert: "c.pem", TLSKey: "k.pem"},
		"node_key_file": {DataDir: "d", NodeKey: "x", NodeKeyFile: "/etc/ostium/node.key"},
	} {
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s: %v", name, err)
		}
	}
	ok := node.Config{DataDir: "d", TLSListen: ":9443", TLSCert: "c.pem", TLSKey: "k.pem"}
	if err := ok.Validate(); err != nil {
		t.Errorf("a TLS setup: %v", err)
	}
}

// Listen opens what the configuration asks for: plain HTTP, HTTPS or
// both; nothing at all, or a certificate it cannot load, is an error
// that leaves no socket open.
func TestListen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	nodetest.NewCA(t).Issue(t, 5, cert, key)
	both := node.Config{Listen: "127.0.0.1:0", TLSListen: "127.0.0.1:0", TLSCert: cert, TLSKey: key}
	l, err := node.Listen(ctx, both)
	if err != nil {
		t.Fatal(err)
	}
	if l.HTTP == nil || l.HTTPS == nil || len(l.All()) != 2 || l.Certs.Certificate().Leaf.SerialNumber.Int64() != 5 {
		t.Fatalf("both: %+v", l)
	}
	l.Close()
	tlsOnly := both
	tlsOnly.Listen = ""
	if l, err = node.Listen(ctx, tlsOnly); err != nil || l.HTTP != nil || l.HTTPS == nil {
		t.Fatalf("HTTPS only: %+v, %v", l, err)
	}
	l.Close()
	if _, err := node.Listen(ctx, node.Config{}); err == nil {
		t.Error("no listener configured: no error")
	}
	bad := both
	bad.TLSKey = cert // not a key
	if _, err := node.Listen(ctx, bad); err == nil || !strings.Contains(err.Error(), "tls:") {
		t.Errorf("a bad key: %v", err)
	}
}
