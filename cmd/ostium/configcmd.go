package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ostiumio/ostium/internal/node"
)

const configUsage = `usage: ostium config COMMAND

  validate FILE                              check a configuration file; each error names its key
  export FILE [--secret P] [--out PATH]      the file with its secrets (and the node key) sealed under P
  import FILE [--secret P] [--out PATH]      an exported file with its secrets opened, validated

The passphrase comes from --secret or OSTIUM_CONFIG_SECRET; output goes to
--out (mode 0600) or standard output.`

func configMain(args []string) error {
	if len(args) < 2 {
		return errors.New(configUsage)
	}
	cmd, file := args[0], args[1]
	fs := flag.NewFlagSet("config "+cmd, flag.ContinueOnError)
	secret := fs.String("secret", os.Getenv("OSTIUM_CONFIG_SECRET"), "passphrase sealing the secrets (OSTIUM_CONFIG_SECRET)")
	out := fs.String("out", "", "where to write (default: standard output)")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	switch cmd {
	case "validate":
		// What `serve --config FILE` would run, the environment's
		// credentials included.
		if _, err := resolveConfig(file, node.Config{}, flag.NewFlagSet("serve", flag.ContinueOnError)); err != nil {
			return err
		}
		fmt.Println(file + ": ok")
		return nil
	case "export":
		c, err := node.LoadConfig(file)
		if err != nil {
			return err
		}
		if c, err = node.SealSecrets(c, *secret); err != nil {
			return err
		}
		return writeConfig(c, *out)
	case "import":
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		c, err := node.DecodeConfig(data)
		if err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
		if *secret == "" && len(node.SealedKeys(c)) > 0 {
			return errors.New("config import: the file holds sealed secrets: give --secret or OSTIUM_CONFIG_SECRET")
		}
		if c, err = node.OpenSecrets(c, *secret); err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
		if err := c.Validate(); err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
		return writeConfig(c, *out)
	}
	return errors.New(configUsage)
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
