package bench

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The rate-limit figures take a minute, so they run only when asked:
//
//	OSTIUM_BENCH_RATELIMIT=1 go test -run TestTenantRateLimit -v ./bench
//
// Three nodes sharing one catalog; tenant "tier" is sold 100 requests a
// second, tenant "neighbour" has no rate. The neighbour's rate alone (6
// clients, 2 a node) is the ceiling; then, for 30 s, the tier tenant
// asks far beyond its rate (24 clients, 8 a node, HeadBucket, SlowDowns
// retried as the SDK does) while the neighbour goes on. The figures: the tier tenant's
// admitted requests a second (mean, and the spread of the seconds) over
// its limit, and the neighbour's rate over its ceiling. Written to
// bench/results/DATE-ratelimit.md with the per-second chart.
func TestTenantRateLimit(t *testing.T) {
	if os.Getenv("OSTIUM_BENCH_RATELIMIT") != "1" {
		t.Skip("rate-limit benchmark: OSTIUM_BENCH_RATELIMIT=1")
	}
	const limit, seconds, warm = 100, 30, 3
	ctx := context.Background()
	first := nodetest.Start(t, nodetest.Options{})
	nodes := []*nodetest.Server{first, nodetest.StartPeer(t, first, nodetest.Options{}), nodetest.StartPeer(t, first, nodetest.Options{})}
	adm := admin.NewClient(first.URL, nodetest.AccessKey, nodetest.SecretKey, first.Client())
	keys := map[string]admin.Key{}
	for _, tenant := range []string{"tier", "neighbour"} {
		must(t, adm.Do(ctx, "POST", "/tenants", map[string]string{"name": tenant}, nil))
		must(t, adm.Do(ctx, "POST", "/tenants/"+tenant+"/users", map[string]string{"name": "u", "role": "admin"}, nil))
		var k admin.Key
		must(t, adm.Do(ctx, "POST", "/tenants/"+tenant+"/users/u/keys", nil, &k))
		keys[tenant] = k
	}
	must(t, adm.Do(ctx, "PUT", "/tenants/tier/quotas", admin.Quota{RequestsPerSec: limit}, nil))
	// attempts 1: a flood, each SlowDown followed at once by the next
	// request; 0: the SDK as an application has it, a SlowDown retried
	// with its back-off and retry quota, as by every S3 SDK.
	clients := func(tenant string, attempts int) []*s3.Client {
		var out []*s3.Client
		for _, n := range nodes {
			out = append(out, s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(n.URL), UsePathStyle: true,
				Credentials: credentials.NewStaticCredentialsProvider(keys[tenant].AccessKey, keys[tenant].SecretKey, ""),
				HTTPClient:  &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}, RetryMaxAttempts: attempts}))
		}
		return out
	}
	tier, neighbour := clients("tier", 1), clients("neighbour", 1)
	for tenant, cs := range map[string][]*s3.Client{"tier": tier, "neighbour": neighbour} {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			_, err := cs[0].CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("b-" + tenant)})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
		}
	}
	// count runs workers of cs for d, counting 200s per second.
	count := func(cs []*s3.Client, bucket string, workers int, d time.Duration, stop *atomic.Bool) (perSecond []int64, wait func()) {
		perSecond = make([]int64, int(d/time.Second)+1)
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := cs[w%len(cs)]
				for !stop.Load() && time.Since(start) < d {
					_, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)})
					if s := int(time.Since(start) / time.Second); err == nil && s < len(perSecond) {
						mu.Lock()
						perSecond[s]++
						mu.Unlock()
					}
				}
			}()
		}
		return perSecond, wg.Wait
	}
	var never atomic.Bool
	alone, wait := count(neighbour, "b-neighbour", 6, 15*time.Second, &never)
	wait()
	mean := func(xs []int64) float64 {
		var s int64
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(len(xs))
	}
	ceiling := mean(alone[warm:15])
	var md strings.Builder
	fmt.Fprintf(&md, "# Rates per tenant, %s\n\nThree nodes, one catalog (SQLite), all on the machine's 2 cores with the clients. `tier` is sold %d requests a second and asks with 24 clients (8 a node), `neighbour` with 6 (2 a node), HeadBucket. Two runs of %d s: the tier tenant's clients flooding (each SlowDown followed at once by the next request), then as aws-sdk-go-v2 has them by default (SlowDown retried with back-off).\n\n| figure | flood | SDK retries |\n| --- | ---: | ---: |\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), limit, seconds)
	type run struct {
		admitted, beside []int64
	}
	var runs []run
	for _, attempts := range []int{1, 0} {
		var stop atomic.Bool
		admitted, waitTier := count(clients("tier", attempts), "b-tier", 24, (seconds+warm)*time.Second, &stop)
		beside, waitN := count(neighbour, "b-neighbour", 6, (seconds+warm)*time.Second, &stop)
		waitTier()
		waitN()
		runs = append(runs, run{admitted[:warm+seconds], beside[:warm+seconds]})
	}
	row := func(name string, f func(r run) string) {
		fmt.Fprintf(&md, "| %s | %s | %s |\n", name, f(runs[0]), f(runs[1]))
		t.Logf("%-42s %12s %12s", name, f(runs[0]), f(runs[1]))
	}
	row("limit", func(run) string { return fmt.Sprintf("%d req/s", limit) })
	row("tier tenant admitted, mean", func(r run) string { return fmt.Sprintf("%.1f req/s", mean(r.admitted[warm:])) })
	row("admitted over limit", func(r run) string { return fmt.Sprintf("%.3f", mean(r.admitted[warm:])/limit) })
	row("tier tenant, slowest / fastest second", func(r run) string {
		sorted := slices.Clone(r.admitted[warm:])
		slices.Sort(sorted)
		return fmt.Sprintf("%d / %d", sorted[0], sorted[len(sorted)-1])
	})
	row("neighbour alone (ceiling)", func(run) string { return fmt.Sprintf("%.0f req/s", ceiling) })
	row("neighbour beside the tier tenant", func(r run) string { return fmt.Sprintf("%.0f req/s", mean(r.beside[warm:])) })
	row("neighbour beside over alone", func(r run) string { return fmt.Sprintf("%.2f", mean(r.beside[warm:])/ceiling) })
	admitted, beside := runs[0].admitted, runs[0].beside
	day := time.Now().UTC().Format("2006-01-02")
	out := filepath.Join("results", day+"-ratelimit")
	fmt.Fprintf(&md, "\n![admitted per second, flood run](%s-ratelimit.svg)\n", day)
	must(t, os.WriteFile(out+".md", []byte(md.String()), 0o644))
	must(t, os.WriteFile(out+".svg", []byte(rateChart(admitted, beside, limit)), 0o644))
}

