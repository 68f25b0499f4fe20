// Package ratelimit holds tenants and buckets to the request rates and
// bandwidths a provider sells them, across every node of a cluster.
//
// Each node keeps a token bucket per limited scope, filled at its share
// of the scope's limit. The shares follow demand: every interval each
// node records in the catalog how many requests it was asked for each
// scope, and takes the part of the limit that its demand is of the sum
// over the nodes. However the balancer spreads a tenant's requests, the
// shares add up to the limit; a node that has seen no demand for a
// scope keeps a small floor, so a tenant's first requests on it pass.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/ostiumio/ostium/internal/catalog"
)

// Limits are a scope's rates over the whole cluster, per second; 0 = no
// limit.
type Limits struct {
	Requests, BytesIn, BytesOut int64
}

func (l Limits) none() bool { return l.Requests <= 0 && l.BytesIn <= 0 && l.BytesOut <= 0 }

// Interval is how often nodes share their demand: how soon shares follow
// a change in where a tenant's requests go.
const Interval = 500 * time.Millisecond

// floor is the least share of a limit a node keeps for a scope: enough
// to admit a tenant's first requests on a node before its demand is
// known there, small against the limit.
const floor = 0.05

// idle is how long a scope unused on this node is kept.
const idle = time.Minute

// Limiter enforces limits on this node.
type Limiter struct {
	node     string
	store    catalog.RateDemand
	mu       sync.Mutex
	scopes   map[string]*scope
	limited  atomic.Int64 // requests refused
	interval time.Duration
}

type scope struct {
	limits       Limits
	share        float64
	req, in, out *rate.Limiter // nil where not limited
	asked        atomic.Int64  // requests this interval
	used         time.Time
}

// New returns a limiter of node sharing demand through store.
func New(node string, store catalog.RateDemand) *Limiter {
	return &Limiter{node: node, store: store, scopes: map[string]*scope{}, interval: Interval}
}

// Scope names a tenant's or a bucket's limits.
func TenantScope(tenant string) string { return "t/" + tenant }
func BucketScope(bucket string) string { return "b/" + bucket }

// get returns the scope's state, set to lim (a change of limits applies
// at once, at the current share).
func (l *Limiter) get(name string, lim Limits) *scope {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.scopes[name]
	if s == nil {
		s = &scope{share: 1}
		l.scopes[name] = s
	}
	s.used = time.Now()
	if s.limits != lim {
		s.limits = lim
		s.apply()
	}
	return s
}

// apply sets the buckets to the scope's share of its limits.
func (s *scope) apply() {
	set := func(b **rate.Limiter, perSec int64, minBurst int) {
		if perSec <= 0 {
			*b = nil
			return
		}
		r := float64(perSec) * s.share
		// A tenth of a second's worth: bursts stay small against the
		// limit measured over seconds.
		burst := max(minBurst, int(math.Ceil(r/10)))
		if *b == nil {
			*b = rate.NewLimiter(rate.Limit(r), burst)
			return
		}
		(*b).SetLimit(rate.Limit(r))
		(*b).SetBurst(burst)
	}
	set(&s.req, s.limits.Requests, 1)
	set(&s.in, s.limits.BytesIn, 64<<10)
	set(&s.out, s.limits.BytesOut, 64<<10)
}

// A Refusal is a request over its scope's rate: S3's SlowDown.
type Refusal struct {
	Scope      string
	RetryAfter time.Duration
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("ratelimit: %s over its request rate; retry after %v", r.Scope, r.RetryAfter)
}

// Admit takes one request from each limited scope of a request (a
// tenant's and its bucket's), or refuses it with when to retry. The
// returned Flow paces the request's bytes.
func (l *Limiter) Admit(scopes map[string]Limits) (*Flow, error) {
	f := &Flow{}
	var taken []*rate.Reservation
	for name, lim := range scopes {
		if lim.none() {
			continue
		}
		s := l.get(name, lim)
		s.asked.Add(1)
		if s.req != nil {
			r := s.req.Reserve()
			if d := r.Delay(); d > 0 {
				r.Cancel()
				for _, t := range taken {
					t.Cancel()
				}
				l.limited.Add(1)
				return nil, &Refusal{Scope: name, RetryAfter: d}
			}
			taken = append(taken, r)
		}
		if s.in != nil {
			f.in = append(f.in, s.in)
		}
		if s.out != nil {
			f.out = append(f.out, s.out)
		}
	}
	return f, nil
}

// Limited counts the requests refused since start.
func (l *Limiter) Limited() int64 { return l.limited.Load() }

// Flow paces one request's bytes in each direction.
type Flow struct{ in, out []*rate.Limiter }

// Paced tells whether the flow has a bandwidth to keep to in that
// direction.
func (f *Flow) Paced(in bool) bool {
	if f == nil {
		return false
	}
	if in {
		return len(f.in) > 0
	}
	return len(f.out) > 0
}

// Wait waits until n bytes in the direction may pass, or ctx ends.
func (f *Flow) Wait(ctx context.Context, in bool, n int) error {
	if f == nil {
		return nil
	}
	bs := f.out
	if in {
		bs = f.in
	}
	for _, b := range bs {
		for left := n; left > 0; {
			step := min(left, b.Burst())
			if err := b.WaitN(ctx, step); err != nil {
				return err
			}
			left -= step
		}
	}
	return nil
}

// Run shares demand with the other nodes every interval and adjusts this
// node's shares, until ctx ends.
func (l *Limiter) Run(ctx context.Context) {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := l.share(ctx); err != nil && ctx.Err() == nil {
			slog.Warn("rate limits: sharing demand failed; keeping the shares", "err", err)
		}
	}
}

// share records this interval's demand and takes each scope's share.
func (l *Limiter) share(ctx context.Context) error {
	l.mu.Lock()
	demand := make(map[string]int64, len(l.scopes))
	now := time.Now()
	for name, s := range l.scopes {
		if now.Sub(s.used) > idle {
			delete(l.scopes, name)
			continue
		}
		demand[name] = s.asked.Swap(0)
	}
	l.mu.Unlock()
	if len(demand) == 0 {
		return nil
	}
	// Each node's latest report only: one interval and a half back.
	total, err := l.store.ShareDemand(ctx, l.node, demand, now.Add(-l.interval*3/2))
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, own := range demand {
		s := l.scopes[name]
		if s == nil {
			continue
		}
		share := 1.0
		if sum := total[name]; sum > 0 {
			share = max(float64(own)/float64(sum), floor)
		}
		if share != s.share {
			s.share = share
			s.apply()
		}
	}
	return nil
}
