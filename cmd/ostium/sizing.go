package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/sizing"
)

func newSizingCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sizing",
		Short: "sizing rules of thumb",
		Long:  "Sizing rules of thumb: objects per bucket, catalog disk, raw capacity and\nworkers (see docs/bench.md). Sizes take units: 4MB, 1PB, 512GiB.",
	}
	cmd.AddCommand(newSizingObjectsCmd(), newSizingCatalogCmd(), newSizingRawCmd(), newSizingWorkersCmd())
	return cmd
}

func newSizingObjectsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "objects [flags]",
		Short:   "objects per bucket from capacity, fill level, mean object size, buckets",
		Example: "  ostium sizing objects --capacity 2PB --fill 0.8 --mean-size 8MB --buckets 100",
		Args:    cobra.NoArgs,
	}
	fs := cmd.Flags()
	capacity := fs.String("capacity", "1PB", "usable capacity")
	mean := fs.String("mean-size", "4MB", "mean object size")
	fill := fs.Float64("fill", 0.8, "fill level, 0..1")
	buckets := fs.Int("buckets", 100, "buckets")
	cmd.RunE = func(*cobra.Command, []string) error {
		c, err := sizing.ParseBytes(*capacity)
		if err != nil {
			return fmt.Errorf("--capacity: %w", err)
		}
		m, err := sizing.ParseBytes(*mean)
		if err != nil {
			return fmt.Errorf("--mean-size: %w", err)
		}
		total, per, err := sizing.Objects(c, *fill, m, *buckets)
		if err != nil {
			return err
		}
		fmt.Printf("%s at %.0f%% full of %s objects: %.3g objects, %.3g per bucket over %d buckets\n",
			sizing.Human(c), *fill*100, sizing.Human(m), total, per, *buckets)
		return nil
	}
	return cmd
}

func newSizingCatalogCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "catalog [flags]",
		Short:   "catalog disk for an object count",
		Example: "  ostium sizing catalog --objects 1e9 --headroom 1.5",
		Args:    cobra.NoArgs,
	}
	fs := cmd.Flags()
	objects := fs.Float64("objects", 1e9, "object versions")
	per := fs.Float64("bytes-per-object", sizing.CatalogBytesPerObject, "catalog bytes per object version")
	headroom := fs.Float64("headroom", 1.5, "factor for growth and vacuum")
	cmd.RunE = func(*cobra.Command, []string) error {
		fmt.Printf("%.3g objects x %.0f B x %.1f headroom: %s of catalog disk\n", *objects, *per, *headroom,
			sizing.Human(sizing.Catalog(*objects, *per, *headroom)))
		return nil
	}
	return cmd
}

func newSizingRawCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "raw [flags]",
		Short:   "raw capacity for an erasure-coding scheme and site count",
		Example: "  ostium sizing raw --usable 1PB --ec 8+3 --sites 2",
		Args:    cobra.NoArgs,
	}
	fs := cmd.Flags()
	usable := fs.String("usable", "1PB", "usable capacity")
	scheme := fs.String("ec", "8+3", "erasure coding DATA+PARITY")
	sites := fs.Int("sites", 1, "sites, each holding a full copy")
	cmd.RunE = func(*cobra.Command, []string) error {
		u, err := sizing.ParseBytes(*usable)
		if err != nil {
			return fmt.Errorf("--usable: %w", err)
		}
		ec, err := sizing.ParseEC(*scheme)
		if err != nil {
			return err
		}
		fmt.Printf("%s usable with %s on %d site(s): %s raw\n", sizing.Human(u), *scheme, *sites, sizing.Human(sizing.Raw(u, ec, *sites)))
		return nil
	}
	return cmd
}

func newSizingWorkersCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workers [flags]",
		Short:   "workers needed for a target op rate, from a measured run",
		Example: "  ostium sizing workers --from bench-results/run --stage main --op read --target-ops 50000",
		Args:    cobra.NoArgs,
	}
	fs := cmd.Flags()
	target := fs.Float64("target-ops", 10000, "operations per second wanted")
	from := fs.String("from", "", "results directory (or summary.json) of a measured run")
	stage := fs.String("stage", "", "stage of that run (default the one stage with --op operations)")
	op := fs.String("op", "read", "operation type of that stage")
	cmd.RunE = func(*cobra.Command, []string) error {
		s, err := report.ReadSummary(*from)
		if err != nil {
			return err
		}
		o, st, err := sizingOp(s, *stage, *op)
		if err != nil {
			return fmt.Errorf("sizing: %s: %w", *from, err)
		}
		n := sizing.Workers(*target, o.AvgResTimeMs/1000)
		fmt.Printf("%.0f %s op/s at the measured %.2f ms mean of stage %s: %d workers (the run had %d for %.0f op/s)\n",
			*target, *op, o.AvgResTimeMs, st.Name, n, st.Workers, o.ThroughputOps)
		return nil
	}
	return cmd
}

// sizingOp finds the measured operation sizing works from: op in the stage
// named, or in the one stage that has it. When that is not one stage, the
// error lists the stages the run has, so that the next try names one.
func sizingOp(s report.Summary, stage, op string) (report.Op, report.Stage, error) {
	var names, with []string
	var found []report.Stage
	for _, st := range s.Stages {
		names = append(names, st.Name)
		for _, o := range st.Ops {
			if o.OpType == op && o.OpCount > 0 {
				if st.Name == stage {
					return o, st, nil
				}
				with = append(with, st.Name)
				found = append(found, st)
			}
		}
	}
	list := func(ns []string) string {
		if len(ns) == 0 {
			return "none"
		}
		return strings.Join(ns, ", ")
	}
	switch {
	case stage != "":
		return report.Op{}, report.Stage{}, fmt.Errorf("no %s operations in stage %q; stages: %s; stages with %s operations: %s",
			op, stage, list(names), op, list(with))
	case len(found) == 1:
		for _, o := range found[0].Ops {
			if o.OpType == op {
				return o, found[0], nil
			}
		}
	case len(found) > 1:
		return report.Op{}, report.Stage{}, fmt.Errorf("%d stages have %s operations, name one with --stage: %s", len(found), op, list(with))
	}
	return report.Op{}, report.Stage{}, fmt.Errorf("no stage has %s operations; stages: %s", op, list(names))
}
