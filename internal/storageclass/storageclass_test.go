package storageclass

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	has := func(p string) bool { return p == "ssd" || p == "ceph" }
	for _, tc := range []struct {
		m    Map
		want string // "" = valid
	}{
		{Map{StandardIA: "ceph", GlacierIR: "ceph", ReducedRedundancy: "ssd"}, ""},
		{Map{Standard: "ceph"}, "STANDARD is where"},
		{Map{Glacier: "ceph"}, "archive classes"},
		{Map{DeepArchive: "ceph"}, "archive classes"},
		{Map{"COLD": "ceph"}, "not a storage class"},
		{Map{StandardIA: ""}, "names no platform"},
		{Map{StandardIA: "nas"}, `platform "nas" is not configured`},
	} {
		err := tc.m.Validate(has)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.m, err, tc.want)
		}
	}
}

// A tenant's map overrides the provider's class by class; STANDARD is
// never mapped.
func TestResolve(t *testing.T) {
	tenant := Map{StandardIA: "tenant-ia"}
	provider := Map{StandardIA: "ia", GlacierIR: "cold"}
	for _, tc := range []struct {
		class, want string
		ok          bool
	}{
		{StandardIA, "tenant-ia", true},
		{GlacierIR, "cold", true},
		{OneZoneIA, "", false},
		{Standard, "", false},
		{"", "", false},
	} {
		if p, ok := Resolve(tc.class, tenant, provider); p != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v", tc.class, p, ok)
		}
	}
	m, err := Parse(Map{StandardIA: "ia"}.Encode())
	if err != nil || m[StandardIA] != "ia" {
		t.Fatalf("round trip: %v %v", m, err)
	}
	if Map(nil).Encode() != "" {
		t.Fatal("empty map encodes to something")
	}
}
