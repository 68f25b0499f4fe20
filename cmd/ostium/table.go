package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
)

// The tables of `ostium admin` are for people; --json is for programs
// and prints the API's answer unchanged. A table's columns are declared
// here per kind of record, the identifying column first (a time series
// by its time), and every declared column is shown for every row, so
// that two listings of the same kind line up and a script cutting
// columns finds them where they were.

// tableColumns are the columns of each kind of record, in order. A kind
// is recognised by a field only it has (see tableKind).
var tableColumns = map[string][]string{
	"tenant":     {"name", "display_name", "status", "platform", "encryption", "created", "canonical_id"},
	"user":       {"name", "tenant", "role", "email", "created", "canonical_id"},
	"key":        {"access_key", "secret_key", "tenant", "user", "kind", "status", "buckets", "read_only", "expires", "created"},
	"root key":   {"access_key", "secret_key", "source", "status", "expires", "created"},
	"quota":      {"tenant", "bucket", "max_bytes", "max_objects"},
	"kms key":    {"id", "alias", "tenant", "state", "default", "versions", "created"},
	"encryption": {"default", "kms_key"},
	"rotation":   {"version", "resealed", "retired"},
	"audit":      {"time", "id", "action", "outcome", "status", "tenant", "user", "access_key", "root", "source", "target", "request_id"},
	"usage":      {"hour", "bucket", "byte_hours", "objects", "get", "put", "list", "delete", "bytes_in", "bytes_out"},
	"problem":    {"line", "column", "severity", "message"},
}

// tableKind names the kind of a record by its fields.
func tableKind(r map[string]any) string {
	has := func(k string) bool { _, ok := r[k]; return ok }
	switch {
	case has("action") && has("outcome"):
		return "audit"
	case has("byte_hours"):
		return "usage"
	case has("severity") && has("message"):
		return "problem"
	case has("canonical_id") && has("role"):
		return "user"
	case has("canonical_id"):
		return "tenant"
	case has("access_key") && has("source"):
		return "root key"
	case has("access_key") && has("kind"):
		return "key"
	case has("max_bytes"):
		return "quota"
	case has("versions") && has("state"):
		return "kms key"
	case has("resealed"):
		return "rotation"
	case has("default") && len(r) <= 2:
		return "encryption"
	}
	return ""
}

// optionalColumns are shown only when some row has a value: a secret is
// in the answer that created it, never in a listing.
var optionalColumns = map[string]bool{"secret_key": true}

// columnHeaders rename a column where its JSON name would mislead: one
// hour's byte-hours are the bytes stored in that hour.
var columnHeaders = map[string]string{"byte_hours": "STORED"}

// byteColumns hold byte counts, shown in binary units.
var byteColumns = map[string]bool{"max_bytes": true, "bytes": true, "bytes_in": true, "bytes_out": true, "byte_hours": true,
	"bytes_in_per_sec": true, "bytes_out_per_sec": true}

// timeColumns hold times, shown to the second in UTC.
var timeColumns = map[string]bool{"created": true, "expires": true, "time": true, "hour": true}

// emptyCells say what an absent or empty value means, where "-" would
// not: a tenant without a platform of its own uses the node's.
// A key "kind.column" is that kind's only.
var emptyCells = map[string]string{
	"platform": "(default)", "encryption": "(default)", "expires": "never",
	"quota.bucket": "(all)", "max_bytes": "none", "max_objects": "none",
	"requests_per_sec": "none", "bytes_in_per_sec": "none", "bytes_out_per_sec": "none",
	"read_only": "false", "kms key.default": "false", "root": "false", "encryption.default": "(default)",
}

func emptyCell(kind, c string) string {
	if e, ok := emptyCells[kind+"."+c]; ok {
		return e
	}
	if e, ok := emptyCells[c]; ok {
		return e
	}
	return "-"
}

