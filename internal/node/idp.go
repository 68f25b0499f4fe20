package node

import (
	"log/slog"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/idp"
)

// openIdPs makes the service of console identity providers (nil when
// the catalog keeps none), with the node's verifier of identity tokens
// (so oidc_allow_networks applies), and gives it to the admin API.
func (n *Node) openIdPs(sealer *iam.Sealer) {
	p, err := idp.New(n.Catalog, sealer, n.OIDC)
	if err != nil {
		slog.Warn("no identity providers", "err", err)
		return
	}
	n.IdPs = p
	n.Admin.SetIdPs(p)
}
