package sizing

import (
	"math"
	"testing"
)

func TestRules(t *testing.T) {
	total, per, err := Objects(1e15, 0.8, 4e6, 100)
	if err != nil || total != 2e8 || per != 2e6 {
		t.Fatalf("1 PB at 80%% of 4 MB objects in 100 buckets: %v total, %v per bucket (%v)", total, per, err)
	}
	if _, _, err := Objects(1e15, 1.2, 4e6, 100); err == nil {
		t.Fatal("a fill above 100% accepted")
	}
	if got := Catalog(1e9, 600, 1.5); got != 9e11 {
		t.Fatalf("catalog for a billion objects = %v", got)
	}
	ec, err := ParseEC("8+3")
	if err != nil {
		t.Fatal(err)
	}
	if got := Raw(1e15, ec, 2); math.Abs(got-2.75e15) > 1 {
		t.Fatalf("raw for 1 PB usable, 8+3, two sites = %v", got)
	}
	if got := Workers(10000, 0.0123); got != 123 {
		t.Fatalf("workers for 10,000 op/s at 12.3 ms = %d", got)
	}
	for in, want := range map[string]float64{"1PB": 1e15, "4MB": 4e6, "1TiB": 1 << 40, "512": 512} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"8", "8+x", "0+2"} {
		if _, err := ParseEC(bad); err == nil {
			t.Errorf("ParseEC(%q) accepted", bad)
		}
	}
	if Human(2.75e15) != "2.75 PB" {
		t.Fatal(Human(2.75e15))
	}
}
