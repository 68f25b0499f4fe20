package objects

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// listFrom runs fold over a sorted in-memory key set.
func listFrom(keys []string, prefix, delim, marker string, max int) folded[string] {
	sort.Strings(keys)
	f, err := fold(prefix, delim, max, cursor[string]{start: marker},
		func(k string) string { return k },
		func(c cursor[string], limit int) ([]string, error) {
			var out []string
			for _, k := range keys {
				if !strings.HasPrefix(k, prefix) {
					continue
				}
				if c.after != nil && k <= *c.after || c.after == nil && (k < c.start || k == c.start && !c.inclusive) {
					continue
				}
				out = append(out, k)
				if len(out) == limit {
					break
				}
			}
			return out, nil
		})
	if err != nil {
		panic(err)
	}
	return f
}

func TestFold(t *testing.T) {
	keys := []string{"a", "a/1", "a/2", "a/b/c", "b", "c/x", "c/y", "d"}
	for _, tc := range []struct {
		prefix, delim, marker string
		max                   int
		items, prefixes       []string
		truncated             bool
	}{
		{"", "", "", 100, keys, nil, false},
		{"", "/", "", 100, []string{"a", "b", "d"}, []string{"a/", "c/"}, false},
		{"", "/", "", 2, []string{"a"}, []string{"a/"}, true},
		{"", "/", "a/", 2, []string{"b"}, []string{"c/"}, true}, // marker is a common prefix: not repeated
		{"", "/", "a/1", 1, nil, nil, true},                     // marker inside a prefix resumes after it...
		{"a/", "/", "", 100, []string{"a/1", "a/2"}, []string{"a/b/"}, false},
		{"", "", "c/x", 100, []string{"c/y", "d"}, nil, false},
		{"", "/", "", 0, nil, nil, false},
		{"", "", "", 8, keys, nil, false}, // exactly max keys: not truncated
	} {
		f := listFrom(append([]string{}, keys...), tc.prefix, tc.delim, tc.marker, tc.max)
		if tc.marker == "a/1" { // ...so the first entry is b
			if len(f.items) != 1 || f.items[0] != "b" {
				t.Errorf("marker inside prefix: got %v %v", f.items, f.prefixes)
			}
			continue
		}
		if !reflect.DeepEqual(f.items, tc.items) || !reflect.DeepEqual(f.prefixes, tc.prefixes) || f.truncated != tc.truncated {
			t.Errorf("fold(%q,%q,%q,%d) = %v %v %v, want %v %v %v", tc.prefix, tc.delim, tc.marker, tc.max,
				f.items, f.prefixes, f.truncated, tc.items, tc.prefixes, tc.truncated)
		}
	}
}

// Many keys under one prefix cost one entry and one jump, not a scan.
func TestFoldSkipsPrefix(t *testing.T) {
	var keys []string
	for i := 0; i < 5000; i++ {
		keys = append(keys, "big/"+strings.Repeat("x", i%50)+string(rune('a'+i%26)))
	}
	keys = append(keys, "z")
	sort.Strings(keys)
	fetches := 0
	f, _ := fold("", "/", 1000, cursor[string]{},
		func(k string) string { return k },
		func(c cursor[string], limit int) ([]string, error) {
			fetches++
			i := sort.SearchStrings(keys, c.start)
			if c.after != nil {
				i = sort.SearchStrings(keys, *c.after+"\x00")
			}
			return keys[i:min(len(keys), i+limit)], nil
		})
	if !reflect.DeepEqual(f.prefixes, []string{"big/"}) || !reflect.DeepEqual(f.items, []string{"z"}) || fetches > 3 {
		t.Fatalf("got %v %v after %d fetches", f.prefixes, f.items, fetches)
	}
}

// sliceSource serves fold from a sorted slice and counts the rows it hands
// out, which is what a catalog query costs.
func sliceSource(keys []string, rows *int) func(c cursor[string], limit int) ([]string, error) {
	return func(c cursor[string], limit int) ([]string, error) {
		i := sort.SearchStrings(keys, c.start)
		if c.after != nil {
			i = sort.SearchStrings(keys, *c.after+"\x00")
		} else if !c.inclusive && i < len(keys) && keys[i] == c.start {
			i++
		}
		out := keys[i:min(len(keys), i+limit)]
		*rows += len(out)
		return out, nil
	}
}

// A top level of many folders reads a few rows per folder, not a page each:
// the console's folder view of a million-object bucket depends on it.
func TestFoldReadsFewRowsPerFolder(t *testing.T) {
	var keys []string
	for f := 0; f < 100; f++ {
		for i := 0; i < 2000; i++ {
			keys = append(keys, fmt.Sprintf("f%03d/%05d", f, i))
		}
	}
	sort.Strings(keys)
	rows := 0
	f, err := fold("", "/", 1000, cursor[string]{}, func(k string) string { return k }, sliceSource(keys, &rows))
	if err != nil || len(f.prefixes) != 100 || len(f.items) != 0 || f.truncated {
		t.Fatalf("got %d prefixes %d items truncated=%v err=%v", len(f.prefixes), len(f.items), f.truncated, err)
	}
	// One full first page, then about one row per folder.
	if rows > pageSize+3*100 {
		t.Fatalf("read %d rows for 100 folders", rows)
	}
}

// fold gives what S3's listing definition gives, whatever the mix of keys
// and folders, the page size and the marker: checked against a direct
// computation over random key sets.
func TestFoldMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", "a/", "b/", "c/d/", "x"}
	for round := 0; round < 500; round++ {
		set := map[string]bool{}
		for i := rng.IntN(300); i > 0; i-- {
			k := ""
			for j := rng.IntN(4) + 1; j > 0; j-- {
				k += parts[rng.IntN(len(parts))]
			}
			set[k] = true
		}
		var keys []string
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		prefix := []string{"", "a", "a/", "b/"}[rng.IntN(4)]
		delim := []string{"", "/", "b"}[rng.IntN(3)]
		marker := ""
		if len(keys) > 0 && rng.IntN(2) == 0 {
			marker = keys[rng.IntN(len(keys))]
		}
		max := rng.IntN(40) + 1

		// The definition: every key after the marker under prefix, rolled
		// up; an entry (key or prefix) at or before the marker is skipped.
		var wantItems, wantPrefixes []string
		seen := map[string]bool{}
		n, truncated := 0, false
		for _, k := range keys {
			if !strings.HasPrefix(k, prefix) || k <= marker {
				continue
			}
			cp := commonPrefix(k, prefix, delim)
			if cp != "" && (seen[cp] || cp <= marker) {
				continue
			}
			if n == max {
				truncated = true
				break
			}
			n++
			if cp != "" {
				seen[cp] = true
				wantPrefixes = append(wantPrefixes, cp)
			} else {
				wantItems = append(wantItems, k)
			}
		}
		var under []string // the catalog's query filters by prefix
		for _, k := range keys {
			if strings.HasPrefix(k, prefix) {
				under = append(under, k)
			}
		}
		rows := 0
		f, err := fold(prefix, delim, max, cursor[string]{start: marker}, func(k string) string { return k }, sliceSource(under, &rows))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.items, wantItems) || !reflect.DeepEqual(f.prefixes, wantPrefixes) || f.truncated != truncated {
			t.Fatalf("round %d fold(%q,%q,%q,%d) over %q:\n got %q %q %v\nwant %q %q %v", round, prefix, delim, marker, max, keys,
				f.items, f.prefixes, f.truncated, wantItems, wantPrefixes, truncated)
		}
	}
}
