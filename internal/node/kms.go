package node

import (
	"fmt"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/kms"
)

// openKMS builds the key service of encryption at rest: the built-in
// keyring, its master key sealed by the node key, its cached tenant keys
// dropped whenever the node drops cached identities (the catalog's
// identity generation, which every key change advances).
func (n *Node) openKMS(nodeKey []byte) (kms.Manager, error) {
	ks, ok := n.Catalog.(catalog.KeyStore)
	if !ok {
		return nil, fmt.Errorf("node: catalog %T keeps no keys", n.Catalog)
	}
	k, err := kms.NewKeyring(ks, nodeKey, kms.KeyringOptions{Region: n.cfg.Region, Epoch: n.Keys.Epoch})
	if err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	return k, nil
}
