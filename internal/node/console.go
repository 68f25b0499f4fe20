package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/console"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/s3"
)

// The console has a listener of its own, never S3's: a tenant's object
// (an HTML or SVG page, rendered by a browser) is then of another
// origin than the console's, so its scripts cannot read the console's
// API with a signed-in user's session, nor pass its Origin check.

// openConsole builds the web console's handler over the node's services.
func (n *Node) openConsole() (http.Handler, error) {
	o := console.Options{Catalog: n.Catalog, Objects: n.Service, Admin: n.Admin, Keys: n.Keys, S3: n.S3,
		Audit: n.Audit, Meter: n.Meter, Health: n.consoleHealth, IdleExpiry: n.cfg.ConsoleIdleExpiry, MaxAge: n.cfg.ConsoleMaxAge,
		S3Endpoint: n.s3Endpoint}
	if n.Directories != nil {
		o.Directory = n.Directories
	}
	if n.IdPs != nil {
		o.IdPs = n.IdPs
	}
	return console.New(o)
}

// consoleRoute is the console listener's handler: the console under
// /console/ (/ leads there), nothing else.
func (n *Node) consoleRoute(s3h *s3.Server, consoleh http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hsts(s3h, w, r)
		switch {
		case isConsole(r.URL.Path):
			consoleh.ServeHTTP(w, r)
			return
		case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			http.Redirect(w, r, console.Prefix, http.StatusFound)
			return
		}
		if r.ContentLength != 0 { // no body is read
			w.Header().Set("Connection", "close")
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.NotFound(w, r)
	})
}

// isConsole tells the console's paths.
func isConsole(path string) bool {
	return path == strings.TrimSuffix(console.Prefix, "/") || strings.HasPrefix(path, console.Prefix)
}

// s3Endpoint is where the console's share links point: console_s3_url,
// else the host the browser asked the console for, with the port and
// scheme of the S3 listener that serves as the console does (HTTPS when
// the console is on HTTPS).
func (n *Node) s3Endpoint(r *http.Request) (scheme, host string) {
	if n.cfg.ConsoleS3URL != "" {
		u, _ := url.Parse(n.cfg.ConsoleS3URL) // Validate parsed it
		return u.Scheme, u.Host
	}
	listen := n.cfg.Listen
	scheme = "http"
	if iam.OriginOf(r.Context()).Secure && n.cfg.TLSListen != "" || n.cfg.Listen == "" {
		scheme, listen = "https", n.cfg.TLSListen
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	if _, port, err := net.SplitHostPort(listen); err == nil && port != "" && port != "0" {
		return scheme, net.JoinHostPort(strings.Trim(name, "[]"), port)
	}
	return scheme, r.Host
}

func (c *Config) validateConsole() error {
	var errs []error
	switch l := c.ConsoleListen; {
	case l == "" || l == ConsoleOff:
	case (l == c.Listen || l == c.TLSListen) && !strings.HasSuffix(l, ":0"):
		errs = append(errs, fmt.Errorf("console_listen: %q is S3's listener too; the console needs one of its own, apart from S3's origin", l))
	default:
		if _, _, err := net.SplitHostPort(l); err != nil {
			errs = append(errs, fmt.Errorf("console_listen: %q is neither host:port nor %q", l, ConsoleOff))
		}
	}
	if c.ConsoleS3URL != "" {
		u, err := url.Parse(c.ConsoleS3URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			errs = append(errs, errors.New("console_s3_url: must be http(s)://host[:port] of the S3 endpoint, with no path"))
		}
	}
	return errors.Join(errs...)
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
