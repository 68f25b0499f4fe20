package fs

import "sync"

// coalescer shares one flush among concurrent callers. A write is durable
// once a flush that *started after the write completed* has finished, so a
// caller waits for the next flush to start and end; every caller that
// arrived meanwhile rides on the same one. With 16 writers this turns 16
// device flushes into one or two.
type coalescer struct {
	flush func() error

	mu      sync.Mutex
	cond    *sync.Cond
	running bool
	started uint64 // generation of the last flush started
	done    uint64 // generation of the last flush finished
	err     error  // result of generation done
}

func newCoalescer(flush func() error) *coalescer {
	c := &coalescer{flush: flush}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// wait returns once a flush started after the call has finished.
func (c *coalescer) wait() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A flush already running may have begun before the caller's write.
	target := c.started + 1
	for c.done < target {
		if c.running {
			c.cond.Wait()
			continue
		}
		c.running = true
		c.started++
		gen := c.started
		c.mu.Unlock()
		err := c.flush()
		c.mu.Lock()
		c.running, c.done, c.err = false, gen, err
		c.cond.Broadcast()
	}
	return c.err
}
