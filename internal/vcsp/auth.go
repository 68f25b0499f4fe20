package vcsp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Basic auth bounds.
const (
	// MaxFailures failed attempts from one address within FailureWindow
	// make it wait out the window.
	MaxFailures   = 10
	FailureWindow = 5 * time.Minute
	// maxAddresses bounds the addresses whose failures are counted.
	maxAddresses = 10_000
	// maxVerified bounds the credentials remembered as verified.
	maxVerified = 4096
	// checkSlots bounds concurrent password hash checks: each holds
	// 64 MiB (argon2id) and a core for a while.
	checkSlots = 2
	// checkWait is how long a request waits for a check slot.
	checkWait = 10 * time.Second
)

// guard checks a library's basic auth. A subscriber sends its
// credentials with every request, and a hash check costs 64 MiB and tens
// of milliseconds, so a credential once verified is remembered (by a
// keyed digest, against the hash it matched: a new password forgets it),
// and checks run two at a time.
type guard struct {
	key   [32]byte // this node's key for the remembered digests
	slots chan struct{}

	mu       sync.Mutex
	verified map[string]verified // by tenant/name
	failures map[string]*failures
	now      func() time.Time
}

type verified struct{ hash, digest string }

type failures struct {
	n     int
	first time.Time
}

func newGuard() *guard {
	g := &guard{slots: make(chan struct{}, checkSlots), verified: map[string]verified{}, failures: map[string]*failures{}, now: time.Now}
	rand.Read(g.key[:])
	return g
}

func (g *guard) digest(p catalog.Publication, user, password string) string {
	m := hmac.New(sha256.New, g.key[:])
	m.Write([]byte(p.Tenant + "\x00" + p.Name + "\x00" + user + "\x00" + password))
	return string(m.Sum(nil))
}

// blocked reports whether addr failed too often lately.
func (g *guard) blocked(addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	f := g.failures[addr]
	if f == nil {
		return false
	}
	if g.now().Sub(f.first) >= FailureWindow {
		delete(g.failures, addr)
		return false
	}
	return f.n >= MaxFailures
}

// fail counts a failed attempt of addr.
func (g *guard) fail(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	f := g.failures[addr]
	if f == nil || now.Sub(f.first) >= FailureWindow {
		if len(g.failures) >= maxAddresses {
			for a, f := range g.failures {
				if now.Sub(f.first) >= FailureWindow {
					delete(g.failures, a)
				}
			}
			if len(g.failures) >= maxAddresses {
				// Still full of recent failures: the oldest counts go.
				g.failures = map[string]*failures{}
			}
		}
		f = &failures{first: now}
		g.failures[addr] = f
	}
	f.n++
}

// check reports whether user and password open p; a check that cannot
// get a slot in time fails with ctx's error or errBusy.
func (g *guard) check(ctx context.Context, p catalog.Publication, user, password string) (bool, error) {
	userOK := subtle.ConstantTimeCompare([]byte(user), []byte(p.User)) == 1
	d := g.digest(p, user, password)
	id := p.Tenant + "/" + p.Name
	g.mu.Lock()
	v, ok := g.verified[id]
	g.mu.Unlock()
	if ok && v.hash == p.PasswordHash && subtle.ConstantTimeCompare([]byte(v.digest), []byte(d)) == 1 {
		return userOK, nil
	}
	t := time.NewTimer(checkWait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	case <-t.C:
		return false, errBusy
	}
	pwOK := iam.CheckPassword(p.PasswordHash, password)
	<-g.slots
	if !userOK || !pwOK {
		return false, nil
	}
	g.mu.Lock()
	if len(g.verified) >= maxVerified {
		clear(g.verified)
	}
	g.verified[id] = verified{hash: p.PasswordHash, digest: d}
	g.mu.Unlock()
	return true, nil
}
