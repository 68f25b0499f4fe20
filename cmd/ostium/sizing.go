package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/ostiumio/ostium/internal/bench/report"
	"github.com/ostiumio/ostium/internal/bench/sizing"
)

const sizingUsage = `usage: ostium sizing <rule> [flags]

rules:
  objects   objects per bucket from capacity, fill level, mean object size, buckets
  catalog   catalog disk for an object count
  raw       raw capacity for an erasure-coding scheme and site count
  workers   workers needed for a target op rate, from a measured run`

func sizingCmd(args []string) error {
	if len(args) == 0 {
		return errors.New(sizingUsage)
	}
	rule, args := args[0], args[1:]
	fs := flag.NewFlagSet("sizing "+rule, flag.ContinueOnError)
	size := func(name, def, usage string) *string { return fs.String(name, def, usage) }
	switch rule {
	case "objects":
		capacity, mean := size("capacity", "1PB", "usable capacity"), size("mean-size", "4MB", "mean object size")
		fill := fs.Float64("fill", 0.8, "fill level, 0..1")
		buckets := fs.Int("buckets", 100, "buckets")
		if err := fs.Parse(args); err != nil {
			return err
		}
		c, err := sizing.ParseBytes(*capacity)
		if err != nil {
			return err
		}
		m, err := sizing.ParseBytes(*mean)
		if err != nil {
			return err
		}
		total, per, err := sizing.Objects(c, *fill, m, *buckets)
		if err != nil {
			return err
		}
		fmt.Printf("%s at %.0f%% full of %s objects: %.3g objects, %.3g per bucket over %d buckets\n",
			sizing.Human(c), *fill*100, sizing.Human(m), total, per, *buckets)
	case "catalog":
		objects := fs.Float64("objects", 1e9, "object versions")
		per := fs.Float64("bytes-per-object", sizing.CatalogBytesPerObject, "catalog bytes per object version")
		headroom := fs.Float64("headroom", 1.5, "factor for growth and vacuum")
		if err := fs.Parse(args); err != nil {
			return err
		}
		fmt.Printf("%.3g objects x %.0f B x %.1f headroom: %s of catalog disk\n", *objects, *per, *headroom,
			sizing.Human(sizing.Catalog(*objects, *per, *headroom)))
	case "raw":
		usable := size("usable", "1PB", "usable capacity")
		scheme := fs.String("ec", "8+3", "erasure coding DATA+PARITY")
		sites := fs.Int("sites", 1, "sites, each holding a full copy")
		if err := fs.Parse(args); err != nil {
			return err
		}
		u, err := sizing.ParseBytes(*usable)
		if err != nil {
			return err
		}
		ec, err := sizing.ParseEC(*scheme)
		if err != nil {
			return err
		}
		fmt.Printf("%s usable with %s on %d site(s): %s raw\n", sizing.Human(u), *scheme, *sites, sizing.Human(sizing.Raw(u, ec, *sites)))
	case "workers":
		target := fs.Float64("target-ops", 10000, "operations per second wanted")
		from := fs.String("from", "", "results directory (or summary.json) of a measured run")
		stage := fs.String("stage", "main", "stage of that run")
		op := fs.String("op", "read", "operation type of that stage")
		if err := fs.Parse(args); err != nil {
			return err
		}
		s, err := report.ReadSummary(*from)
		if err != nil {
			return err
		}
		for _, st := range s.Stages {
			for _, o := range st.Ops {
				if st.Name == *stage && o.OpType == *op && o.OpCount > 0 {
					n := sizing.Workers(*target, o.AvgResTimeMs/1000)
					fmt.Printf("%.0f %s op/s at the measured %.2f ms mean: %d workers (the run had %d for %.0f op/s)\n",
						*target, *op, o.AvgResTimeMs, n, st.Workers, o.ThroughputOps)
					return nil
				}
			}
		}
		return fmt.Errorf("sizing: no %s operations in stage %q of %s", *op, *stage, *from)
	default:
		return fmt.Errorf("unknown sizing rule %q\n\n%s", rule, sizingUsage)
	}
	return nil
}
