// Package driver spreads a workload over several load machines: each runs
// `ostium bench driver`, and the controller (`ostium bench run --drivers`)
// hands every driver its share of each stage's workers, starts them at the
// same instant, and merges what they measured exactly (histograms add up;
// percentiles are never averaged).
//
// Drivers answer anyone who reaches them: run them on the load network,
// not on the internet.
package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ostiumio/ostium/internal/bench/engine"
	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/workload"
)

// Request asks a driver to run its share of one stage.
type Request struct {
	Workload *workload.Workload `json:"workload"`
	Options  workload.Options   `json:"options"`
	Stage    int                `json:"stage"`
	StartAt  time.Time          `json:"start_at"`
}

// Response is what a driver measured, one result per work of the stage
// (null for a delay).
type Response struct {
	Results []*engine.Result `json:"results"`
	// Verified is what this driver's reads with hashCheck checked.
	Verified *report.Verified `json:"verified,omitempty"`
	Error    string           `json:"error,omitempty"`
}

const stagePath = "/v1/stage"

// Handler is a driver: it runs the stages it is sent.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+stagePath, func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Workload == nil ||
			req.Stage < 0 || req.Stage >= len(req.Workload.Stages) {
			http.Error(w, "bad stage request", http.StatusBadRequest)
			return
		}
		select { // start with the other drivers
		case <-time.After(time.Until(req.StartAt)):
		case <-r.Context().Done():
			return
		}
		name := req.Workload.Stages[req.Stage].Name
		slog.Info("running stage", "stage", name, "share", req.Options.Share.Index, "of", req.Options.Share.Count)
		req.Options.Progress = func(work string) func(engine.Progress) {
			return func(p engine.Progress) { slog.Info("progress", "line", report.ProgressLine(work, p)) }
		}
		req.Options.Verified = &workload.Verified{}
		results, err := workload.RunStage(r.Context(), req.Workload, req.Stage, req.Options)
		resp := Response{Results: results, Verified: req.Options.Verified.Report()}
		if err != nil {
			resp.Error = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
	return mux
}

// Controller runs a workload over drivers.
type Controller struct {
	Drivers []string // host:port or URLs
	Client  *http.Client
	// Log receives a line as each stage starts and ends.
	Log io.Writer
	// Lead is how far ahead the common start of a stage is set.
	Lead time.Duration
}

func (c *Controller) url(d string) string {
	if !strings.Contains(d, "://") {
		d = "http://" + d
	}
	return strings.TrimSuffix(d, "/") + stagePath
}

// Run runs the stages one after another, each split among the drivers.
func (c *Controller) Run(ctx context.Context, w *workload.Workload, o workload.Options) (report.Summary, []*engine.Result, error) {
	if len(c.Drivers) == 0 {
		return report.Summary{}, nil, errors.New("driver: no drivers")
	}
	if len(w.Faults) > 0 {
		// The timeline needs every operation as it ends, and the ledger
		// every acknowledged write: one process's.
		return report.Summary{}, nil, errors.New("driver: a workload with a fault schedule runs in one process, not over drivers")
	}
	client, lead := c.Client, c.Lead
	if client == nil {
		client = http.DefaultClient
	}
	if lead <= 0 {
		lead = time.Second
	}
	sum := report.Summary{Started: time.Now()}
	var all []*engine.Result
	for si, st := range w.Stages {
		start := time.Now().Add(lead)
		c.logf("stage %s: %d drivers, starting at %s\n", st.Name, len(c.Drivers), start.Format("15:04:05.000"))
		parts := make([]Response, len(c.Drivers))
		errs := make([]error, len(c.Drivers))
		var wg sync.WaitGroup
		for di, d := range c.Drivers {
			share := o
			share.Share = workload.Share{Index: di, Count: len(c.Drivers)}
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[di], errs[di] = c.post(ctx, client, d, Request{Workload: w, Options: share, Stage: si, StartAt: start})
			}()
		}
		wg.Wait()
		// What the drivers checked adds up as a single process's count
		// would, failed stages included.
		for _, p := range parts {
			sum.Verified = addVerified(sum.Verified, p.Verified)
		}
		if err := errors.Join(errs...); err != nil {
			return sum, all, err
		}
		merged := make([]*engine.Result, len(st.Works))
		for wi := range st.Works {
			var ps []*engine.Result
			for _, p := range parts {
				if wi < len(p.Results) && p.Results[wi] != nil {
					ps = append(ps, p.Results[wi])
				}
			}
			if len(ps) == 0 {
				continue
			}
			m, err := engine.Merge(ps...)
			if err != nil {
				return sum, all, err
			}
			merged[wi] = m
			all = append(all, m)
			sum.Stages = append(sum.Stages, report.Summarize(m))
		}
		if err := workload.AfterStage(ctx, w, si, merged, o); err != nil {
			return sum, all, err
		}
		c.logf("stage %s: done in %.1f s\n", st.Name, time.Since(start).Seconds())
		sum.Ended = time.Now()
	}
	return sum, all, nil
}

func addVerified(a, b *report.Verified) *report.Verified {
	if b == nil {
		return a
	}
	if a == nil {
		a = &report.Verified{}
	}
	a.Objects, a.Bytes, a.Mismatches = a.Objects+b.Objects, a.Bytes+b.Bytes, a.Mismatches+b.Mismatches
	return a
}

func (c *Controller) post(ctx context.Context, client *http.Client, d string, req Request) (Response, error) {
	var resp Response
	body, err := json.Marshal(req)
	if err != nil {
		return resp, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(d), bytes.NewReader(body))
	if err != nil {
		return resp, err
	}
	hr.Header.Set("Content-Type", "application/json")
	res, err := client.Do(hr)
	if err != nil {
		return resp, fmt.Errorf("driver %s: %w", d, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return resp, fmt.Errorf("driver %s: %s: %s", d, res.Status, strings.TrimSpace(string(msg)))
	}
	if err := json.NewDecoder(res.Body).Decode(&resp); err != nil {
		return resp, fmt.Errorf("driver %s: %w", d, err)
	}
	if resp.Error != "" {
		return resp, fmt.Errorf("driver %s: %s", d, resp.Error)
	}
	return resp, nil
}

func (c *Controller) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format, args...)
	}
}
