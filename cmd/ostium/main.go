// Command ostium is the Ostium object storage gateway: one binary that is
// the S3 endpoint, its benchmark and, in later releases, its admin tool.
package main

import (
	"fmt"
	"os"
)

var version = "dev"

var commands = map[string]func(args []string) error{
	"serve":   serve,
	"admin":   adminMain,
	"config":  configMain,
	"bench":   bench,
	"sizing":  sizingCmd,
	"support": supportMain,
	"version": func([]string) error { fmt.Println("ostium", version); return nil },
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: ostium <command> [flags]\n\ncommands:\n  serve     run the S3 endpoint\n  admin     manage tenants, users, keys and quotas\n  config    validate, export and import a configuration file\n  bench     benchmark an S3 endpoint\n  sizing    sizing rules of thumb\n  support   write a support bundle (support bundle --help)\n  version   print the version")
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "ostium:", err)
		os.Exit(1)
	}
}
