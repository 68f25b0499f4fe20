package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/node"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "validate, export and import a configuration file",
		Long: `Validate, export and import a configuration file. Export seals the
file's secrets (and the node key) under a passphrase, so that one file can
be copied to every node; import opens them again.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE",
		Short: "check a configuration file as serve would; each error names its key",
		Long: `Run the checks "ostium serve --config FILE" runs, the environment's
credentials (OSTIUM_ROOT_ACCESS_KEY, OSTIUM_ROOT_SECRET_KEY, OSTIUM_NODE_KEY)
included, and report every error found, each naming its key, and the
warnings serve would log at start (a /metrics open to anyone).`,
		Example: "  ostium config validate /etc/ostium/ostium.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, a []string) error {
			cfg, err := resolveConfig(a[0], node.Config{}, pflag.NewFlagSet("serve", pflag.ContinueOnError))
			if err != nil {
				return err
			}
			// What serve would warn of at start, it warns of here.
			for _, w := range cfg.Warnings() {
				fmt.Println("warning: " + w)
			}
			fmt.Println(a[0] + ": ok")
			return nil
		},
	})
	cmd.AddCommand(sealCmd("export FILE", "the file with its secrets (and the node key) sealed under a passphrase",
		"  ostium config export ostium.yaml --secret PASS --out cluster.yaml", configExport))
	cmd.AddCommand(sealCmd("import FILE", "an exported file with its secrets opened, validated",
		"  OSTIUM_CONFIG_SECRET=PASS ostium config import cluster.yaml --out /etc/ostium/ostium.yaml", configImport))
	return cmd
}

// sealCmd is export or import: a file, a passphrase and where to write.
func sealCmd(use, short, example string, run func(file, secret, out string) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Long:    short + ".\n\nThe passphrase comes from --secret or OSTIUM_CONFIG_SECRET; the output goes\nto --out (mode 0600) or standard output.",
		Example: example,
		Args:    cobra.ExactArgs(1),
	}
	// The environment's passphrase is read after parsing, so that --help
	// does not print it as the default.
	secret := cmd.Flags().String("secret", "", "passphrase sealing the secrets (default OSTIUM_CONFIG_SECRET)")
	out := cmd.Flags().String("out", "", "where to write (default: standard output)")
	cmd.RunE = func(_ *cobra.Command, a []string) error {
		if !cmd.Flags().Changed("secret") {
			*secret = os.Getenv("OSTIUM_CONFIG_SECRET")
		}
		return run(a[0], *secret, *out)
	}
	return cmd
}

func configExport(file, secret, out string) error {
	c, err := node.LoadConfig(file)
	if err != nil {
		return err
	}
	if c, err = node.SealSecrets(c, secret); err != nil {
		return err
	}
	return writeConfig(c, out)
}

func configImport(file, secret, out string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	c, err := node.DecodeConfig(data)
	if err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	if secret == "" && len(node.SealedKeys(c)) > 0 {
		return errors.New("config import: the file holds sealed secrets: give --secret or OSTIUM_CONFIG_SECRET")
	}
	if c, err = node.OpenSecrets(c, secret); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	return writeConfig(c, out)
}

func writeConfig(c node.Config, path string) error {
	data, err := node.MarshalConfig(c)
	if err != nil {
		return err
	}
	if path == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
