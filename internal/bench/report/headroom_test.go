package report

import (
	"strings"
	"testing"
)

// Each measured stage is compared with the ceiling of the same stage (the
// same operations, sizes and workers), never with another's; set-up
// stages are not compared; a stage at 0.8 of its ceiling or more, or a
// bench process that kept the machine's cores busy, is bound by the
// client, and says why; no ratio over 1 is shown.
func TestHeadroom(t *testing.T) {
	stage := func(name, typ string, ops ...Op) Stage { return Stage{Name: name, Type: typ, Ops: ops} }
	s := Summary{
		Stages: []Stage{
			stage("prepare", "prepare", Op{OpType: "write", ThroughputOps: 9000}),
			stage("main/read", "normal", Op{OpType: "read", ThroughputOps: 900, BandwidthMBps: 90}, Op{OpType: "list", ThroughputOps: 100}),
			stage("main/write", "normal", Op{OpType: "write", ThroughputOps: 300, BandwidthMBps: 30}),
			stage("slow", "normal", Op{OpType: "read", ThroughputOps: 10, BandwidthMBps: 400}),
			stage("over", "normal", Op{OpType: "read", ThroughputOps: 1300}),
		},
		Ceilings: []Ceiling{
			{Stage: "main/read", What: "read 90%, list 10%, verifying, 8 workers", ThroughputOps: 1100, BandwidthMBps: 100},
			{Stage: "main/write", What: "write 100% of c(64)KB, 4 workers", ThroughputOps: 3000, BandwidthMBps: 300},
			{Stage: "slow", What: "read 100%", ThroughputOps: 100, BandwidthMBps: 500},
			{Stage: "over", What: "read 100%", ThroughputOps: 1000},
		},
	}
	s.Ceiling = &s.Ceilings[0]
	Headroom(&s)
	got := map[string]Bound{}
	for _, b := range s.Bounds {
		got[b.Stage] = b
		if b.Ratio > 1 || strings.Contains(b.String(), "1.30") {
			t.Errorf("%s: a ratio over 1: %v", b.Stage, b)
		}
	}
	if _, ok := got["prepare"]; ok || len(s.Bounds) != 4 {
		t.Fatalf("bounds %+v", s.Bounds)
	}
	// 1000 op/s of 1100: client bound, and hashing is why.
	if b := got["main/read"]; !b.ClientBound || b.Ratio < 0.9 || b.Ratio > 0.91 || !strings.Contains(b.String(), "0.91 of the generator ceiling (hashing every byte read") ||
		!strings.Contains(b.String(), "bound by the client, not the target") {
		t.Errorf("main/read: %+v %s", b, b)
	}
	if b := got["main/write"]; b.ClientBound || b.Ratio < 0.099 || b.Ratio > 0.101 || b.String() != "stage main/write: 0.10 of its generator ceiling" {
		t.Errorf("main/write: %+v %s", b, b)
	}
	// Few large reads: the bandwidth says how near the ceiling it is.
	if b := got["slow"]; !b.ClientBound || b.Ratio != 0.8 {
		t.Errorf("slow: %+v", b)
	}
	if b := got["over"]; !b.ClientBound || b.Ratio != 1 || !strings.HasPrefix(b.String(), "stage over: at its generator ceiling: bound by the client") {
		t.Errorf("over: %+v %s", b, b)
	}

	// Without a ceiling, the CPU the bench process used still tells.
	s = Summary{Stages: []Stage{stage("main", "normal", Op{OpType: "read", ThroughputOps: 10})},
		ClientCPU: &ClientCPU{Seconds: 17, Wall: 10, Cores: 2}}
	Headroom(&s)
	if len(s.Bounds) != 1 || !s.Bounds[0].ClientBound || !strings.Contains(s.Bounds[0].String(), "the bench process kept 85% of 2 cores busy") {
		t.Fatalf("busy CPU: %+v", s.Bounds)
	}
	s.ClientCPU.Seconds = 5
	Headroom(&s)
	if len(s.Bounds) != 0 {
		t.Fatalf("idle CPU, no ceiling: %+v", s.Bounds)
	}
}
