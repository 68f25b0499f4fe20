package sosapi

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestTightestPicksTheQuotaLeavingLeastRoom(t *testing.T) {
	for _, tc := range []struct {
		name string
		qs   []Quota
		want CapacityInfo
		ok   bool
	}{
		{"no quota", []Quota{{0, 10}, {0, 500}}, CapacityInfo{}, false},
		{"bucket only", []Quota{{100, 30}, {0, 500}}, CapacityInfo{Capacity: 100, Available: 70, Used: 30}, true},
		{"tenant only", []Quota{{0, 30}, {1000, 500}}, CapacityInfo{Capacity: 1000, Available: 500, Used: 500}, true},
		// The tenant's other buckets leave it less room than the bucket's
		// own quota would.
		{"tenant tighter", []Quota{{100, 30}, {1000, 950}}, CapacityInfo{Capacity: 1000, Available: 50, Used: 950}, true},
		{"bucket tighter", []Quota{{100, 80}, {1000, 500}}, CapacityInfo{Capacity: 100, Available: 20, Used: 80}, true},
		// Writers committing together overshoot a quota; Veeam sees none left.
		{"overshot", []Quota{{100, 130}}, CapacityInfo{Capacity: 100, Available: 0, Used: 130}, true},
	} {
		got, ok := Tightest(tc.qs...)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: Tightest(%v) = %+v, %v; want %+v, %v", tc.name, tc.qs, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRecommendFitsTasksInTheTenantsSlots(t *testing.T) {
	for slots, want := range map[int]int{512: 8, 64: 1, 10: 1, 0: 1, 1000: 15} {
		if got := Recommend(slots); got.S3ConcurrentTaskLimit != want || got.KbBlockSize != 4096 {
			t.Errorf("Recommend(%d) = %+v, want %d tasks of 4096 KiB", slots, got, want)
		}
	}
}

// The documents have the shape the specification gives: the root
// element, the children in order, booleans as true/false, quoted
// strings, and an XML declaration.
func TestDocumentsShape(t *testing.T) {
	sys := string(System(Recommend(512), true))
	for _, want := range []string{
		`<?xml version="1.0" encoding="UTF-8"?>`,
		"<SystemInfo>", `<ProtocolVersion>&#34;1.0&#34;</ProtocolVersion>`, `<ModelName>&#34;Ostium&#34;</ModelName>`,
		"<ProtocolCapabilities>", "<CapacityInfo>true</CapacityInfo>", "<UploadSessions>false</UploadSessions>",
		"<IAMSTS>false</IAMSTS>", "<SystemRecommendations>", "<S3ConcurrentTaskLimit>8</S3ConcurrentTaskLimit>",
		"<KbBlockSize>4096</KbBlockSize>",
	} {
		if !strings.Contains(sys, want) {
			t.Errorf("system.xml lacks %s:\n%s", want, sys)
		}
	}
	var si SystemInfo
	if err := xml.Unmarshal([]byte(sys), &si); err != nil || si.ProtocolVersion != `"1.0"` || !si.ProtocolCapabilities.CapacityInfo {
		t.Fatalf("system.xml does not read back: %+v, %v", si, err)
	}
	if s := string(System(Recommend(512), false)); !strings.Contains(s, "<CapacityInfo>false</CapacityInfo>") {
		t.Errorf("system.xml without capacity says otherwise:\n%s", s)
	}
	var ci CapacityInfo
	doc := Capacity(CapacityInfo{Capacity: 1 << 40, Available: 3, Used: 1<<40 - 3})
	if err := xml.Unmarshal(doc, &ci); err != nil || ci.Capacity != 1<<40 || ci.Available != 3 || ci.Used != 1<<40-3 {
		t.Fatalf("capacity.xml does not read back: %+v, %v\n%s", ci, err, doc)
	}
}

func TestReserved(t *testing.T) {
	for key, want := range map[string]bool{
		SystemKey: true, CapacityKey: true, Folder: true, Folder + "other": true,
		".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c": false, "x/" + SystemKey: false, "system.xml": false,
	} {
		if Reserved(key) != want {
			t.Errorf("Reserved(%q) = %v", key, !want)
		}
	}
	if !Document(SystemKey) || !Document(CapacityKey) || Document(Folder+"other") {
		t.Error("Document names other keys than the two documents")
	}
}
