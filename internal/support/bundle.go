// Package support writes `ostium support bundle`: one archive with what
// support asks for first (version, configuration with its secrets
// redacted, health, logs, catalog statistics, metrics, runtime profiles),
// each part collected on its own so that one that fails is recorded and
// the others still written.
package support

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/node"
)

// Options say what a bundle is collected from.
type Options struct {
	// ConfigFile is the node's configuration ("" = none): included
	// redacted, and on the node itself the way to its catalog and
	// platforms.
	ConfigFile string
	// Endpoint is a running node (http://host:port; "" = none): its
	// health, metrics and profiles, signed with AccessKey and SecretKey
	// (the provider's root; profiles are the root's only).
	Endpoint             string
	AccessKey, SecretKey string
	HTTPClient           *http.Client // nil = one with Timeout bounds of its own
	// Since is how far back logs go (0 = 24 h).
	Since time.Duration
	// Unit is the systemd unit whose journal is read ("" = ostium);
	// LogFile a file the operator sends the node's output to, read
	// instead of (or besides) the journal.
	Unit, LogFile string
	// CPUSeconds is the CPU profile's length (0 = 5).
	CPUSeconds int
	// Version is the binary's version string.
	Version string
	// Progress gets one line per part (nil = none).
	Progress io.Writer
	// Secrets are values to scrub besides those found in the
	// configuration (the root secret of the environment, say).
	Secrets []string
}

// Part is one file of the bundle as MANIFEST.json records it.
type Part struct {
	Name     string `json:"name"`
	File     string `json:"file,omitempty"`
	Bytes    int    `json:"bytes"`
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
	Note     string `json:"note,omitempty"`
	Duration string `json:"duration"`
}

// Manifest is MANIFEST.json: what the bundle holds and what failed.
type Manifest struct {
	Created   time.Time `json:"created"`
	Host      string    `json:"host"`
	Version   string    `json:"ostium_version"`
	Endpoint  string    `json:"endpoint,omitempty"`
	Config    string    `json:"config_file,omitempty"`
	LogsSince time.Time `json:"logs_since"`
	// Redaction says how secrets were kept out: each value found is
	// replaced wherever it stands, so a weak one that is also a word
	// (a catalog password "ostium") hides that word too.
	Redaction string `json:"redaction"`
	Parts     []Part `json:"parts"`
}

// maxPart bounds one part in memory: a tar entry's size is written
// before its bytes.
const maxPart = 64 << 20

// errTooBig marks a part cut at maxPart.
var errTooBig = fmt.Errorf("larger than %d MiB: cut", maxPart>>20)

// collector is one bundle being written.
type collector struct {
	o       Options
	tw      *tar.Writer
	dir     string
	secrets Secrets
	cfg     *node.Config // decoded configuration, if any
	cfgErr  error
	man     Manifest
}

// Write collects a bundle into w (a gzip'd tar). It returns an error only
// when the archive itself cannot be written; failed parts are in the
// returned manifest.
func Write(ctx context.Context, w io.Writer, o Options) (Manifest, error) {
	if o.Since <= 0 {
		o.Since = 24 * time.Hour
	}
	if o.Unit == "" {
		o.Unit = "ostium"
	}
	if o.CPUSeconds <= 0 {
		o.CPUSeconds = 5
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: time.Duration(o.CPUSeconds)*time.Second + 30*time.Second}
	}
	o.Endpoint = strings.TrimSuffix(o.Endpoint, "/")
	host, _ := os.Hostname()
	now := time.Now().UTC()
	c := &collector{o: o, dir: "ostium-support-" + now.Format("20060102-150405"),
		man: Manifest{Created: now, Host: host, Version: o.Version, Endpoint: o.Endpoint, Config: o.ConfigFile, LogsSince: now.Add(-o.Since)}}
	for _, v := range o.Secrets {
		c.secrets.Add(v)
	}
	c.secrets.Add(o.SecretKey)
	gz := gzip.NewWriter(w)
	c.tw = tar.NewWriter(gz)

	// The configuration first: the secrets it names are scrubbed from
	// every later part.
	c.part(ctx, "config", "config.yaml", c.config)
	c.part(ctx, "version", "version.json", c.version)
	c.part(ctx, "health", "health.json", c.health)
	c.part(ctx, "catalog statistics", "catalog-stats.json", c.catalogStats)
	c.part(ctx, "logs", "logs.txt", c.logs)
	c.part(ctx, "metrics", "metrics.txt", c.metrics)
	c.part(ctx, "goroutine profile", "profiles/goroutine.txt", c.profile("goroutine?debug=2"))
	c.part(ctx, "heap profile", "profiles/heap.pb.gz", c.profile("heap"))
	c.part(ctx, "cpu profile", "profiles/cpu.pb.gz", c.profile(fmt.Sprintf("profile?seconds=%d", o.CPUSeconds)))

	c.man.Redaction = fmt.Sprintf("secrets by key name and by their place in the configuration; %d secret values replaced by %s in every text part; "+
		"log lines also by what looks like a secret's assignment or a URL's password; profiles hold symbols and counts only", len(c.secrets.vals), Redacted)
	m, err := json.MarshalIndent(c.man, "", "  ")
	if err != nil {
		return c.man, err
	}
	if err := c.add("MANIFEST.json", c.secrets.Scrub(m)); err != nil {
		return c.man, err
	}
	if err := c.tw.Close(); err != nil {
		return c.man, fmt.Errorf("support: archive: %w", err)
	}
	if err := gz.Close(); err != nil {
		return c.man, fmt.Errorf("support: archive: %w", err)
	}
	return c.man, nil
}

