package console

import (
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/admin"
)

// The tenant's directory, for its admins (and the provider): what is
// connected, the last sync, its users and groups, and "sync now". The
// admin service decides who may; connecting one is the admin API's and
// the CLI's.
func init() {
	routes = append(routes,
		route{method: "GET", pattern: "/tenants/{tenant}/directory", serve: func(h *Handler, c *call) (any, int, error) {
			d, err := h.o.Admin.GetDirectory(c.ctx(), c.id(), c.path("tenant"))
			var e *admin.Error
			if errors.As(err, &e) && e.Code == "NoSuchDirectory" {
				// None connected is a state the page shows, not an error.
				return map[string]any{"connected": false}, http.StatusOK, nil
			}
			if err != nil {
				return nil, 0, err
			}
			return map[string]any{"connected": true, "directory": d}, http.StatusOK, nil
		}},
		route{method: "POST", pattern: "/tenants/{tenant}/directory/sync", audit: "admin:SyncDirectory", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.SyncDirectory(c.ctx(), c.id(), c.path("tenant")))
		}},
		route{method: "GET", pattern: "/tenants/{tenant}/directory/users", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.ListDirectoryUsers(c.ctx(), c.id(), c.path("tenant")))
		}},
	)
}
