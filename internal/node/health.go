package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

// healthPrefix is where the load balancer's checks go: /health/live
// (the process answers) and /health/ready (it can serve).
const healthPrefix = "/health/"

func newNodeID() string {
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// health answers the checks. A node is ready while its catalog takes
// writes (so a node left on a standby after a failover drains) and it
// has request slots to spare (a saturated node would answer
// SlowDown; the balancer had better send new clients elsewhere);
// the platforms' states are in the body but do not fail the check: an
// unreachable platform is unreachable from every node, and clients get a
// precise 503 with Retry-After from a node rather than the balancer's
// bare one.
func (n *Node) health(w http.ResponseWriter, r *http.Request) {
	// A check carries no body, and none is read: close the connection, or
	// net/http would wait, with no deadline, for a body declared and
	// never sent before it answered.
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == healthPrefix+"live" {
		w.WriteHeader(http.StatusOK)
		return
	}
	if r.URL.Path != healthPrefix+"ready" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	out := struct {
		Node      string            `json:"node"`
		Catalog   string            `json:"catalog"`
		Platforms map[string]string `json:"platforms"`
		Jobs      map[string]string `json:"jobs"`         // job -> the node holding its lease
		Requests  int               `json:"requests"`     // S3 requests in flight
		Max       int               `json:"max_requests"` // and the most the node serves
		Saturated bool              `json:"saturated,omitempty"`
	}{Node: n.ID, Catalog: "ok", Platforms: map[string]string{}, Jobs: map[string]string{}}
	status := http.StatusOK
	out.Requests, out.Max = n.S3.Load()
	if n.S3.Saturated() {
		out.Saturated, status = true, http.StatusServiceUnavailable
	}
	var catalogErr error
	out.Jobs, catalogErr = n.ready.read(r.Context(), n.Catalog)
	if catalogErr != nil {
		out.Catalog, status = catalogErr.Error(), http.StatusServiceUnavailable
	}
	for name, err := range n.Platforms.Health() {
		out.Platforms[name] = "ok"
		if err != nil {
			out.Platforms[name] = err.Error()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(out)
}

// readyCache keeps what the readiness check reads from the catalog for a
// second. Anyone may ask, so each check reading the catalog itself would
// let a flood of checks queue catalog reads ahead of the tenants'; one
// check at a time reads, the others take its answer.
type readyCache struct {
	mu   sync.Mutex
	at   time.Time
	err  error
	jobs map[string]string
}

// readyMaxAge is how long the catalog's answer stands: the balancer
// checks every few seconds.
const readyMaxAge = time.Second

func (c *readyCache) read(ctx context.Context, cat catalog.Store) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.at) < readyMaxAge {
		return c.jobs, c.err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	c.jobs = map[string]string{}
	c.err = cat.CanWrite(ctx)
	if leases, err := cat.ListLeases(ctx); err == nil {
		for _, l := range leases {
			if l.Expires.After(time.Now()) {
				c.jobs[l.Name] = l.Holder
			}
		}
	}
	c.at = time.Now()
	return c.jobs, c.err
}
