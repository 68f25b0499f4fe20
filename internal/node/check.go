package node

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/platform"
)

// Check is everything a start refuses in a configuration that can be
// found without starting: Validate, then what the values alone do not
// tell, through the very functions a start runs (so that `ostium config
// validate` and `ostium serve` say the same words): the node key of the
// source that wins, read; the TLS certificate and key, read and matched;
// the listen addresses parsed; the catalog URL parsed; each s3
// platform's and the KMIP client's files read. It writes nothing and
// contacts nothing: whether an address can be had, the catalog reached
// or a platform answers is for the start to tell. Every error is
// reported, each naming its key.
func (c *Config) Check() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(c.Validate())
	add(checkDataDir(c.DataDir))
	add(checkAddr("listen", c.Listen))
	add(checkAddr("tls_listen", c.TLSListen))
	if c.TLSListen != "" && c.TLSCert != "" && c.TLSKey != "" {
		_, err := loadCertPair(c.TLSCert, c.TLSKey)
		add(err)
	}
	if !(c.NodeKey != "" && c.NodeKeyFile != "") { // Validate refused both
		key, err := givenNodeKey(*c)
		add(err)
		if err == nil && key == nil { // the default: is there a place for it?
			_, err := UserNodeKeyPath(*c)
			add(err)
		}
	}
	switch {
	case strings.HasPrefix(c.Catalog, "sqlite://"):
		_, err := sqlitePath(c.Catalog)
		add(err)
	case strings.HasPrefix(c.Catalog, "postgres://"), strings.HasPrefix(c.Catalog, "postgresql://"):
		if err := postgres.CheckURL(c.Catalog); err != nil {
			add(fmt.Errorf("catalog: %w", err))
		}
	}
	specs, _ := c.platforms()
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		if platform.Validate(name, specs[name]) == nil { // else Validate said why
			add(platform.Check(name, specs[name]))
		}
	}
	if c.KMS.Type == "kmip" && c.KMS.KMIPConfig.Validate() == nil {
		add(c.KMS.KMIPConfig.CheckFiles())
	}
	return errors.Join(errs...)
}

// checkAddr parses a listen address as net.Listen will ("" = none):
// host:port, the host optional, the port a number or a service name.
func checkAddr(key, addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s: %q is not [host]:port: %v", key, addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%s: %q: %q is not a port", key, addr, port)
	}
	return nil
}

// checkDataDir refuses a data directory path that is not one; a missing
// one is made at start.
func checkDataDir(dir string) error {
	if dir == "" {
		return nil // Validate said so
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("data: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("data: %s is not a directory", dir)
	}
	return nil
}
