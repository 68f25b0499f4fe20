package node

import (
	"errors"
	"net/url"
	"runtime/debug"

	"github.com/ostiumio/ostium/internal/osis"
)

// openOSIS returns the OSIS API's handler, or nil when it is off.
func (n *Node) openOSIS() *osis.Handler {
	if !n.cfg.OSIS {
		return nil
	}
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	return osis.NewHandler(n.Admin, n.Keys, osis.Options{Version: version, Region: n.cfg.Region, ConsoleURL: n.cfg.OSISConsoleURL})
}

func (c *Config) validateOSIS() error {
	if c.OSISConsoleURL == "" {
		return nil
	}
	u, err := url.Parse(c.OSISConsoleURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("osis_console_url: must be an http(s) URL of the console")
	}
	return nil
}
