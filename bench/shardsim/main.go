// Command shardsim models how a provider's catalog splits over several
// PostgreSQL clusters: where buckets land under each placement scheme,
// how even the clusters come out with tenants of very unequal size, what
// rebalancing moves, and how long moving one bucket takes and stops its
// writes. docs/scaling.md uses its figures.
//
//	go run ./bench/shardsim                      # the defaults: 100 billion objects, largest tenant 1 billion
//	go run ./bench/shardsim -clusters 16 -copy-rate 40000
//
// The model: tenants' sizes follow a Zipf law whose exponent is chosen so
// that the largest tenant holds -largest objects of -objects; each
// tenant has buckets in proportion to its size (one per -bucket-objects,
// 1 to -max-buckets), and a tenant's buckets again follow a Zipf law
// (exponent 1), except that the largest tenant keeps everything in one
// bucket (a backup product's repository, the worst case). A bucket's
// write rate is its share of -writes, with one bucket in a hundred ten
// times as busy as its size says. Buckets are created in random order and
// grow evenly to their final size, so a placement decided at creation
// sees the loads of that moment, not the final ones.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

type bucket struct {
	tenant  int
	name    string
	objects float64
	writes  float64 // PUT/s
	born    float64 // 0..1, when it was created in the provider's life
}

type config struct {
	objects, largest  float64
	tenants           int
	bucketObjects     float64
	maxBuckets        int
	writes            float64
	clusters          []int
	indexShardObjects float64
	citusShards       int
	imbalance         float64
	copyRate          float64
	freeze            time.Duration
	seed              uint64
}

func main() {
	var c config
	var clusters string
	flag.Float64Var(&c.objects, "objects", 100e9, "objects across the provider")
	flag.Float64Var(&c.largest, "largest", 1e9, "objects of the largest tenant")
	flag.IntVar(&c.tenants, "tenants", 20000, "tenants")
	flag.Float64Var(&c.bucketObjects, "bucket-objects", 20e6, "a tenant has one bucket per this many objects")
	flag.IntVar(&c.maxBuckets, "max-buckets", 1000, "most buckets of a tenant")
	flag.Float64Var(&c.writes, "writes", 200000, "PUT/s across the provider")
	flag.StringVar(&clusters, "clusters", "8,32,64", "PostgreSQL clusters to split over (comma-separated)")
	flag.Float64Var(&c.indexShardObjects, "index-shard-objects", 100e6, "index shards: a bucket splits every this many objects")
	flag.IntVar(&c.citusShards, "citus-shards", 32, "Citus: shards per cluster (citus.shard_count = this x clusters)")
	flag.Float64Var(&c.imbalance, "imbalance", 1.10, "the rebalancer moves buckets until the fullest cluster holds at most this times the mean")
	flag.Float64Var(&c.copyRate, "copy-rate", 50000, "rows a second a bucket move copies (measure it: docs/scaling.md)")
	flag.DurationVar(&c.freeze, "freeze", 200*time.Millisecond, "a move's last catch-up may stop the bucket's writes this long at most")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.Parse()
	for _, f := range strings.Split(clusters, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "shardsim: -clusters: %q is not a count\n", f)
			os.Exit(2)
		}
		c.clusters = append(c.clusters, n)
	}
	bs, s := provider(c)
	fmt.Printf("Provider: %.0f objects in %d tenants (Zipf exponent %.3f: the largest holds %.0f), %d buckets, %.0f PUT/s.\n",
		c.objects, c.tenants, s, c.largest, len(bs), c.writes)
	big := slices.MaxFunc(bs, func(a, b bucket) int { return cmpf(a.objects, b.objects) })
	fmt.Printf("Largest bucket: %.0f objects (%.1f%% of all), %.0f PUT/s.\n\n", big.objects, 100*big.objects/c.objects, big.writes)

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "clusters\tscheme\tfullest / mean (objects)\tbusiest / mean (PUT/s)\tlargest unit (objects)\tfullest cluster (objects)\tmoved to balance\tlist fan-out, largest bucket\t")
	for _, n := range c.clusters {
		for _, r := range schemes(c, bs, n) {
			fmt.Fprintf(w, "%d\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%d\t\n", n, r.scheme, r.fullest, r.busiest, si(r.unit), si(r.top), r.moved, r.fanout)
		}
	}
	w.Flush()

	fmt.Printf("\nMoving one bucket at %.0f rows/s (copy, then catch up on what was written meanwhile, until the rest fits in %v of stopped writes):\n\n", c.copyRate, c.freeze)
	w = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "objects\tPUT/s into it\tcopy + catch-up\tpasses\twrites stopped\t")
	for _, size := range []float64{1e6, 10e6, 100e6, 1e9} {
		for _, rate := range []float64{10, 1000, 20000} {
			m := move(size, rate, c.copyRate, c.freeze)
			stopped := m.stopped.Round(time.Millisecond).String()
			if !m.converges {
				stopped = "never converges: writes outrun the copy"
			}
			fmt.Fprintf(w, "%s\t%.0f\t%s\t%d\t%s\t\n", si(size), rate, m.total.Round(time.Second), m.passes, stopped)
		}
	}
	w.Flush()
}

