package quick

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Size is an object size: constant, or uniform between Min and Max. A
// random size derives from the object's name, so a reader knows the size
// (and contents) of what a writer wrote without being told.
type Size struct{ Min, Max int64 }

// ParseSize reads "4KiB", "1MB", "512" or a uniform range "1KiB-1MiB".
// Units: B, KB/MB/GB (powers of 1000, as COSBench), KiB/MiB/GiB (of 1024).
func ParseSize(s string) (Size, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := parseBytes(lo)
	if err != nil {
		return Size{}, err
	}
	max := min
	if isRange {
		if max, err = parseBytes(hi); err != nil {
			return Size{}, err
		}
	}
	if max < min {
		return Size{}, fmt.Errorf("size %q: the range runs backwards", s)
	}
	return Size{min, max}, nil
}

func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (KiB, MB, ...)", s)
	}
	return int64(n * float64(mult)), nil
}

// Of is the size of the object with this name.
func (s Size) Of(name string) int64 {
	if s.Max == s.Min {
		return s.Min
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return s.Min + int64(h.Sum64()%uint64(s.Max-s.Min+1))
}

func (s Size) String() string {
	if s.Min == s.Max {
		return strconv.FormatInt(s.Min, 10) + " B"
	}
	return fmt.Sprintf("%d-%d B", s.Min, s.Max)
}
