package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/notify"
)

// JobName is the worker's lease: one node of a cluster delivers.
const JobName = "notification-delivery"

// Store is what the worker reads: the outbox, the targets, and the
// buckets' configurations (to find events for targets no longer
// registered).
type Store interface {
	catalog.Outbox
	catalog.NotifyTargets
	ListBuckets(ctx context.Context, f catalog.BucketFilter) ([]catalog.Bucket, error)
}

// Options pace and bound the worker; zero values take the defaults.
type Options struct {
	// Interval is how often a target with nothing due is looked at
	// again (500 ms).
	Interval time.Duration
	// Refresh is how often the targets are read again (2 s).
	Refresh time.Duration
	// Batch is how many due events of a target are read at once (64).
	Batch int
	// Concurrency bounds the sends in flight over every target (16),
	// PerTarget those to one target (4).
	Concurrency, PerTarget int
	// Timeout bounds one attempt (10 s).
	Timeout time.Duration
	// MaxAttempts is how many times an event is tried before it is
	// dropped and counted as a dead letter (8).
	MaxAttempts int
	// Backoff is the wait after a first failure, doubled after each
	// (1 s), up to MaxBackoff (5 min); each wait is jittered by up to a
	// fifth.
	Backoff, MaxBackoff time.Duration
	// RootCAs are the certificates webhooks' and Kafka brokers' TLS is
	// checked against (nil: the system's).
	RootCAs *x509.CertPool
	Metrics *metrics.Notify
}

func (o *Options) defaults() {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Interval, 500*time.Millisecond)
	def(&o.Refresh, 2*time.Second)
	def(&o.Timeout, 10*time.Second)
	def(&o.Backoff, time.Second)
	def(&o.MaxBackoff, 5*time.Minute)
	defInt(&o.Batch, 64)
	defInt(&o.Concurrency, 16)
	defInt(&o.PerTarget, 4)
	defInt(&o.MaxAttempts, 8)
}

// Worker delivers the outbox's notification events. Each target has a
// loop of its own, so a target that is down (its attempts waiting out
// their timeouts) holds back only its own events; S3 requests never wait
// for any of it, having only written their events.
type Worker struct {
	st     Store
	sealer *iam.Sealer
	o      Options
	client *http.Client
	nats   natsConns
	kafka  kafkaProducers
	slots  chan struct{} // Concurrency

	mu      sync.Mutex
	targets map[string]*target // by ARN; nil for a target no longer registered

	// named are the ARNs buckets' configurations name, read every
	// scanEvery refreshes: a pass over every bucket costs more than a
	// read of the targets, and only finds events to drop.
	named     map[string]bool
	refreshes int
}

// scanEvery is how many target refreshes pass between two reads of the
// buckets' configurations.
const scanEvery = 15

// target is a registered target with its secret opened.
type target struct {
	catalog.NotifyTarget
	secret string
}