// provider draws the tenants and their buckets.
func provider(c config) ([]bucket, float64) {
	// The Zipf exponent that gives the largest tenant its share.
	share := c.largest / c.objects
	lo, hi := 0.0, 3.0
	for range 100 {
		mid := (lo + hi) / 2
		if 1/harmonic(c.tenants, mid) > share {
			hi = mid
		} else {
			lo = mid
		}
	}
	s := (lo + hi) / 2
	h := harmonic(c.tenants, s)
	rng := rand.New(rand.NewPCG(c.seed, 7))
	var bs []bucket
	for t := 1; t <= c.tenants; t++ {
		objects := c.objects / h / math.Pow(float64(t), s)
		n := 1
		if t > 1 {
			n = int(math.Max(1, math.Min(float64(c.maxBuckets), math.Round(objects/c.bucketObjects))))
		}
		hb := harmonic(n, 1)
		for b := 1; b <= n; b++ {
			bs = append(bs, bucket{tenant: t, name: fmt.Sprintf("t%d-b%d", t, b), objects: objects / hb / float64(b), born: rng.Float64()})
		}
	}
	for i := range bs {
		bs[i].writes = c.writes * bs[i].objects / c.objects
		if rng.IntN(100) == 0 {
			bs[i].writes *= 10
		}
	}
	return bs, s
}

func harmonic(n int, s float64) float64 {
	h := 0.0
	for k := 1; k <= n; k++ {
		h += 1 / math.Pow(float64(k), s)
	}
	return h
}

type result struct {
	scheme           string
	fullest, busiest float64
	unit, top        float64
	moved            string
	fanout           int
}

// unit is what a scheme places whole: a bucket, a tenant, a Citus shard
// or a bucket's index shard.
type unit struct {
	key             string
	objects, writes float64
	born            float64
}

func schemes(c config, bs []bucket, n int) []result {
	byBucket := make([]unit, len(bs))
	for i, b := range bs {
		byBucket[i] = unit{b.name, b.objects, b.writes, b.born}
	}
	var out []result

	// Each bucket on the cluster its name hashes to.
	loads := place(byBucket, n, func(u unit, _ []unit3) int { return hash(u.key) % n })
	out = append(out, summarise("bucket hash", loads, byBucket, "0", 1))

	// Each tenant whole on one cluster.
	tenants := map[int]*unit{}
	for _, b := range bs {
		u := tenants[b.tenant]
		if u == nil {
			u = &unit{key: fmt.Sprint("t", b.tenant), born: b.born}
			tenants[b.tenant] = u
		}
		u.objects += b.objects
		u.writes += b.writes
	}
	var byTenant []unit
	for _, u := range tenants {
		byTenant = append(byTenant, *u)
	}
	sort.Slice(byTenant, func(i, j int) bool { return byTenant[i].key < byTenant[j].key })
	loads = place(byTenant, n, func(u unit, _ []unit3) int { return hash(u.key) % n })
	out = append(out, summarise("tenant hash", loads, byTenant, "0", 1))

	// Citus: buckets hashed into citus-shards x n shards, shards spread
	// round robin and then moved by the shard rebalancer.
	shards := make([]unit, c.citusShards*n)
	for i := range shards {
		shards[i].key = fmt.Sprint("s", i)
	}
	for _, u := range byBucket {
		s := &shards[hash(u.key)%len(shards)]
		s.objects += u.objects
		s.writes += u.writes
	}
	loads = place(shards, n, func(u unit, _ []unit3) int {
		var i int
		fmt.Sscanf(u.key, "s%d", &i)
		return i % n
	})
	moved := rebalance(loads, n, c.imbalance)
	out = append(out, summarise("Citus, bucket column", loads, shards, moved, 1))

	// A directory of buckets: a new bucket goes to the cluster that is
	// emptiest at its creation (seeing only what exists then), and a
	// rebalancer moves whole buckets afterwards.
	loads = place(byBucket, n, nil)
	out = append(out, summarise("bucket directory, at creation", loads, byBucket, "0", 1))
	moved = rebalance(loads, n, c.imbalance)
	out = append(out, summarise("bucket directory, rebalanced", loads, byBucket, moved, 1))

	// Index shards: a bucket splits into ceil(objects / index-shard-
	// objects) shards by key hash, each placed by the directory.
	var pieces []unit
	fan := 1
	for _, u := range byBucket {
		k := int(math.Ceil(u.objects / c.indexShardObjects))
		fan = max(fan, k)
		for i := range k {
			pieces = append(pieces, unit{fmt.Sprintf("%s#%d", u.key, i), u.objects / float64(k), u.writes / float64(k), u.born})
		}
	}
	loads = place(pieces, n, nil)
	moved = rebalance(loads, n, c.imbalance)
	out = append(out, summarise(fmt.Sprintf("directory + index shards of %s", si(c.indexShardObjects)), loads, pieces, moved, fan))
	return out
}

