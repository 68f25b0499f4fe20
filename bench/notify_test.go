package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// The notification figures take a minute, so they run only when asked:
//
//	OSTIUM_BENCH_NOTIFY=1 go test -run TestNotifyWebhook -v ./bench
//
// A node (SQLite catalog, local disk) with a bucket whose every PUT is
// sent to a webhook on loopback HTTPS. Burst: 16 writers PUT 2,000
// objects of 1 KiB as fast as they can, to a bucket without notifications
// and then to the notifying one while its webhook hangs (what the write
// path pays, with a target that is down); the webhook then answers, and
// the backlog's delivery rate is measured next to its ceiling in the
// same run (the same receiver POSTed by a bare client with the worker's
// per-target concurrency, 4). Steady: 100 PUTs a second for 30 s, and the
// lag of each event (received minus the PUT's acknowledgement), per
// second, charted in bench/results/DATE-notify.svg.
func TestNotifyWebhook(t *testing.T) {
	if os.Getenv("OSTIUM_BENCH_NOTIFY") != "1" {
		t.Skip("notification benchmark: OSTIUM_BENCH_NOTIFY=1")
	}
	ctx := context.Background()
	recv := &receiver{at: map[string]time.Time{}}
	hook := httptest.NewUnstartedServer(recv)
	hook.StartTLS()
	defer hook.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}), 0o600)

	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.Notify.CAFile, c.Notify.Timeout = ca, 5*time.Minute }})
	c := rootS3(srv)
	const arn = "arn:ostium:sns:us-east-1:provider:bench"
	adm := admin.NewClient(srv.URL, nodetest.AccessKey, nodetest.SecretKey, srv.Client())
	if err := adm.Do(ctx, "PUT", "/notify-targets", admin.NotifyTarget{ARN: arn, Kind: "webhook", Endpoint: hook.URL, Tenants: []string{"*"}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"events", "plain"} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{Bucket: aws.String("events"),
		NotificationConfiguration: &types.NotificationConfiguration{TopicConfigurations: []types.TopicConfiguration{
			{TopicArn: aws.String(arn), Events: []types.Event{"s3:ObjectCreated:*"}}}}}); err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 1024)
	const burst, writers = 2000, 16
	acks := struct {
		sync.Mutex
		at map[string]time.Time
	}{at: map[string]time.Time{}}
	putKey := func(bucket, key string) {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Error(err)
			return
		}
		acks.Lock()
		acks.at[key] = time.Now()
		acks.Unlock()
	}
	waitAll := func(keys []string) {
		deadline := time.Now().Add(5 * time.Minute)
		for !recv.has(keys) {
			if time.Now().After(deadline) {
				t.Fatalf("events missing after 5 minutes: %d of %d", recv.count(keys), len(keys))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	putBurst := func(prefix string, bucket string) ([]string, time.Time, time.Duration) {
		keys := make([]string, burst)
		for i := range keys {
			keys[i] = fmt.Sprintf("%s/%05d", prefix, i)
		}
		var next atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < burst; i = next.Add(1) - 1 {
					putKey(bucket, keys[i])
				}
			}()
		}
		wg.Wait()
		return keys, start, time.Since(start)
	}

	// The write path's cost: a bucket without notifications, then the
	// notifying one while its webhook hangs (holding the worker's sends
	// until released), which fills the outbox.
	_, _, plainTook := putBurst("plain", "plain")
	plainRate := float64(burst) / plainTook.Seconds()
	recv.hold()
	keys, _, heldTook := putBurst("burst", "events")
	heldRate := float64(burst) / heldTook.Seconds()
	progress("PUT: %.0f/s without notifications, %.0f/s to a bucket whose webhook hangs", plainRate, heldRate)
	// The backlog drains once the webhook answers again.
	released := time.Now()
	recv.release()
	waitAll(keys)
	drain := recv.last(keys).Sub(released)
	deliverRate := float64(burst) / drain.Seconds()
	progress("backlog of %d events drained in %v: %.0f events/s", burst, drain.Round(time.Millisecond), deliverRate)

	// The ceiling: the same receiver, POSTed the same documents by a bare
	// client, 4 at a time.
	doc := recv.sample()
	client := hook.Client()
	var sent atomic.Int64
	cstart := time.Now()
	var cwg sync.WaitGroup
	for range 4 {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for sent.Add(1) <= burst {
				resp, err := client.Post(hook.URL+"/ceiling", "application/json", bytes.NewReader(doc))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	cwg.Wait()
	ceilRate := float64(burst) / time.Since(cstart).Seconds()
	progress("ceiling: %.0f POSTs/s", ceilRate)

	// Steady.
	const rate, seconds = 100, 30
	var steady []string
	tick := time.NewTicker(time.Second / rate)
	sstart := time.Now()
	var swg sync.WaitGroup
	for i := 0; i < rate*seconds; i++ {
		<-tick.C
		key := fmt.Sprintf("steady/%05d", i)
		steady = append(steady, key)
		swg.Add(1)
		go func() { defer swg.Done(); putKey("events", key) }()
	}
	tick.Stop()
	swg.Wait()
	waitAll(steady)
	perSecond := make([][]time.Duration, seconds+1)
	var all []time.Duration
	for _, k := range steady {
		acks.Lock()
		a := acks.at[k]
		acks.Unlock()
		lag := recv.get(k).Sub(a)
		all = append(all, lag)
		s := min(int(a.Sub(sstart).Seconds()), seconds)
		perSecond[s] = append(perSecond[s], lag)
	}
	slices.Sort(all)
	q := func(d []time.Duration, p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	progress("steady %d PUT/s for %d s: lag p50 %v p99 %v max %v", rate, seconds, q(all, .5).Round(time.Millisecond), q(all, .99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))

	day := time.Now().UTC().Format("2006-01-02")
	out := filepath.Join("results", day+"-notify")
	md := fmt.Sprintf(`| figure | value |
| --- | ---: |
| burst: PUTs of 1 KiB by 16 writers | %d |
| PUT rate, bucket without notifications | %.0f /s |
| PUT rate, bucket whose webhook hangs | %.0f /s |
| backlog of the burst delivered once the webhook answers | %.0f events/s |
| ceiling: the same receiver POSTed by a bare client, 4 at a time | %.0f /s |
| delivered over ceiling | %.2f |
| steady load | %d PUT/s for %d s |
| lag p50 | %v |
| lag p99 | %v |
| lag max | %v |
`, burst, plainRate, heldRate, deliverRate, ceilRate, deliverRate/ceilRate, rate, seconds,
		q(all, .5).Round(time.Millisecond), q(all, .99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))
	if err := os.WriteFile(out+".md", []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out+".svg", []byte(lagChart(perSecond, rate)), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Print(md)
}

// receiver is the webhook: when each key's event first arrived. While
// held, it answers nothing until released.
type receiver struct {
	mu   sync.Mutex
	at   map[string]time.Time
	doc  []byte
	gate chan struct{}
}

func (r *receiver) hold() { r.mu.Lock(); r.gate = make(chan struct{}); r.mu.Unlock() }

func (r *receiver) release() { r.mu.Lock(); close(r.gate); r.gate = nil; r.mu.Unlock() }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	gate := r.gate
	r.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-req.Context().Done():
			return
		}
	}
	now := time.Now()
	if req.URL.Path == "/ceiling" {
		var doc struct{ Records []json.RawMessage }
		json.Unmarshal(body, &doc) // the same work the real events cost
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var doc struct {
		Records []struct {
			S3 struct {
				Object struct{ Key string } `json:"object"`
			} `json:"s3"`
		}
	}
	if json.Unmarshal(body, &doc) == nil && len(doc.Records) == 1 {
		key := strings.ReplaceAll(doc.Records[0].S3.Object.Key, "%2F", "/")
		r.mu.Lock()
		if _, ok := r.at[key]; !ok {
			r.at[key] = now
		}
		if r.doc == nil {
			r.doc = body
		}
		r.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) has(keys []string) bool { return r.count(keys) == len(keys) }

func (r *receiver) count(keys []string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, k := range keys {
		if _, ok := r.at[k]; ok {
			n++
		}
	}
	return n
}

func (r *receiver) get(k string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.at[k]
}

func (r *receiver) last(keys []string) time.Time {
	var l time.Time
	for _, k := range keys {
		if t := r.get(k); t.After(l) {
			l = t
		}
	}
	return l
}

func (r *receiver) sample() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.doc
}

// lagChart draws each second's median and largest lag (ms) over the
// steady run.
func lagChart(perSecond [][]time.Duration, rate int) string {
	const w, h, left, bottom, top, right = 720, 360, 60, 40, 30, 20
	var p50, pmax []float64
	top_ := 1.0
	for _, s := range perSecond {
		if len(s) == 0 {
			p50, pmax = append(p50, 0), append(pmax, 0)
			continue
		}
		slices.Sort(s)
		a, b := float64(s[len(s)/2].Microseconds())/1000, float64(s[len(s)-1].Microseconds())/1000
		p50, pmax = append(p50, a), append(pmax, b)
		top_ = max(top_, b)
	}
	scale := top_ * 1.1
	x := func(i int) float64 { return left + float64(i)*float64(w-left-right)/float64(max(1, len(p50)-1)) }
	y := func(v float64) float64 { return float64(h-bottom) - v/scale*float64(h-bottom-top) }
	line := func(vs []float64, color string) string {
		var pts []string
		for i, v := range vs {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
		}
		return fmt.Sprintf(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, color, strings.Join(pts, " "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`, w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Webhook lag under %d PUT/s (ms, per second of the run)</text>`, left, rate)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`, left, h-bottom, w-right, h-bottom)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`, left, top, left, h-bottom)
	for i := 0; i <= 4; i++ {
		v := scale * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.0f</text>`, left-6, y(v)+4, v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`, left, y(v), w-right, y(v))
	}
	for i := 0; i < len(p50); i += 5 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%ds</text>`, x(i), h-bottom+16, i)
	}
	b.WriteString(line(pmax, "#d62728"))
	b.WriteString(line(p50, "#1f77b4"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1f77b4">median</text><text x="%d" y="%d" fill="#d62728">max</text>`, w-160, top+10, w-90, top+10)
	b.WriteString(`</svg>`)
	return b.String()
}
