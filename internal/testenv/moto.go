package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Moto starts moto's S3 server (PyPI: moto[server]), an S3 endpoint that
// is not Ostium, on loopback, as `python3 -m moto.server` so that no
// scripts directory need be on PATH, and returns its URL; its keys are
// "testing"/"testing". CI installs it; elsewhere the test is skipped when
// it is missing.
func Moto(t testing.TB) string {
	t.Helper()
	if err := exec.Command("python3", "-c", "import moto.server").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("moto is not installed (pip install 'moto[server]')")
		}
		t.Skip("moto not installed")
	}
	port := freePort(t)
	cmd := exec.Command("python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("moto_server did not start")
		}
	}
	return "http://" + addr
}
