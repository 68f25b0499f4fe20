package console

import (
	"net/http"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
)

// A tenant's IAM for its admins (and the provider): managed policies
// written in an editor that validates as one types, attached to users,
// groups and roles; roles and groups; and "why may this user do that?".
// Each call is the admin service's, with its rules and checks, and each
// change is audited as the admin API audits it.
func init() {
	t := "/tenants/{tenant}/iam"
	routes = append(routes,
		route{method: "POST", pattern: t + "/validate", serve: func(h *Handler, c *call) (any, int, error) {
			var in struct {
				Kind     iamcheck.Kind `json:"kind"`
				Document string        `json:"document"`
			}
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			return ok(h.o.Admin.ValidatePolicy(c.ctx(), c.id(), c.path("tenant"), in.Kind, in.Document))
		}},
		route{method: "POST", pattern: t + "/explain", serve: func(h *Handler, c *call) (any, int, error) {
			var in admin.ExplainIn
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			return ok(h.o.Admin.Explain(c.ctx(), c.id(), c.path("tenant"), in))
		}},
		route{method: "GET", pattern: t + "/policies", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.ListIAMPolicies(c.ctx(), c.id(), c.path("tenant")))
		}},
		route{method: "POST", pattern: t + "/policies", audit: "admin:CreateIAMPolicy", serve: func(h *Handler, c *call) (any, int, error) {
			var in struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Document    string `json:"document"`
			}
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			p, err := h.o.Admin.CreateIAMPolicy(c.ctx(), c.id(), c.path("tenant"), in.Name, "/", in.Description, in.Document)
			return p, http.StatusCreated, err
		}},
		route{method: "GET", pattern: t + "/policies/{policy}", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.GetIAMPolicy(c.ctx(), c.id(), c.path("tenant"), c.path("policy")))
		}},
		route{method: "POST", pattern: t + "/policies/{policy}/versions", audit: "admin:CreateIAMPolicyVersion", serve: func(h *Handler, c *call) (any, int, error) {
			var in struct {
				Document   string `json:"document"`
				SetDefault bool   `json:"set_default"`
			}
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			v, err := h.o.Admin.CreateIAMPolicyVersion(c.ctx(), c.id(), c.path("tenant"), c.path("policy"), in.Document, in.SetDefault)
			return v, http.StatusCreated, err
		}},
		route{method: "DELETE", pattern: t + "/policies/{policy}", audit: "admin:DeleteIAMPolicy", serve: func(h *Handler, c *call) (any, int, error) {
			return nil, http.StatusNoContent, h.o.Admin.DeleteIAMPolicy(c.ctx(), c.id(), c.path("tenant"), c.path("policy"))
		}},
		route{method: "GET", pattern: t + "/roles", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.ListIAMRoles(c.ctx(), c.id(), c.path("tenant")))
		}},
		route{method: "GET", pattern: t + "/roles/{role}", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.GetIAMRole(c.ctx(), c.id(), c.path("tenant"), c.path("role")))
		}},
		route{method: "POST", pattern: t + "/roles", audit: "admin:CreateIAMRole", serve: func(h *Handler, c *call) (any, int, error) {
			var in admin.RoleIn
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			r, err := h.o.Admin.CreateIAMRole(c.ctx(), c.id(), c.path("tenant"), in)
			return r, http.StatusCreated, err
		}},
		route{method: "GET", pattern: t + "/groups", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.ListIAMGroups(c.ctx(), c.id(), c.path("tenant")))
		}},
		route{method: "GET", pattern: t + "/groups/{group}", serve: func(h *Handler, c *call) (any, int, error) {
			return ok(h.o.Admin.GetIAMGroup(c.ctx(), c.id(), c.path("tenant"), c.path("group")))
		}},
		route{method: "POST", pattern: t + "/groups", audit: "admin:CreateIAMGroup", serve: func(h *Handler, c *call) (any, int, error) {
			var in struct {
				Name string `json:"name"`
			}
			if err := decode(c.r, &in); err != nil {
				return nil, 0, err
			}
			g, err := h.o.Admin.CreateIAMGroup(c.ctx(), c.id(), c.path("tenant"), in.Name, "/")
			return g, http.StatusCreated, err
		}},
		route{method: "PUT", pattern: t + "/groups/{group}/members/{user}", audit: "admin:AddIAMGroupMember", serve: func(h *Handler, c *call) (any, int, error) {
			return nil, http.StatusNoContent, h.o.Admin.SetIAMGroupMember(c.ctx(), c.id(), c.path("tenant"), c.path("group"), c.path("user"), true)
		}},
		route{method: "DELETE", pattern: t + "/groups/{group}/members/{user}", audit: "admin:RemoveIAMGroupMember", serve: func(h *Handler, c *call) (any, int, error) {
			return nil, http.StatusNoContent, h.o.Admin.SetIAMGroupMember(c.ctx(), c.id(), c.path("tenant"), c.path("group"), c.path("user"), false)
		}},
	)
	// Attaching and detaching a managed policy, for users, groups and
	// roles alike.
	for plural, kind := range map[string]string{"users": "user", "groups": "group", "roles": "role"} {
		title := map[string]string{"user": "User", "group": "Group", "role": "Role"}[kind]
		p := t + "/" + plural + "/{name}"
		routes = append(routes,
			route{method: "GET", pattern: p + "/policies", serve: func(h *Handler, c *call) (any, int, error) {
				return ok(h.o.Admin.PrincipalPolicies(c.ctx(), c.id(), c.path("tenant"), kind, c.path("name")))
			}},
			route{method: "PUT", pattern: p + "/attached/{policy}", audit: "admin:Attach" + title + "Policy", serve: func(h *Handler, c *call) (any, int, error) {
				return nil, http.StatusNoContent, h.o.Admin.SetAttached(c.ctx(), c.id(), c.path("tenant"), kind, c.path("name"), c.path("policy"), true)
			}},
			route{method: "DELETE", pattern: p + "/attached/{policy}", audit: "admin:Detach" + title + "Policy", serve: func(h *Handler, c *call) (any, int, error) {
				return nil, http.StatusNoContent, h.o.Admin.SetAttached(c.ctx(), c.id(), c.path("tenant"), kind, c.path("name"), c.path("policy"), false)
			}},
		)
	}
}
