package sqldb

import (
	"context"
	"database/sql"
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// Where concurrent transactions write (PostgreSQL), each transaction of a
// node adds to a bucket_stats shard no other transaction of that node is
// using: with shards chosen by key hash, 40 writers on 16 shards queued
// behind each other's row locks, each through the other's commit, and
// more clients meant fewer writes. concurrentShards bounds the rows per
// bucket; a node with more transactions in flight than that falls back
// to the key hash for the extra ones.
const concurrentShards = 64

// shardPool hands out shard numbers, last freed first, so that a lightly
// loaded node keeps to a few rows per bucket. Each process starts from
// its own random order, so that nodes sharing a catalog seldom pick the
// same shards.
type shardPool struct {
	mu    sync.Mutex
	free  []int
	inUse sync.Map // *sql.Tx -> int
}

func newShardPool() *shardPool {
	return &shardPool{free: rand.Perm(concurrentShards)}
}

func (p *shardPool) take() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		return 0, false
	}
	n := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	return n, true
}

func (p *shardPool) put(n int) {
	p.mu.Lock()
	p.free = append(p.free, n)
	p.mu.Unlock()
}

// shardWriter gives each transaction of w a shard of its own until it
// ends (commit or rollback: Write has returned).
type shardWriter struct {
	Writer
	pool *shardPool
}

func (w shardWriter) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	n, ok := w.pool.take()
	if !ok {
		return w.Writer.Write(ctx, fn)
	}
	defer w.pool.put(n)
	return w.Writer.Write(ctx, func(tx *sql.Tx) error {
		w.pool.inUse.Store(tx, n)
		defer w.pool.inUse.Delete(tx)
		return fn(tx)
	})
}

// shard is the bucket_stats row tx adds key's changes to.
func (s *Store) shard(tx *sql.Tx, key string) int {
	if s.shards != nil {
		if n, ok := s.shards.inUse.Load(tx); ok {
			return n.(int)
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % statShards)
}
