package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/bench/faults"
)

func load(t *testing.T, name, body string) (*Workload, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

const faultStages = `
stages:
  - name: init
    works: [{type: init, workers: 1, config: {containers: "r(1,1)"}}]
  - name: main
    works:
      - {name: w, workers: 2, runtime: 30, operations: [{type: write, ratio: 100, config: {containers: "c(1)", objects: "u(1,10)", sizes: "c(1)KB"}}]}
`

// Both forms carry a schedule, read as written and checked when the file
// is read, each error with its line.
func TestFaultSchedule(t *testing.T) {
	w, err := load(t, "w.yaml", `name: f
storage: {type: mock}
faults:
  - name: stop the catalog
    stage: main
    at: 10s
    timeout: 1m
    command: pg_ctl -D /srv/pg stop -m fast
  - {at: 12.5, command: "pg_ctl -D /srv/pg start", fatal: true}
`+faultStages)
	if err != nil {
		t.Fatal(err)
	}
	want := []faults.Fault{
		{Line: 4, Name: "stop the catalog", Stage: "main", At: faults.Duration(10 * time.Second), Timeout: faults.Duration(time.Minute), Command: "pg_ctl -D /srv/pg stop -m fast"},
		{Line: 9, Name: "fault 2", At: faults.Duration(12500 * time.Millisecond), Timeout: faults.Duration(faults.DefaultTimeout), Command: "pg_ctl -D /srv/pg start", Fatal: true},
	}
	if len(w.Faults) != 2 || w.Faults[0] != want[0] || w.Faults[1] != want[1] {
		t.Fatalf("%+v\nwant %+v", w.Faults, want)
	}
	x, err := load(t, "w.xml", `<?xml version="1.0"?>
<workload name="f">
  <storage type="mock"/>
  <faults>
    <fault name="kill" stage="main" at="5s" timeout="20s" command="kill -9 $(cat /run/ostium.pid)"/>
    <fault name="start" stage="main" at="8" fatal="true" command="systemctl start ostium"/>
  </faults>
  <workflow>
    <workstage name="main">
      <work name="w" workers="2" runtime="30"><operation type="write" ratio="100" config="containers=c(1);objects=u(1,10);sizes=c(1)KB"/></work>
    </workstage>
  </workflow>
</workload>`)
	if err != nil {
		t.Fatal(err)
	}
	if f := x.Faults; len(f) != 2 || f[0].Line != 5 || f[0].Command != "kill -9 $(cat /run/ostium.pid)" || f[0].Timeout != faults.Duration(20*time.Second) ||
		f[1].At != faults.Duration(8*time.Second) || !f[1].Fatal {
		t.Fatalf("%+v", f)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"w.yaml", "name: f\nstorage: {type: mock}\nfaults:\n  - {stage: main, at: 30s, command: x}\n" + faultStages,
			`line 4: fault "fault 1": at 30s is after the end of stage "main" (30s)`},
		{"w.yaml", "name: f\nstorage: {type: mock}\nfaults:\n  - {stage: mian, at: 1s, command: x}\n" + faultStages, `no stage is named "mian"`},
		{"w.yaml", "name: f\nstorage: {type: mock}\nfaults:\n  - {name: empty, at: 1s}\n" + faultStages, `line 4: fault "empty": no command`},
		{"w.yaml", "name: f\nstorage: {type: mock}\nfaults:\n  - {at: soon, command: x}\n" + faultStages, `line 4: "soon" is not a time`},
		{"w.yaml", "name: f\nstorage: {type: mock}\nfaults:\n  - {at: 1s, comand: x}\n" + faultStages, `field comand not found`},
		{"w.xml", `<workload name="f"><faults><fault command="x"/></faults><workflow><workstage name="main"><work type="delay" runtime="5"/></workstage></workflow></workload>`,
			"line 1: <fault> lacks at"},
		{"w.xml", `<workload name="f"><faults><fault at="9s" command="x"/></faults><workflow><workstage name="main"><work type="delay" runtime="5"/></workstage></workflow></workload>`,
			"at 9s is after the end of the run (5s)"},
	} {
		if _, err := load(t, tc.name, tc.body); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}
