package quick

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Size is an object size: constant, or uniform between Min and Max. A
// random size derives from the object's name, so a reader knows the size
// (and contents) of what a writer wrote without being told.
type Size struct{ Min, Max int64 }

// ParseSize reads "4KiB", "1MB", "512" or a uniform range "1KiB-1MiB".
// Units are those of ParseBytes.
func ParseSize(s string) (Size, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := ParseBytes(lo)
	if err != nil {
		return Size{}, err
	}
	max := min
	if isRange {
		if max, err = ParseBytes(hi); err != nil {
			return Size{}, err
		}
	}
	if max < min {
		return Size{}, fmt.Errorf("size %q: the range runs backwards", s)
	}
	return Size{min, max}, nil
}

// Unit is the number of bytes of a unit name: B; KB, MB, GB, TB, PB
// (powers of 1000, as COSBench and disk makers count); KiB, MiB, GiB, TiB,
// PiB (of 1024). Case does not matter, so "kb" and "KiB" read as people
// mean them; the empty name is bytes.
func Unit(name string) (int64, bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "b":
		return 1, true
	case "kb", "k":
		return 1e3, true
	case "mb", "m":
		return 1e6, true
	case "gb", "g":
		return 1e9, true
	case "tb", "t":
		return 1e12, true
	case "pb", "p":
		return 1e15, true
	case "kib", "ki":
		return 1 << 10, true
	case "mib", "mi":
		return 1 << 20, true
	case "gib", "gi":
		return 1 << 30, true
	case "tib", "ti":
		return 1 << 40, true
	case "pib", "pi":
		return 1 << 50, true
	}
	return 0, false
}

// ParseBytes reads a byte count with an optional unit: "512", "4KiB",
// "1.5GB", "1TB". It is the one size parser of `ostium bench` and
// `ostium sizing`.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	// The unit is the trailing run of letters; what is before is the number.
	i := strings.LastIndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	num, unit := t[:i+1], t[i+1:]
	mult, ok := Unit(unit)
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || n < 0 || math.IsInf(n, 0) || n*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional unit (4KiB, 1MB, 1TB, ...)", s)
	}
	return int64(math.Round(n * float64(mult))), nil
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
		return Human(s.Min)
	}
	return Human(s.Min) + "-" + Human(s.Max)
}

// Human prints bytes with the largest binary unit that divides them, or
// in bytes: what ParseBytes reads back.
func Human(n int64) string {
	for _, u := range []struct {
		name string
		v    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + " " + u.name
		}
	}
	for _, u := range []struct {
		name string
		v    int64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}
