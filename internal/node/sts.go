package node

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/jobs"
	"github.com/ostiumio/ostium/internal/oidc"
	"github.com/ostiumio/ostium/internal/sts"
)

// STSConfig says where the node may fetch OpenID Connect providers'
// documents and keys from (AssumeRoleWithWebIdentity, sign-in).
type STSConfig struct {
	// OIDCAllowNetworks lists the private or loopback networks (CIDR)
	// where an identity provider may be reached; elsewhere only public
	// addresses are. Link-local and cloud metadata addresses never are.
	OIDCAllowNetworks []string `yaml:"oidc_allow_networks,omitempty"`
}

func (c STSConfig) validate() error {
	_, err := c.allowNetworks()
	return err
}

func (c STSConfig) allowNetworks() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.OIDCAllowNetworks {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("oidc_allow_networks: %q is not a network (CIDR): %w", s, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// serveSTS serves STS on the S3 endpoint and makes the node's verifier
// of identity providers' tokens.
func (n *Node) serveSTS(sealer *iam.Sealer) {
	allow, _ := n.cfg.STS.allowNetworks() // Validate checked them
	n.OIDC = oidc.NewVerifier(oidc.Options{AllowNetworks: allow})
	if creds, ok := n.Catalog.(catalog.TempCreds); ok {
		n.STS = sts.New(creds, sealer)
		if roles, ok := n.Catalog.(sts.Roles); ok {
			n.STS.WithRoles(roles, n.OIDC)
		}
		n.STS.Audit = n.Audit
		n.S3.Serve("sts", n.STS)
	}
}

// tempCredPruner drops expired temporary credentials (one node, leased).
func (n *Node) tempCredPruner() func(context.Context) {
	creds, ok := n.Catalog.(catalog.TempCreds)
	if !ok {
		return func(context.Context) {}
	}
	return jobs.TempCredPruner{Creds: creds, Retention: jobs.ExpiredTempCredRetention, Interval: 10 * time.Minute}.Run
}

// directorySTS lets STS sign directory users in
// (AssumeRoleWithLDAPIdentity) through the console's sign-in, so that
// both doors share its limits.
func (n *Node) directorySTS(consoleh http.Handler) {
	if d, ok := consoleh.(sts.DirectorySignIn); ok && n.STS != nil && n.Directories != nil {
		n.STS.Directory = d
	}
}
