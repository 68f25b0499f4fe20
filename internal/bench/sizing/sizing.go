// Package sizing is the arithmetic of object storage sizing rules of thumb,
// kept apart from the command line so each rule has a test.
package sizing

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ostiumio/ostium/internal/bench/quick"
)

// Objects is how many objects a capacity holds at a fill level and a mean
// object size, in all and per bucket.
func Objects(capacity, fill, meanSize float64, buckets int) (total, perBucket float64, err error) {
	if capacity <= 0 || meanSize <= 0 || fill <= 0 || fill > 1 || buckets <= 0 {
		return 0, 0, errors.New("sizing: capacity and mean size must be positive, fill in (0, 1], buckets positive")
	}
	total = capacity * fill / meanSize
	return total, total / float64(buckets), nil
}

// CatalogBytesPerObject is the catalog's disk per object version: 673 B
// measured on the SQLite catalog (2026-11-22) for 20,000 objects of one
// blob with 37-byte keys, a content type and a CRC32 checksum (row, indexes
// and blob reference), rounded up. Objects kept inline add their bytes.
const CatalogBytesPerObject = 700

// Catalog is the catalog disk for a number of objects, with headroom for
// growth and vacuum (a factor, 1.5 being the usual advice).
func Catalog(objects, bytesPerObject, headroom float64) float64 {
	return objects * bytesPerObject * headroom
}

// EC is an erasure-coding scheme: k data and m parity fragments.
type EC struct{ K, M int }

// ParseEC reads "8+3".
func ParseEC(s string) (EC, error) {
	k, m, ok := strings.Cut(s, "+")
	a, err1 := strconv.Atoi(k)
	b, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || a <= 0 || b < 0 {
		return EC{}, fmt.Errorf("sizing: erasure coding %q: want DATA+PARITY, e.g. 8+3", s)
	}
	return EC{a, b}, nil
}

// Raw is the raw capacity that stores usable bytes under a scheme, with a
// full copy at each of sites sites (replication between sites).
func Raw(usable float64, ec EC, sites int) float64 {
	return usable * float64(ec.K+ec.M) / float64(ec.K) * float64(max(sites, 1))
}

// Workers is how many concurrent workers reach a target operation rate,
// by Little's law from a measured mean latency (seconds): in flight =
// rate x latency.
func Workers(targetOps, meanLatency float64) int {
	return int(math.Ceil(targetOps * meanLatency))
}

// ParseBytes reads "1PB", "4MB", "10TiB": the bench's one size parser.
func ParseBytes(s string) (float64, error) {
	n, err := quick.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("sizing: %w", err)
	}
	return float64(n), nil
}

// Human prints bytes with a decimal unit.
func Human(b float64) string {
	for _, u := range []struct {
		name string
		v    float64
	}{{"PB", 1e15}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if b >= u.v {
			return fmt.Sprintf("%.2f %s", b/u.v, u.name)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}
