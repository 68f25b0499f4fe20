package node

import (
	"net/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/vcsp"
)

// catalogsHandler serves published content libraries under
// vcsp.Prefix, on S3's slots and timeouts; nil if the catalog keeps no
// publications.
func (n *Node) catalogsHandler() http.Handler {
	if _, ok := n.Catalog.(catalog.Publications); !ok {
		return nil
	}
	return vcsp.NewHandler(n.Catalog.(vcsp.Store), n.Service, n.S3)
}

// catalogIndexer is the leased job that regenerates the libraries'
// index documents; nil as catalogsHandler.
func (n *Node) catalogIndexer() *vcsp.Indexer {
	c, ok := n.Catalog.(vcsp.Catalog)
	if !ok {
		return nil
	}
	return vcsp.NewIndexer(c, n.cfg.CatalogIndexInterval)
}
