package node

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
	"github.com/ostiumio/ostium/internal/objects"
)

// KMSConfig chooses the key service of encryption at rest (the `kms:`
// section): the built-in keyring (tenant keys in the catalog, sealed
// under a master key the node key seals), or a KMIP server that keeps
// the tenant keys and wraps data keys itself.
type KMSConfig struct {
	Type           string `yaml:"type,omitempty"` // "builtin" (or "") or "kmip"
	kms.KMIPConfig `yaml:",inline"`
	// RewrapInterval is the pause between two passes of the job that
	// re-wraps stored data keys under their key's newest version (0 =
	// 10 min); RewrapRate bounds the versions it re-wraps a second (0 =
	// 100), so that foreground requests keep their latency.
	RewrapInterval time.Duration `yaml:"rewrap_interval,omitempty"`
	RewrapRate     int           `yaml:"rewrap_rate,omitempty"`
}

func (c KMSConfig) validate() error {
	var errs []error
	switch c.Type {
	case "", "builtin":
		if c.KMIPConfig != (kms.KMIPConfig{}) {
			errs = append(errs, errors.New("kms: address, ca_file, cert_file, key_file, server_name, timeout and connections are for type: kmip"))
		}
	case "kmip":
		if err := c.KMIPConfig.Validate(); err != nil {
			errs = append(errs, err)
		}
	default:
		errs = append(errs, fmt.Errorf("kms.type: %q is neither builtin nor kmip", c.Type))
	}
	if c.RewrapInterval < 0 {
		errs = append(errs, fmt.Errorf("kms.rewrap_interval: %v must not be negative", c.RewrapInterval))
	}
	if c.RewrapRate < 0 {
		errs = append(errs, fmt.Errorf("kms.rewrap_rate: %d must not be negative", c.RewrapRate))
	}
	return errors.Join(errs...)
}

// openKMS builds the key service the configuration names. Its cached
// tenant keys are dropped whenever the node drops cached identities (the
// catalog's identity generation, which every key change advances).
func (n *Node) openKMS(nodeKey []byte) (kms.Manager, error) {
	ks, ok := n.Catalog.(catalog.KeyStore)
	if !ok {
		return nil, fmt.Errorf("node: catalog %T keeps no keys", n.Catalog)
	}
	o := kms.KeyringOptions{Region: n.cfg.Region, Epoch: n.Keys.Epoch}
	var k *kms.Keyring
	var err error
	if n.cfg.KMS.Type == "kmip" {
		k, err = kms.NewKMIP(ks, n.cfg.KMS.KMIPConfig, o)
	} else {
		k, err = kms.NewKeyring(ks, nodeKey, o)
	}
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	return k, nil
}

// rewrapJob is the job that moves stored data keys to their key's newest
// version after a rotation (nil if the key service cannot re-wrap).
func (n *Node) rewrapJob() *kms.RewrapJob {
	rw, ok := n.KMS.(kms.Rewrapper)
	if !ok {
		return nil
	}
	j, err := kms.NewRewrapJob(n.Catalog, rw, kms.RewrapOptions{Context: objects.KeyContext,
		Interval: n.cfg.KMS.RewrapInterval, Rate: n.cfg.KMS.RewrapRate})
	if err != nil {
		slog.Warn("kms: no re-wrap job", "err", err)
		return nil
	}
	return j
}
