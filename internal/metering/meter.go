// Package metering counts what tenants use, for billing: requests by
// class and bytes moved, gathered in memory on each node and added to the
// catalog every few seconds, and the bytes stored, sampled once an hour.
package metering

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/jobs"
)

type bucketHour struct {
	bucket string
	hour   time.Time
}

// Meter gathers one node's traffic. Requests only touch a map under a
// mutex; the catalog sees one row per bucket and hour per flush, so no
// counter row becomes hot however many requests arrive.
type Meter struct {
	cat  catalog.Store
	node string

	mu      sync.Mutex
	counts  map[bucketHour]catalog.Traffic
	sampled time.Time // the last hour whose storage this node sampled
	now     func() time.Time
}

// New returns a meter writing to cat under a node id unique to this
// process (nodes keep no state, so a restart is a new node).
func New(cat catalog.Store) *Meter {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return &Meter{cat: cat, node: host + "-" + hex.EncodeToString(b[:]), counts: map[bucketHour]catalog.Traffic{}, now: time.Now}
}

// Record counts one request on bucket.
func (m *Meter) Record(bucket string, t catalog.Traffic) {
	k := bucketHour{bucket, m.now().UTC().Truncate(time.Hour)}
	m.mu.Lock()
	c := m.counts[k]
	c.Add(t)
	m.counts[k] = c
	m.mu.Unlock()
}

// Flush adds what was recorded to the catalog and samples storage once an
// hour. Counts it could not write are kept for the next flush.
func (m *Meter) Flush(ctx context.Context) error {
	m.mu.Lock()
	counts := m.counts
	m.counts = map[bucketHour]catalog.Traffic{}
	m.mu.Unlock()

	rows := make(map[catalog.MeterKey]catalog.Traffic, len(counts))
	for k, t := range counts {
		tenant := ""
		b, err := m.cat.GetBucket(ctx, k.bucket)
		switch {
		case err == nil:
			tenant = b.Tenant
		case !errors.Is(err, catalog.ErrNoSuchBucket):
			m.keep(counts)
			return fmt.Errorf("metering: bucket %s: %w", k.bucket, err)
		}
		// A bucket gone since is billed to the provider's rows ("").
		mk := catalog.MeterKey{Tenant: tenant, Bucket: k.bucket, Hour: k.hour}
		c := rows[mk]
		c.Add(t)
		rows[mk] = c
	}
	if err := m.cat.AddTraffic(ctx, m.node, rows); err != nil {
		m.keep(counts)
		return fmt.Errorf("metering: %w", err)
	}
	hour := m.now().UTC().Truncate(time.Hour)
	if hour.After(m.sampled) {
		if err := m.cat.SampleStorage(ctx, hour); err != nil {
			return fmt.Errorf("metering: %w", err)
		}
		m.sampled = hour
	}
	return nil
}

// keep puts back counts a failed flush took.
func (m *Meter) keep(counts map[bucketHour]catalog.Traffic) {
	m.mu.Lock()
	for k, t := range counts {
		c := m.counts[k]
		c.Add(t)
		m.counts[k] = c
	}
	m.mu.Unlock()
}

// Run flushes every interval until ctx ends, and once more then.
func (m *Meter) Run(ctx context.Context, every time.Duration) {
	jobs.FlushEvery(ctx, every, "metering", m.Flush)
}