// unit3 is a cluster's units and totals.
type unit3 struct {
	units           []unit
	objects, writes float64
}

// place puts every unit on a cluster: by pick, or (nil) on the emptiest
// at the unit's creation, units growing evenly from creation to the end.
func place(us []unit, n int, pick func(unit, []unit3) int) []unit3 {
	cl := make([]unit3, n)
	// A unit born at b with final size o holds o (t-b)/(1-b) at t: a
	// cluster's load at t is t*sum(a) - sum(a*b), with a = o/(1-b).
	rate, offset := make([]float64, n), make([]float64, n)
	order := slices.Clone(us)
	sort.SliceStable(order, func(i, j int) bool { return order[i].born < order[j].born })
	for _, u := range order {
		i := 0
		if pick != nil {
			i = pick(u, cl)
		} else {
			best := math.Inf(1)
			for j := range cl {
				if now := u.born*rate[j] - offset[j]; now < best {
					best, i = now, j
				}
			}
		}
		a := u.objects / (1 - u.born + 1e-9)
		rate[i] += a
		offset[i] += a * u.born
		cl[i].units = append(cl[i].units, u)
		cl[i].objects += u.objects
		cl[i].writes += u.writes
	}
	return cl
}

// rebalance moves units from the fullest cluster to the emptiest, the
// largest that fits below the mean first, until the fullest is within
// limit times the mean; it returns the share of all objects moved.
func rebalance(cl []unit3, n int, limit float64) string {
	total := 0.0
	for _, c := range cl {
		total += c.objects
	}
	mean := total / float64(n)
	movedObjects := 0.0
	for range 100000 {
		hi, lo := 0, 0
		for i := range cl {
			if cl[i].objects > cl[hi].objects {
				hi = i
			}
			if cl[i].objects < cl[lo].objects {
				lo = i
			}
		}
		if cl[hi].objects <= limit*mean {
			break
		}
		// The largest unit whose move leaves the receiver no fuller than
		// the giver was.
		gap := cl[hi].objects - cl[lo].objects
		best := -1
		for i, u := range cl[hi].units {
			if u.objects < gap && (best < 0 || u.objects > cl[hi].units[best].objects) {
				best = i
			}
		}
		if best < 0 {
			break // what is left is one unit too large to move anywhere
		}
		u := cl[hi].units[best]
		cl[hi].units = slices.Delete(cl[hi].units, best, best+1)
		cl[hi].objects -= u.objects
		cl[hi].writes -= u.writes
		cl[lo].units = append(cl[lo].units, u)
		cl[lo].objects += u.objects
		cl[lo].writes += u.writes
		movedObjects += u.objects
	}
	return fmt.Sprintf("%.1f%%", 100*movedObjects/total)
}

func summarise(scheme string, cl []unit3, us []unit, moved string, fanout int) result {
	var objects, writes, top, busy float64
	for _, c := range cl {
		objects += c.objects
		writes += c.writes
		top = math.Max(top, c.objects)
		busy = math.Max(busy, c.writes)
	}
	unitMax := 0.0
	for _, u := range us {
		unitMax = math.Max(unitMax, u.objects)
	}
	n := float64(len(cl))
	return result{scheme: scheme, fullest: top / (objects / n), busiest: busy / (writes / n), unit: unitMax, top: top, moved: moved, fanout: fanout}
}

type moveResult struct {
	total, stopped time.Duration
	passes         int
	converges      bool
}

// move models copying a bucket of size objects to another cluster while
// it takes rate PUT/s: a full copy, then passes over what changed during
// the last, until a pass is short enough to run with the bucket's writes
// held (the cut-over), or the passes stop shrinking.
func move(size, rate, copyRate float64, freeze time.Duration) moveResult {
	if rate >= copyRate {
		return moveResult{total: time.Duration(size / copyRate * float64(time.Second)), passes: 1}
	}
	t := size / copyRate
	total, passes := t, 1
	for {
		delta := rate * t // rows written during the last pass
		t = delta / copyRate
		if time.Duration(t*float64(time.Second)) <= freeze || passes > 50 {
			return moveResult{total: time.Duration((total + t) * float64(time.Second)), stopped: time.Duration(t * float64(time.Second)), passes: passes + 1, converges: true}
		}
		total += t
		passes++
	}
}

func hash(s string) int {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int(h.Sum64() >> 1)
}

func cmpf(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// si writes n with a unit: 1.2M, 3.4G (objects).
func si(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fG", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}
