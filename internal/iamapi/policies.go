package iamapi

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
)

// principal is a user, group or role named by a call's parameter.
type principal struct {
	kind, param string // catalog kind, the parameter naming it
	max         int    // its name's length limit
	size        int    // its inline policies' size limit
}

var (
	userPrincipal  = principal{catalog.PrincipalUser, "UserName", 64, userPolicySize}
	groupPrincipal = principal{catalog.PrincipalGroup, "GroupName", 128, groupPolicySize}
	rolePrincipal  = principal{catalog.PrincipalRole, "RoleName", 64, rolePolicySize}
)

// resolve reads the principal's name, checks the call may do action on
// it, and returns its name as the catalog holds it.
func (c *call) resolve(p principal, action string) (string, error) {
	name, err := c.name(p.param, p.max)
	if err != nil {
		return "", err
	}
	var path string
	var lookup error
	switch p.kind {
	case catalog.PrincipalUser:
		path, lookup = c.h.store.UserPath(c.ctx, c.tenant, name)
	case catalog.PrincipalGroup:
		var g catalog.Group
		g, lookup = c.h.store.GetGroup(c.ctx, c.tenant, name)
		path, name = g.Path, or(g.Name, name)
	case catalog.PrincipalRole:
		var r catalog.Role
		r, lookup = c.h.store.GetRole(c.ctx, c.tenant, name)
		path, name = r.Path, or(r.Name, name)
	}
	if err := c.allowed(action, entityARN(c.tenant, p.kind, path, name)); err != nil {
		return "", err
	}
	return name, catalogErr(lookup, p.kind+" with name "+name)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// inline returns the four inline policy actions of a kind of principal.
func inline(p principal, kind string) map[string]action {
	return map[string]action{
		"Put" + kind + "Policy": func(c *call) (any, error) {
			name, err := c.resolve(p, "Put"+kind+"Policy")
			if err != nil {
				return nil, err
			}
			policy, err := c.name("PolicyName", 128)
			if err != nil {
				return nil, err
			}
			doc, err := c.document("PolicyDocument", p.size, iamcheck.Identity)
			if err != nil {
				return nil, err
			}
			return nil, catalogErr(c.changed(c.h.store.PutInlinePolicy(c.ctx, c.tenant, p.kind, name, policy, doc)), p.kind+" with name "+name)
		},
		"Get" + kind + "Policy": func(c *call) (any, error) {
			name, err := c.resolve(p, "Get"+kind+"Policy")
			if err != nil {
				return nil, err
			}
			policy, err := c.name("PolicyName", 128)
			if err != nil {
				return nil, err
			}
			doc, err := c.h.store.GetInlinePolicy(c.ctx, c.tenant, p.kind, name, policy)
			if err != nil {
				return nil, catalogErr(err, "policy with name "+policy)
			}
			out := struct {
				UserName       string `xml:",omitempty"`
				GroupName      string `xml:",omitempty"`
				RoleName       string `xml:",omitempty"`
				PolicyName     string
				PolicyDocument string
			}{PolicyName: policy, PolicyDocument: encodeDoc(doc)}
			switch p.kind {
			case catalog.PrincipalUser:
				out.UserName = name
			case catalog.PrincipalGroup:
				out.GroupName = name
			default:
				out.RoleName = name
			}
			return out, nil
		},
		"Delete" + kind + "Policy": func(c *call) (any, error) {
			name, err := c.resolve(p, "Delete"+kind+"Policy")
			if err != nil {
				return nil, err
			}
			policy, err := c.name("PolicyName", 128)
			if err != nil {
				return nil, err
			}
			return nil, catalogErr(c.changed(c.h.store.DeleteInlinePolicy(c.ctx, c.tenant, p.kind, name, policy)), "policy with name "+policy)
		},
		"List" + kind + "Policies": func(c *call) (any, error) {
			name, err := c.resolve(p, "List"+kind+"Policies")
			if err != nil {
				return nil, err
			}
			names, err := c.h.store.ListInlinePolicies(c.ctx, c.tenant, p.kind, name)
			if err != nil {
				return nil, catalogErr(err, p.kind+" with name "+name)
			}
			names, pg, err := paginate(c, names, strings.ToLower)
			return struct {
				PolicyNames []string `xml:"PolicyNames>member"`
				page
			}{names, pg}, err
		},
		"Attach" + kind + "Policy": func(c *call) (any, error) {
			// Decided on the principal, with the policy as iam:PolicyARN,
			// as AWS decides it.
			c.keys = map[string][]string{"iam:policyarn": {c.form.get("PolicyArn")}}
			name, err := c.resolve(p, "Attach"+kind+"Policy")
			if err != nil {
				return nil, err
			}
			pol, err := c.findPolicy("PolicyArn")
			if err != nil {
				return nil, err
			}
			return nil, catalogErr(c.changed(c.h.store.AttachPolicy(c.ctx, c.tenant, p.kind, name, pol.Name)), "attachment to "+p.kind+" "+name)
		},
		"Detach" + kind + "Policy": func(c *call) (any, error) {
			// Decided on the principal, with the policy as iam:PolicyARN,
			// as AWS decides it.
			c.keys = map[string][]string{"iam:policyarn": {c.form.get("PolicyArn")}}
			name, err := c.resolve(p, "Detach"+kind+"Policy")
			if err != nil {
				return nil, err
			}
			pol, err := c.findPolicy("PolicyArn")
			if err != nil {
				return nil, err
			}
			return nil, catalogErr(c.changed(c.h.store.DetachPolicy(c.ctx, c.tenant, p.kind, name, pol.Name)), "policy "+pol.Name+" attached to "+p.kind+" "+name)
		},
		"ListAttached" + kind + "Policies": func(c *call) (any, error) {
			name, err := c.resolve(p, "ListAttached"+kind+"Policies")
			if err != nil {
				return nil, err
			}
			ps, err := c.h.store.AttachedPolicies(c.ctx, c.tenant, p.kind, name)
			if err != nil {
				return nil, catalogErr(err, p.kind+" with name "+name)
			}
			if ps, err = pathPrefix(c, ps, func(p catalog.ManagedPolicy) string { return p.Path }); err != nil {
				return nil, err
			}
			ps, pg, err := paginate(c, ps, func(p catalog.ManagedPolicy) string { return strings.ToLower(p.Name) })
			type attached struct{ PolicyName, PolicyArn string }
			out := make([]attached, len(ps))
			for i, p := range ps {
				out[i] = attached{p.Name, policyARN(p)}
			}
			return struct {
				AttachedPolicies []attached `xml:"AttachedPolicies>member"`
				page
			}{out, pg}, err
		},
	}
}

func policyARN(p catalog.ManagedPolicy) string { return entityARN(p.Tenant, "policy", p.Path, p.Name) }

type xmlPolicy struct {
	PolicyName                    string
	PolicyId                      string // the element name is AWS's
	Arn                           string
	Path                          string
	DefaultVersionId              string // the element name is AWS's
	AttachmentCount               int
	PermissionsBoundaryUsageCount int
	IsAttachable                  bool
	Description                   string `xml:",omitempty"`
	CreateDate                    string
	UpdateDate                    string
}

func policyOut(p catalog.ManagedPolicy) xmlPolicy {
	return xmlPolicy{PolicyName: p.Name, PolicyId: p.ID, Arn: policyARN(p), Path: p.Path, DefaultVersionId: p.DefaultVersion,
		AttachmentCount: p.AttachmentCount, IsAttachable: true, Description: p.Description, CreateDate: isoTime(p.Created), UpdateDate: isoTime(p.Updated)}
}

// policy finds the managed policy a parameter's ARN names (its path
// too), after checking the call may act on it.
func (c *call) policy(param string) (catalog.ManagedPolicy, error) {
	if _, _, err := c.parseARN(param, "policy"); err != nil {
		return catalog.ManagedPolicy{}, err
	}
	if err := c.allowed(c.form.get("Action"), c.form.get(param)); err != nil {
		return catalog.ManagedPolicy{}, err
	}
	return c.findPolicy(param)
}

// findPolicy is policy for a call already authorized on something else
// (an Attach or Detach call, on its principal).
func (c *call) findPolicy(param string) (catalog.ManagedPolicy, error) {
	path, name, err := c.parseARN(param, "policy")
	if err != nil {
		return catalog.ManagedPolicy{}, err
	}
	arn := c.form.get(param)
	p, err := c.h.store.GetPolicy(c.ctx, c.tenant, name)
	if err == nil && !strings.EqualFold(p.Path, path) {
		err = catalog.ErrNoSuchEntity
	}
	if err != nil {
		return p, catalogErr(err, "policy "+arn)
	}
	return p, nil
}

type xmlVersion struct {
	Document         string `xml:",omitempty"`
	VersionId        string // the element name is AWS's
	IsDefaultVersion bool
	CreateDate       string
}

func versionOut(v catalog.PolicyVersion, withDoc bool) xmlVersion {
	x := xmlVersion{VersionId: v.ID, IsDefaultVersion: v.Default, CreateDate: isoTime(v.Created)}
	if withDoc {
		x.Document = encodeDoc(v.Document)
	}
	return x
}

var policyActions = map[string]action{
	"CreatePolicy": func(c *call) (any, error) {
		name, err := c.name("PolicyName", 128)
		if err != nil {
			return nil, err
		}
		path, err := c.path("Path")
		if err != nil {
			return nil, err
		}
		desc := c.form.get("Description")
		if err := checked(iamcheck.Description("description", desc)); err != nil {
			return nil, err
		}
		if c.form.has("Tags.member.1.Key") {
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "Tags on policies are not implemented")
		}
		p := catalog.ManagedPolicy{Tenant: c.tenant, Name: name, Path: path, ID: newID("ANPA"), Description: desc, Created: time.Now().UTC()}
		if err := c.allowed("CreatePolicy", policyARN(p)); err != nil {
			return nil, err
		}
		doc, err := c.document("PolicyDocument", managedPolicySize, iamcheck.Identity)
		if err != nil {
			return nil, err
		}
		p, err = c.h.store.CreatePolicy(c.ctx, p, doc)
		if err := c.changed(err); err != nil {
			return nil, catalogErr(err, "policy with name "+name)
		}
		return struct{ Policy xmlPolicy }{policyOut(p)}, nil
	},
	"GetPolicy": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		return struct{ Policy xmlPolicy }{policyOut(p)}, nil
	},
	"ListPolicies": func(c *call) (any, error) {
		if err := c.allowed("ListPolicies", entityARN(c.tenant, "policy", "/", "*")); err != nil {
			return nil, err
		}
		// Only the tenant's own: AWS's managed policies do not exist here.
		ps := []catalog.ManagedPolicy{}
		if scope := c.form.get("Scope"); scope == "" || scope == "All" || scope == "Local" {
			var err error
			if ps, err = c.h.store.ListPolicies(c.ctx, c.tenant); err != nil {
				return nil, err
			}
		}
		if c.form.get("OnlyAttached") == "true" {
			attached := ps[:0:0]
			for _, p := range ps {
				if p.AttachmentCount > 0 {
					attached = append(attached, p)
				}
			}
			ps = attached
		}
		ps, err := pathPrefix(c, ps, func(p catalog.ManagedPolicy) string { return p.Path })
		if err != nil {
			return nil, err
		}
		ps, pg, err := paginate(c, ps, func(p catalog.ManagedPolicy) string { return strings.ToLower(p.Name) })
		out := make([]xmlPolicy, len(ps))
		for i, p := range ps {
			out[i] = policyOut(p)
		}
		return struct {
			Policies []xmlPolicy `xml:"Policies>member"`
			page
		}{out, pg}, err
	},
	"DeletePolicy": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeletePolicy(c.ctx, c.tenant, p.Name)), "policy "+policyARN(p))
	},
	"CreatePolicyVersion": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		doc, err := c.document("PolicyDocument", managedPolicySize, iamcheck.Identity)
		if err != nil {
			return nil, err
		}
		v, err := c.h.store.CreatePolicyVersion(c.ctx, c.tenant, p.Name, doc, c.form.get("SetAsDefault") == "true")
		if err := c.changed(err); err != nil {
			if errors.Is(err, catalog.ErrLimitExceeded) {
				return nil, errf(http.StatusConflict, "LimitExceeded", "A managed policy can have up to %d versions. Before you create a new version, you must delete an existing version.", catalog.MaxPolicyVersions)
			}
			return nil, catalogErr(err, "policy "+policyARN(p))
		}
		return struct{ PolicyVersion xmlVersion }{versionOut(v, false)}, nil
	},
	"GetPolicyVersion": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		v, err := c.h.store.GetPolicyVersion(c.ctx, c.tenant, p.Name, c.form.get("VersionId"))
		if err != nil {
			return nil, catalogErr(err, "policy version "+c.form.get("VersionId"))
		}
		return struct{ PolicyVersion xmlVersion }{versionOut(v, true)}, nil
	},
	"ListPolicyVersions": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		vs, err := c.h.store.ListPolicyVersions(c.ctx, c.tenant, p.Name)
		if err != nil {
			return nil, catalogErr(err, "policy "+policyARN(p))
		}
		out := make([]xmlVersion, len(vs))
		for i, v := range vs {
			out[i] = versionOut(v, false)
		}
		// Newest first; the marker's key is the index of the version
		// from the newest, which pages do not reorder.
		out, pg, err := paginate(c, out, func(v xmlVersion) string {
			n := len(v.VersionId)
			return strings.Repeat("~", 12-min(n, 12)) + invert(v.VersionId)
		})
		return struct {
			Versions []xmlVersion `xml:"Versions>member"`
			page
		}{out, pg}, err
	},
	"DeletePolicyVersion": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeletePolicyVersion(c.ctx, c.tenant, p.Name, c.form.get("VersionId"))), "policy version "+c.form.get("VersionId")+" (the default one cannot be deleted)")
	},
	"SetDefaultPolicyVersion": func(c *call) (any, error) {
		p, err := c.policy("PolicyArn")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.SetDefaultPolicyVersion(c.ctx, c.tenant, p.Name, c.form.get("VersionId"))), "policy version "+c.form.get("VersionId"))
	},
}

// invert maps a version id's digits so that newer (larger) versions of
// the same length sort first.
func invert(id string) string {
	b := []byte(id)
	for i, ch := range b {
		if ch >= '0' && ch <= '9' {
			b[i] = '9' - (ch - '0')
		}
	}
	return string(b)
}
