package node

import (
	"log/slog"

	"github.com/ostiumio/ostium/internal/directory"
	"github.com/ostiumio/ostium/internal/iam"
)

// openDirectories makes the service of tenants' LDAP and Active
// Directory directories (nil when the catalog keeps none), and gives it
// to the admin API.
func (n *Node) openDirectories(sealer *iam.Sealer) {
	d, err := directory.New(n.Catalog, sealer)
	if err != nil {
		slog.Warn("no directories", "err", err)
		return
	}
	d.Audit = n.Audit
	n.Directories = d
	n.Admin.SetDirectories(d)
}