// NewWorker returns a worker over st; sealer opens webhooks' secrets.
func NewWorker(st Store, sealer *iam.Sealer, o Options) *Worker {
	o.defaults()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12}
	tr.MaxIdleConnsPerHost = o.PerTarget
	return &Worker{st: st, sealer: sealer, o: o, slots: make(chan struct{}, o.Concurrency),
		nats:  natsConns{timeout: o.Timeout},
		kafka: kafkaProducers{rootCAs: o.RootCAs, timeout: o.Timeout},
		client: &http.Client{Transport: tr, Timeout: o.Timeout,
			// A redirect would carry the signed event somewhere the
			// provider did not register: it is a failure.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
}

// Run delivers until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	loops := map[string]context.CancelFunc{}
	var wg sync.WaitGroup
	defer func() {
		for _, stop := range loops {
			stop()
		}
		wg.Wait()
		w.nats.close()
		w.kafka.close()
	}()
	for {
		arns, err := w.refresh(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Warn("notifications: read targets", "err", err)
		}
		if err == nil {
			for arn := range arns {
				if loops[arn] == nil {
					lctx, stop := context.WithCancel(ctx)
					loops[arn] = stop
					wg.Add(1)
					go func() { defer wg.Done(); w.loop(lctx, arn) }()
				}
			}
			for arn, stop := range loops {
				if !arns[arn] {
					stop()
					delete(loops, arn)
					w.o.Metrics.Forget(arn)
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.o.Refresh):
		}
	}
}

// refresh reads the targets, and the ARNs buckets' configurations name
// (whose events, for a target gone, are dropped as dead letters), and
// returns every ARN to look at.
func (w *Worker) refresh(ctx context.Context) (map[string]bool, error) {
	ts, err := w.st.ListNotifyTargets(ctx)
	if err != nil {
		return nil, err
	}
	m := map[string]*target{}
	for _, t := range ts {
		tt := &target{NotifyTarget: t}
		if len(t.SecretSealed) > 0 {
			if tt.secret, err = w.sealer.Open(t.SecretSealed, t.ARN); err != nil {
				slog.Error("notifications: a target's secret does not open under this node key", "target", t.ARN, "err", err)
				continue
			}
		}
		m[t.ARN] = tt
	}
	if w.refreshes%scanEvery == 0 {
		bs, err := w.st.ListBuckets(ctx, catalog.BucketFilter{})
		if err != nil {
			return nil, err
		}
		named := map[string]bool{}
		for _, b := range bs {
			cfg, err := notify.Decode(b.Notification)
			if err != nil || cfg == nil {
				continue
			}
			for _, d := range cfg.Destinations() {
				named[d.ARN] = true
			}
		}
		w.named = named
	}
	w.refreshes++
	// A target just removed may still be named: its events are dropped
	// until the next pass over the buckets says whether it is.
	w.mu.Lock()
	for arn := range w.targets {
		if m[arn] == nil {
			if w.named == nil {
				w.named = map[string]bool{}
			}
			w.named[arn] = true
		}
	}
	w.mu.Unlock()
	arns := map[string]bool{}
	for arn := range m {
		arns[arn] = true
	}
	for arn := range w.named {
		arns[arn] = true
	}
	w.mu.Lock()
	w.targets = m
	w.mu.Unlock()
	w.kafka.forget(m)
	return arns, nil
}

func (w *Worker) target(arn string) *target {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.targets[arn]
}

// loop delivers one target's events until ctx ends.
func (w *Worker) loop(ctx context.Context, arn string) {
	var counted time.Time
	for ctx.Err() == nil {
		n, err := w.round(ctx, arn)
		if err != nil && ctx.Err() == nil {
			slog.Warn("notifications: delivery round", "target", arn, "err", err)
		}
		if time.Since(counted) >= time.Second {
			counted = time.Now()
			if n, oldest, err := w.st.Backlog(ctx, notify.Sink(arn), ""); err == nil {
				lag := 0.0
				if n > 0 {
					lag = time.Since(oldest).Seconds()
				}
				w.o.Metrics.Backlog(arn, n, lag)
			}
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(w.o.Interval):
		}
	}
}

// round sends the target's due events (of each key, its oldest) and
// settles each: acknowledged, queued again after a back-off, or dropped
// after its last attempt. It returns how many it handled.
func (w *Worker) round(ctx context.Context, arn string) (int, error) {
	events, err := w.st.DueEvents(ctx, notify.Sink(arn), w.o.Batch)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	t := w.target(arn)
	errs := make([]error, len(events))
	if t != nil {
		per := make(chan struct{}, w.o.PerTarget)
		var wg sync.WaitGroup
		for i, e := range events {
			select {
			case per <- struct{}{}:
			case <-ctx.Done():
				wg.Wait()
				return 0, ctx.Err()
			}
			select {
			case w.slots <- struct{}{}:
			case <-ctx.Done():
				<-per
				wg.Wait()
				return 0, ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer func() { <-w.slots; <-per; wg.Done() }()
				errs[i] = w.send(ctx, t, e)
			}()
		}
		wg.Wait()
	}
	if ctx.Err() != nil {
		return 0, ctx.Err() // stopping: what was not acknowledged is sent again
	}
	var done []int64
	delivered, dead := 0, 0
	for i, e := range events {
		switch {
		case t == nil:
			slog.Warn("notifications: event dropped: its target is not registered", "target", arn, "bucket", e.Bucket, "key", e.Key, "event", e.Name)
			done = append(done, e.ID)
			dead++
		case errs[i] == nil:
			done = append(done, e.ID)
			delivered++
		case e.Attempts+1 >= w.o.MaxAttempts:
			slog.Warn("notifications: event dropped after its last attempt", "target", arn, "bucket", e.Bucket, "key", e.Key,
				"event", e.Name, "attempts", e.Attempts+1, "err", errs[i])
			done = append(done, e.ID)
			dead++
			w.o.Metrics.Count(arn, "failed", 1)
		default:
			w.o.Metrics.Count(arn, "failed", 1)
			if err := w.st.RetryEvent(ctx, e.ID, time.Now().Add(w.backoff(e.Attempts)), errs[i].Error()); err != nil {
				return len(events), err
			}
			w.o.Metrics.Count(arn, "retried", 1)
		}
	}
	if err := w.st.AckEvents(ctx, done...); err != nil {
		return len(events), err
	}
	w.o.Metrics.Count(arn, "delivered", delivered)
	w.o.Metrics.Count(arn, "dead_lettered", dead)
	return len(events), nil
}

// backoff is the wait before the attempt after the n+1th failed.
func (w *Worker) backoff(n int) time.Duration {
	d := w.o.Backoff
	for i := 0; i < n && d < w.o.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, w.o.MaxBackoff)
	return d + time.Duration(rand.Int64N(int64(d)/5+1))
}

// send makes one attempt, bounded by the timeout.
func (w *Worker) send(ctx context.Context, t *target, e catalog.Event) error {
	ctx, cancel := context.WithTimeout(ctx, w.o.Timeout)
	defer cancel()
	switch t.Kind {
	case notify.KindWebhook:
		return postWebhook(ctx, w.client, t.Endpoint, t.secret, e.ID, e.Name, e.Payload)
	case notify.KindNATS:
		return w.nats.publish(ctx, t.Endpoint, t.Subject, e.ID, e.Name, e.Payload)
	case notify.KindKafka:
		return w.kafka.produce(ctx, t, e.ID, e.Name, e.Key, e.Payload)
	}
	return errors.New("unknown target kind " + t.Kind)
}