// rateChart draws the tier tenant's and the neighbour's successes per
// second, with the limit as a dashed line.
func rateChart(tier, neighbour []int64, limit int) string {
	const w, h, left, right, top, bottom = 760, 320, 60, 20, 30, 40
	hi := float64(limit) * 1.3
	for _, v := range append(slices.Clone(tier), neighbour...) {
		hi = math.Max(hi, float64(v)*1.1)
	}
	step := math.Pow(10, math.Floor(math.Log10(hi))) / 2 // round ticks: a quarter of the axis each
	hi = math.Ceil(hi/(4*step)) * 4 * step
	x := func(i int) float64 { return left + float64(i)*float64(w-left-right)/float64(max(1, len(tier)-1)) }
	y := func(v float64) float64 { return float64(h-bottom) - v/hi*float64(h-bottom-top) }
	line := func(vs []int64, color string) string {
		var pts []string
		for i, v := range vs {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(float64(v))))
		}
		return fmt.Sprintf(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, color, strings.Join(pts, " "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Requests admitted per second, through three nodes (tier tenant sold %d/s)</text>`, left, limit)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`, left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`, left, top, left, h-bottom)
	for i := 0; i <= 4; i++ {
		v := hi * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.0f</text>`, left-6, y(v)+4, v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`, left, y(v), w-right, y(v))
	}
	for i := 0; i < len(tier); i += 5 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%ds</text>`, x(i), h-bottom+16, i)
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#555" stroke-dasharray="6 4"/>`, left, y(float64(limit)), w-right, y(float64(limit)))
	b.WriteString(line(neighbour, "#2ca02c"))
	b.WriteString(line(tier, "#1f77b4"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1f77b4">tier (limited)</text><text x="%d" y="%d" fill="#2ca02c">neighbour</text><text x="%d" y="%d" fill="#555">limit</text>`,
		w-300, top+10, w-190, top+10, w-100, top+10)
	b.WriteString(`</svg>`)
	return b.String()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
