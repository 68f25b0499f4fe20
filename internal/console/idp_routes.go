package console

import (
	"net/http"

	"github.com/ostiumio/ostium/internal/admin"
)

// Identity providers for console sign-in: a tenant's, for its admins
// (and the provider), at /tenants/{tenant}/idps; the provider's own, for
// every tenant, at /idps ("" tenant), for the provider alone. The admin
// service decides who may; the client secret goes in and never comes
// back out.
func init() {
	for _, prefix := range []string{"/tenants/{tenant}", ""} {
		routes = append(routes,
			route{method: "GET", pattern: prefix + "/idps", serve: func(h *Handler, c *call) (any, int, error) {
				return ok(h.o.Admin.ListIdentityProviders(c.ctx(), c.id(), c.path("tenant")))
			}},
			route{method: "PUT", pattern: prefix + "/idps/{idp}", audit: "admin:PutIdentityProvider", serve: func(h *Handler, c *call) (any, int, error) {
				var in admin.IdentityProviderIn
				if err := decode(c.r, &in); err != nil {
					return nil, 0, err
				}
				return ok(h.o.Admin.PutIdentityProvider(c.ctx(), c.id(), c.path("tenant"), c.path("idp"), in))
			}},
			route{method: "DELETE", pattern: prefix + "/idps/{idp}", audit: "admin:DeleteIdentityProvider", serve: func(h *Handler, c *call) (any, int, error) {
				if err := h.o.Admin.DeleteIdentityProvider(c.ctx(), c.id(), c.path("tenant"), c.path("idp")); err != nil {
					return nil, 0, err
				}
				return nil, http.StatusNoContent, nil
			}},
		)
	}
}
