// Command ostium is the Ostium object storage gateway: one binary that is
// the S3 endpoint, its admin tool and its benchmark.
//
// main only builds the command tree from each file's constructor and runs
// it; a subcommand's flags and help live beside what it does.
package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/spf13/cobra"
)

func main() {
	if err := execute(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ostium:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ostium",
		Short: "Ostium, an S3 gateway: the endpoint, its admin tool and its benchmark",
		// Errors are printed once, by main, without the usage after them:
		// a wrong key deserves one line, not a screen of flags.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(newServeCmd(), newAdminCmd(), newConfigCmd(), newBenchCmd(), newSizingCmd(), newSupportCmd(), newVersionCmd())
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	for _, c := range root.Commands() {
		strictArgs(c)
	}
	return root
}

// strictArgs makes a wrong word or argument count an error that shows the
// usage line: cobra would print a group's help and exit 0 for "ostium
// admin tenant creat", and says "accepts 1 arg(s)" without saying which.
func strictArgs(c *cobra.Command) {
	if c.HasSubCommands() && !c.Runnable() {
		c.Args = cobra.NoArgs
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return fmt.Errorf("%w (usage: %s)", err, c.UseLine())
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		strictArgs(sub)
	}
}

// execute runs the command line args (without the program name).
func execute(args []string) error {
	root := newRootCmd()
	root.SetArgs(goStyleFlags(args))
	return root.Execute()
}

var singleDashLong = regexp.MustCompile(`^-[a-zA-Z][a-zA-Z0-9-]+(=.*)?$`)

// goStyleFlags turns -name into --name: before the move to cobra the
// flags were Go's, which take both, and scripts written then use either.
// No ostium flag has a one-letter form other than -h, so nothing else
// is lost by it. Arguments after "--" are left as they are.
func goStyleFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if singleDashLong.MatchString(a) {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}
