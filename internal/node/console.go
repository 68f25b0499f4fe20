package node

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/console"
)

// openConsole builds the web console's handler over the node's services.
func (n *Node) openConsole() (http.Handler, error) {
	return console.New(console.Options{Catalog: n.Catalog, Objects: n.Service, Admin: n.Admin, Keys: n.Keys, S3: n.S3,
		Audit: n.Audit, Health: n.consoleHealth, IdleExpiry: n.cfg.ConsoleIdleExpiry, MaxAge: n.cfg.ConsoleMaxAge})
}

// isConsole tells the console's paths.
func isConsole(path string) bool {
	return path == strings.TrimSuffix(console.Prefix, "/") || strings.HasPrefix(path, console.Prefix)
}

// consoleHealth is what the provider's console shows of this node: the
// readiness check's report and the collector's backlog.
func (n *Node) consoleHealth(ctx context.Context) any {
	type report struct {
		Node         string            `json:"node"`
		Catalog      string            `json:"catalog"`
		Platforms    map[string]string `json:"platforms"`
		Jobs         map[string]string `json:"jobs"`
		Requests     int               `json:"requests"`
		Max          int               `json:"max_requests"`
		Backlog      int64             `json:"collector_backlog"`
		BacklogAge   float64           `json:"collector_backlog_oldest_seconds"`
		BacklogError string            `json:"collector_backlog_error,omitempty"`
	}
	out := report{Node: n.ID, Catalog: "ok", Platforms: map[string]string{}}
	out.Requests, out.Max = n.S3.Load()
	jobs, err := n.ready.read(ctx, n.Catalog)
	out.Jobs = jobs
	if err != nil {
		out.Catalog = err.Error()
	}
	for name, err := range n.Platforms.Health() {
		out.Platforms[name] = "ok"
		if err != nil {
			out.Platforms[name] = err.Error()
		}
	}
	if b, ok := n.Catalog.(gcBacklog); ok {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		count, oldest, err := b.GCBacklog(ctx)
		out.Backlog, out.BacklogAge = count, oldest.Seconds()
		if err != nil {
			out.BacklogError = err.Error()
		}
	}
	return out
}
