package node_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// scrapeText returns a node's /metrics in the text format once its jobs
// have run a pass; tenant series are enabled, so that every family the
// node can export is there.
func scrapeText(t *testing.T) []byte {
	t.Helper()
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) { c.Metrics.TenantLabels = 5 }})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
		}
		if bytes.Contains(body, []byte(`ostium_job_last_success_timestamp_seconds{job_name="sweeper"}`)) &&
			bytes.Contains(body, []byte(`ostium_job_last_success_timestamp_seconds{job_name="collector"}`)) {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pass of the collector and sweeper within 10 s:\n%s", body)
		}
	}
}

// exported returns the series names of a scrape: each family's, and a
// histogram's _bucket, _sum and _count, as PromQL sees them.
func exported(t *testing.T, text []byte) map[string]bool {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	names := map[string]bool{"up": true} // what Prometheus adds to every target
	for name, f := range fams {
		names[name] = true
		if f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY {
			names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = true, true, true
		}
	}
	return names
}

var (
	promStrings  = regexp.MustCompile("\"(\\\\.|[^\"\\\\])*\"|'(\\\\.|[^'\\\\])*'|`[^`]*`")
	promMatchers = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true,
		"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
		"inf": true, "nan": true, "Inf": true, "NaN": true}
)

// metricNames returns the metric names a PromQL expression selects: the
// identifiers left once strings, label matchers, ranges and grouping
// lists are gone that are neither keywords, functions nor part of a
// number or duration.
func metricNames(expr string) []string {
	s := promStrings.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if loc[0] > 0 && strings.ContainsAny(s[loc[0]-1:loc[0]], "0123456789.$") {
			continue // 5m, 1e3, $var
		}
		if promKeywords[name] || strings.HasPrefix(strings.TrimLeft(s[loc[1]:], " \t\n"), "(") {
			continue
		}
		out = append(out, name)
	}
	return out
}

func TestMetricNamesOfPromQL(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (op, le) (rate(a_bucket{op=~"Get|Head", x="y"}[5m])) / ignoring(le) b_total offset 1h > 0.5`: {"a_bucket", "b_total"},
		`histogram_quantile(0.99, sum without (x) (rate(c[$__rate_interval]))) and on (instance) up == 1e3`:  {"c", "up"},
		`topk(10, d{tenant!="by (x)"}) or vector(0)`:                                                         {"d"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", expr, got, want)
		}
	}
}

// deployQueries returns every PromQL expression of the Grafana dashboard
// and of the alert rules, each with where it is.
func deployQueries(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "..", "deploy")
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title, Type string
			Datasource  map[string]string
			Targets     []struct{ Expr, RefID string }
			Panels      []json.RawMessage
		}
		Templating struct {
			List []struct {
				Name       string
				Definition string
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&dash); err != nil {
		t.Fatalf("grafana-dashboard.json does not load: %v", err)
	}
	if dash.Title == "" || len(dash.Panels) == 0 {
		t.Fatalf("grafana-dashboard.json: no title or no panels")
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource["uid"] != "${datasource}" {
			t.Errorf("panel %q: no query, or not on the dashboard's data source", p.Title)
		}
		for _, q := range p.Targets {
			out["dashboard panel "+p.Title+" "+q.RefID] = q.Expr
		}
	}
	labelValues := regexp.MustCompile(`^label_values\(([^,]+),\s*\w+\)$`)
	for _, v := range dash.Templating.List {
		if v.Definition == "" {
			continue
		}
		m := labelValues.FindStringSubmatch(v.Definition)
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(metric, label)", v.Name, v.Definition)
			continue
		}
		out["dashboard variable "+v.Name] = m[1]
	}
	data, err = os.ReadFile(filepath.Join(dir, "prometheus-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct{ Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatalf("prometheus-alerts.yml: %v", err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			out["alert "+r.Alert] = r.Expr
		}
	}
	return out
}

// Every query of the dashboard and every alert names only metrics a node
// exports; the alerts cover what an operator is paged for.
func TestDeployQueriesNameExportedMetrics(t *testing.T) {
	names := exported(t, scrapeText(t))
	queries := deployQueries(t)
	for where, expr := range queries {
		ms := metricNames(expr)
		if len(ms) == 0 {
			t.Errorf("%s: %q names no metric", where, expr)
		}
		for _, m := range ms {
			if !names[m] {
				t.Errorf("%s: %s is not a metric the node exports", where, m)
			}
		}
	}
	for _, alert := range []string{"OstiumNodeDown", "OstiumPlatformDown", "OstiumHigh5xxRate", "OstiumHighLatency",
		"OstiumCatalogSaturated", "OstiumCollectorBacklog", "OstiumDiskFilling"} {
		if _, ok := queries["alert "+alert]; !ok {
			t.Errorf("no alert %s", alert)
		}
	}
}

// promtool, when installed (Debian's prometheus package), accepts the
// node's metrics, the alert rules, and the dashboard's queries.
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	check := func(stdin []byte, args ...string) {
		t.Helper()
		cmd := exec.Command(promtool, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	check(scrapeText(t), "check", "metrics")
	check(nil, "check", "rules", filepath.Join("..", "..", "deploy", "prometheus-alerts.yml"))
	// The dashboard's queries, with Grafana's variables given values, as
	// recording rules: promtool parses each.
	var rules bytes.Buffer
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	vars := strings.NewReplacer("$__rate_interval", "5m", "$instance", ".*")
	i := 0
	for where, expr := range deployQueries(t) {
		if strings.HasPrefix(where, "dashboard panel") {
			i++
			q, _ := json.Marshal(vars.Replace(expr))
			rules.WriteString("      - record: dashboard:query" + strings.Repeat("x", i) + "\n        expr: " + string(q) + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	if err := os.WriteFile(path, rules.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	check(nil, "check", "rules", path)
}
