package objects

import (
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