// result is what a part's collector returns: its bytes (scrubbed by
// part, by kind), a note for the manifest, and whether its bytes are
// binary (a gzip'd profile, not scrubbed: it holds symbol names and
// counts, no request data).
type result struct {
	data   []byte
	note   string
	binary bool
	log    bool
}

// part runs one collector and adds its file; a failure is recorded, and
// whatever the collector did get is kept.
func (c *collector) part(ctx context.Context, name, file string, fn func(context.Context) (result, error)) {
	start := time.Now()
	r, err := fn(ctx)
	p := Part{Name: name, OK: err == nil, Note: r.note, Duration: time.Since(start).Round(time.Millisecond).String()}
	if err != nil {
		p.Error = string(c.secrets.ScrubLog([]byte(err.Error())))
	}
	if len(r.data) > 0 {
		data := r.data
		switch {
		case r.log:
			data = c.secrets.ScrubLog(data)
		case !r.binary:
			data = c.secrets.Scrub(data)
		}
		if werr := c.add(file, data); werr != nil {
			p.OK, p.Error = false, werr.Error()
		} else {
			p.File, p.Bytes = file, len(data)
		}
	}
	c.man.Parts = append(c.man.Parts, p)
	if c.o.Progress != nil {
		status := fmt.Sprintf("ok, %d bytes", p.Bytes)
		if !p.OK {
			status = "FAILED: " + p.Error
		} else if p.Note != "" {
			status += " (" + p.Note + ")"
		}
		fmt.Fprintf(c.o.Progress, "support bundle: %-20s %s [%s]\n", name, status, p.Duration)
	}
}

func (c *collector) add(name string, data []byte) error {
	err := c.tw.WriteHeader(&tar.Header{Name: c.dir + "/" + name, Mode: 0o600, Size: int64(len(data)),
		ModTime: c.man.Created, Typeflag: tar.TypeReg})
	if err == nil {
		_, err = c.tw.Write(data)
	}
	if err != nil {
		return fmt.Errorf("support: archive %s: %w", name, err)
	}
	return nil
}

func (c *collector) config(context.Context) (result, error) {
	if c.o.ConfigFile == "" {
		// A node may run on flags and defaults alone: nothing is missing.
		return result{note: "no configuration file given (--config or OSTIUM_CONFIG); a node started without one runs on its flags and defaults"}, nil
	}
	data, err := os.ReadFile(c.o.ConfigFile)
	if err != nil {
		c.cfgErr = err
		return result{}, err
	}
	red, err := RedactConfig(data, &c.secrets)
	if err != nil {
		// Nothing of an undecodable file is kept: it may be all secret.
		c.cfgErr = err
		return result{}, fmt.Errorf("%s does not parse as YAML; not included", c.o.ConfigFile)
	}
	cfg, err := node.DecodeConfig(data)
	if err != nil {
		c.cfgErr = err
		return result{data: red}, fmt.Errorf("%s: %w", c.o.ConfigFile, err)
	}
	c.cfg = &cfg
	r := result{data: red}
	// What `serve` would say of it, every error named by its key.
	if verr := cfg.Validate(); verr != nil {
		r.note = "does not validate: " + strings.ReplaceAll(verr.Error(), "\n", "; ")
	}
	return r, nil
}

func (c *collector) version(ctx context.Context) (result, error) {
	out := map[string]any{
		"ostium": c.o.Version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH,
		"cpus": runtime.NumCPU(), "host": c.man.Host,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		deps := map[string]string{}
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
		out["build"] = map[string]any{"path": bi.Path, "main": bi.Main.Path + " " + bi.Main.Version, "settings": settings, "deps": deps}
	}
	if c.o.Endpoint != "" {
		// The node answering may run another build than this binary.
		if b, status, err := c.get(ctx, "/health/live", false); err == nil {
			out["endpoint_live"] = fmt.Sprintf("%d %s", status, strings.TrimSpace(string(b)))
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return result{data: b}, err
}

// get fetches path of the endpoint, signed with the root credentials
// when sign is set, reading at most maxPart bytes.
func (c *collector) get(ctx context.Context, path string, sign bool) ([]byte, int, error) {
	if c.o.Endpoint == "" {
		return nil, 0, errors.New("no --endpoint of a running node given")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.o.Endpoint+path, nil)
	if err != nil {
		return nil, 0, err
	}
	if sign {
		if err := signRequest(ctx, req, c.o.AccessKey, c.o.SecretKey); err != nil {
			return nil, 0, err
		}
	}
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxPart+1))
	if err != nil {
		return b, resp.StatusCode, fmt.Errorf("GET %s: %w", path, err)
	}
	if len(b) > maxPart {
		return b[:maxPart], resp.StatusCode, errTooBig
	}
	return b, resp.StatusCode, nil
}