// printTable prints a record or a list of records as aligned columns, by
// way of their JSON fields.
func printTable(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// Numbers stay as written (1000000, not 1e+06).
	decode := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		return d.Decode(v)
	}
	var rows []map[string]any
	if decode(&rows) != nil {
		var one map[string]any
		if err := decode(&one); err != nil {
			return err
		}
		rows = []map[string]any{one}
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "(none)")
		return err
	}
	kind := tableKind(rows[0])
	cols := tableColumnsOf(kind, rows)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = strings.ToUpper(c)
		if h, ok := columnHeaders[c]; ok {
			head[i] = h
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = cell(kind, c, r[c])
		}
		fmt.Fprintln(tw, strings.Join(vals, "\t"))
	}
	return tw.Flush()
}

// tableColumnsOf is the declared columns of the rows' kind (optional
// ones only when a row has them), then any field not declared, in
// alphabetical order: a field the API adds is shown before it is
// declared here.
func tableColumnsOf(kind string, rows []map[string]any) []string {
	declared := tableColumns[kind]
	var cols []string
	for _, c := range declared {
		if optionalColumns[c] && !slices.ContainsFunc(rows, func(r map[string]any) bool { return r[c] != nil && r[c] != "" }) {
			continue
		}
		cols = append(cols, c)
	}
	var extra []string
	for _, r := range rows {
		for k := range r {
			if !slices.Contains(declared, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	// The identifying fields of records of no declared kind lead.
	if declared == nil {
		slices.SortStableFunc(extra, func(a, b string) int { return identRank(a) - identRank(b) })
	}
	return append(cols, extra...)
}

func identRank(k string) int {
	if i := slices.Index([]string{"tenant", "bucket", "name"}, k); i >= 0 {
		return i
	}
	return 3
}

// cell formats one value of column c of a record of kind.
func cell(kind, c string, v any) string {
	empty := emptyCell(kind, c)
	switch v := v.(type) {
	case nil:
		return empty
	case string:
		if v == "" {
			return empty
		}
		if timeColumns[c] {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t.UTC().Truncate(time.Second).Format(time.RFC3339)
			}
		}
		return v
	case json.Number:
		if (c == "max_bytes" || c == "max_objects") && v.String() == "0" {
			return empty
		}
		if n, err := v.Int64(); err == nil && byteColumns[c] {
			return humanBytes(n)
		}
		return v.String()
	case map[string]any:
		// k=v pairs, in key order.
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			kv = append(kv, k+"="+cell(c, k, v[k]))
		}
		if len(kv) == 0 {
			return empty
		}
		return strings.Join(kv, ",")
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, cell(kind, c, e))
		}
		if len(out) == 0 {
			return empty
		}
		return strings.Join(out, ",")
	}
	return fmt.Sprint(v)
}

// byteUnits are the units of humanBytes: binary, as the console shows
// sizes (internal/console/web/js/ui.js, bytes()) and as quotas are
// usually thought of. Inputs take both kinds (quick.ParseBytes: 10GB is
// 10^10 bytes, 10GiB 10*2^30).
var byteUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}

// humanBytes shows n in the largest binary unit it reaches, with one
// decimal below 10 of that unit and none from 10 on ("512 B", "1.5 KiB",
// "10 MiB"); the console's bytes() follows the same rule.
func humanBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), 0
	for v >= 1024 && i < len(byteUnits)-1 {
		v /= 1024
		i++
	}
	v = math.Round(v*10) / 10
	if v < 10 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + byteUnits[i]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + byteUnits[i]
}

// printUsage prints a usage report: what is stored now, then the period's
// rows in time order.
func printUsage(w io.Writer, u admin.Usage) error {
	who := "tenant " + u.Tenant
	if u.Tenant == admin.ProviderUsage {
		who = "the provider's own buckets (" + u.Tenant + ")"
	}
	objects := "objects"
	if u.Now.Objects == 1 {
		objects = "object"
	}
	fmt.Fprintf(w, "%s: %s in %d %s now; %s to %s:\n", who, humanBytes(u.Now.Bytes), u.Now.Objects, objects,
		u.From.UTC().Format(time.RFC3339), u.To.UTC().Format(time.RFC3339))
	rows := slices.Clone(u.Rows)
	slices.SortStableFunc(rows, func(a, b catalog.UsageRow) int {
		if c := a.Hour.Compare(b.Hour); c != 0 {
			return c
		}
		return strings.Compare(a.Bucket, b.Bucket)
	})
	return printTable(w, rows)
}
