package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// Every file a start refuses, `config validate` refuses too, with the
// same words naming the key: not only the values Validate reads but
// what a start reads from them (the node key, the TLS pair, addresses,
// the catalog URL, a platform's or the KMIP client's files).
func TestConfigValidateRefusesWhatServeRefuses(t *testing.T) {
	clearCredentials(t)
	t.Setenv("CREDENTIALS_DIRECTORY", "")
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, mode)
		return path
	}
	ca := nodetest.NewCA(t)
	certA, keyA := filepath.Join(dir, "a.crt"), filepath.Join(dir, "a.key")
	ca.Issue(t, 1, certA, keyA)
	certB, keyB := filepath.Join(dir, "b.crt"), filepath.Join(dir, "b.key")
	ca.Issue(t, 2, certB, keyB)
	goodKey := "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	openKey := write("open.key", goodKey+"\n", 0o644)
	shortKey := write("short.key", "c2hvcnQ=\n", 0o600)
	notPEM := write("ca.txt", "not a certificate\n", 0o600)
	aFile := write("a-file", "x", 0o600)

	for i, tc := range []struct {
		name, yaml, key string
	}{
		{"node key not base64", "node_key: CHANGE-ME-32-bytes-of-base64\n", "node_key: not 32 bytes in base64"},
		{"node key too short", "node_key: c2hvcnQ=\n", "node_key: not 32 bytes in base64"},
		{"node key file missing", "node_key_file: " + filepath.Join(dir, "missing.key") + "\n", "node_key_file:"},
		{"node key file open to all", "node_key_file: " + openKey + "\n", "node_key_file: " + openKey + " is readable by every user"},
		{"node key file too short", "node_key_file: " + shortKey + "\n", "node_key_file: " + shortKey + " is not a 32-byte base64 key"},
		{"tls files missing", "tls_listen: 127.0.0.1:0\ntls_cert: " + filepath.Join(dir, "none.crt") + "\ntls_key: " + keyA + "\n", "tls_cert, tls_key:"},
		{"tls cert and key of two pairs", "tls_listen: 127.0.0.1:0\ntls_cert: " + certA + "\ntls_key: " + keyB + "\n", "tls_cert, tls_key:"},
		{"listen without a port", "listen: localhost\n", "listen: \"localhost\" is not [host]:port"},
		{"tls_listen port out of range", "tls_listen: 127.0.0.1:99999\ntls_cert: " + certA + "\ntls_key: " + keyA + "\n", "tls_listen: \"127.0.0.1:99999\""},
		{"sqlite URL without a path", "catalog: \"sqlite://\"\n", "catalog: bad sqlite URL"},
		{"postgres URL that does not parse", "catalog: \"postgres://ostium:pg-secret@db:port/ostium\"\n", "catalog: postgres: open:"},
		{"s3 platform CA file not PEM", "platforms: {local: {type: fs, path: " + filepath.Join(dir, "blobs") + "}, remote: {type: s3, endpoint: \"http://127.0.0.1:1\", bucket: ostium, ca_file: " + notPEM + "}}\ndefault_platform: local\n", "platforms.remote: s3blob: CA file"},
		{"kmip client files missing", "kms: {type: kmip, address: \"127.0.0.1:5696\", cert_file: " + filepath.Join(dir, "none.crt") + ", key_file: " + keyA + "}\n", "kms.cert_file, kms.key_file:"},
		{"data directory is a file", "", "data: " + aFile + " is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(dir, "data", string(rune('a'+i)))
			if tc.name == "data directory is a file" {
				data = aFile
			}
			body := "data: " + data + "\n" + tc.yaml
			if !strings.Contains(tc.yaml, "listen:") {
				body += "listen: 127.0.0.1:0\n"
			}
			file := write("bad.yaml", body, 0o600)
			verr := execute([]string{"config", "validate", file})
			if verr == nil || !strings.Contains(verr.Error(), tc.key) {
				t.Fatalf("config validate: %v\nwant it to name %q", verr, tc.key)
			}
			if strings.Contains(verr.Error(), "pg-secret") {
				t.Errorf("the catalog's password is in the message: %v", verr)
			}
			done := make(chan error, 1)
			go func() { done <- execute([]string{"serve", "--config", file}) }()
			select {
			case serr := <-done:
				if serr == nil || serr.Error() != verr.Error() {
					t.Errorf("serve says\n%v\nconfig validate says\n%v", serr, verr)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("serve started on a file validate refuses:\n%s", body)
			}
		})
	}
}
