package faults_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/workload"
)

// An `ostium serve` on SQLite, a process of the test's own, is killed
// with SIGKILL by a fault and started again by the next, under writes.
// While it is away the timeline shows requests without an answer
// (transport errors) and no success; before the kill, no error; and every
// write it acknowledged, up to the instant it died, reads back from the
// restarted process.
func TestNodeKilledAndRestartedByFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ostium and runs it for 12 s")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ostium")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/ostium").CombinedOutput(); err != nil {
		t.Fatalf("build ostium: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	data, pidFile := filepath.Join(dir, "data"), filepath.Join(dir, "pid")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	// The command both the test and the "start" fault run: the server in
	// the background, its pid in a file.
	start := filepath.Join(dir, "start.sh")
	script := fmt.Sprintf(`#!/bin/sh
export XDG_CONFIG_HOME=%[1]s/config OSTIUM_ROOT_ACCESS_KEY=faultkillaccesskey00 OSTIUM_ROOT_SECRET_KEY=fault-kill-secret-key-0123456789abcdef
%[2]s serve --listen %[3]s --console-listen 127.0.0.1:0 --data %[4]s >>%[1]s/serve.log 2>&1 &
echo $! > %[5]s
`, dir, bin, addr, data, pidFile)
	if err := os.WriteFile(start, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	if out, err := exec.Command("sh", start).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			t.Fatalf("ostium serve did not listen on %s:\n%s", addr, log)
		}
	}
	wl := fmt.Sprintf(`name: node-kill
storage: {type: s3, config: {endpoint: "http://%s", path_style_access: "true", accesskey: faultkillaccesskey00, secretkey: fault-kill-secret-key-0123456789abcdef, timeout: "10000"}}
faults:
  - {name: kill, stage: main, at: 2s, command: 'kill -9 "$(cat %s)"'}
  - {name: start, stage: main, at: 5s, command: 'sh %s'}
stages:
  - name: init
    works:
      - {type: init, workers: 1, config: {cprefix: kill, containers: "r(1,1)"}}
  - name: main
    works:
      - name: write
        workers: 4
        runtime: 12
        operations:
          - {type: write, ratio: 100, config: {cprefix: kill, containers: "c(1)", objects: "s(1,100000000)", sizes: "c(3)KB"}}
`, addr, pidFile, start)
	path := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(path, []byte(wl), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := workload.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := workload.Run(context.Background(), w, workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := sum.Availability
	kill, up := a.Faults[0], a.Faults[1]
	if !kill.Ran() || kill.Error != "" || !up.Ran() || up.Error != "" || up.DurationS > 15 {
		t.Fatalf("kill %+v\nstart %+v", kill, up)
	}
	d, u := int(kill.AtS), int(up.AtS)
	for _, s := range a.Seconds {
		switch {
		case s.T < d && s.Failed() > 0:
			t.Errorf("second %d, before the kill at %.2f s: %v", s.T, kill.AtS, s.Errors)
		case s.T > d && s.T < u && (s.OK > 0 || s.Errors["transport"] == 0 || s.Failed() != s.Errors["transport"]):
			t.Errorf("second %d, the node dead since %.2f s: %d ok, errors %v", s.T, kill.AtS, s.OK, s.Errors)
		}
	}
	// A kill late in a second shows in the next.
	if kill.FirstErrorS < d || kill.FirstErrorS > d+1 || kill.LastErrorS < u-1 || !kill.Impact || kill.RecoverS != -1 {
		t.Errorf("kill: errors %d-%d, impact %v, recovered after %v", kill.FirstErrorS, kill.LastErrorS, kill.Impact, kill.RecoverS)
	}
	// Back within the stage, on a machine that is not too loaded to let
	// its rate return: when it says so, the second it names is back.
	var after int64
	for _, s := range a.Seconds[u:] {
		after += s.OK
	}
	if after == 0 || up.RecoverS == 0 || up.RecoverS > 0 && float64(a.Seconds[int(up.AtS+up.RecoverS)].OK) < 0.9*up.BaselineOK {
		t.Errorf("start: %d ok after it, recovered after %v s\n%s", after, up.RecoverS, text(a))
	}
	var puts int64
	for _, st := range sum.Stages {
		for _, op := range st.Ops {
			if op.OpType == "write" {
				puts += op.OpCount
			}
		}
	}
	if ack := a.Acknowledged; ack == nil || ack.Acknowledged != puts || ack.Verified != puts || ack.Lost() {
		t.Fatalf("acknowledged writes %+v; the report counts %d successful writes", ack, puts)
	}
	t.Logf("%s", text(a))
}
