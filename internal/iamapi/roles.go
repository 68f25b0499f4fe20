package iamapi

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
)

type xmlRole struct {
	Path                     string
	RoleName                 string
	RoleId                   string // the element name is AWS's
	Arn                      string
	CreateDate               string
	AssumeRolePolicyDocument string
	Description              string `xml:",omitempty"`
	MaxSessionDuration       int
	Tags                     *[]xmlTag `xml:"Tags>member,omitempty"`
}

func roleOut(r catalog.Role) xmlRole {
	return xmlRole{Path: r.Path, RoleName: r.Name, RoleId: r.ID, Arn: entityARN(r.Tenant, "role", r.Path, r.Name), CreateDate: isoTime(r.Created),
		AssumeRolePolicyDocument: encodeDoc(r.TrustPolicy), Description: r.Description, MaxSessionDuration: r.MaxSessionDuration}
}

// role reads RoleName and checks the call may act on the role.
func (c *call) role(action string) (catalog.Role, error) {
	name, err := c.name("RoleName", 64)
	if err != nil {
		return catalog.Role{}, err
	}
	r, err := c.h.store.GetRole(c.ctx, c.tenant, name)
	if aerr := c.allowed(action, entityARN(c.tenant, "role", r.Path, or(r.Name, name))); aerr != nil {
		return r, aerr
	}
	return r, catalogErr(err, "role with name "+name)
}

// Session durations a role may allow, in seconds (1 to 12 hours).
const minSession = iamcheck.MinSessionDuration

var roleActions = map[string]action{
	"CreateRole": func(c *call) (any, error) {
		name, err := c.name("RoleName", 64)
		if err != nil {
			return nil, err
		}
		path, err := c.path("Path")
		if err != nil {
			return nil, err
		}
		r := catalog.Role{Tenant: c.tenant, Name: name, Path: path, ID: newID("AROA"), Description: c.form.get("Description"),
			MaxSessionDuration: minSession, Created: time.Now().UTC()}
		if err := c.allowed("CreateRole", entityARN(c.tenant, "role", path, name)); err != nil {
			return nil, err
		}
		if err := checked(iamcheck.Description("description", r.Description)); err != nil {
			return nil, err
		}
		if c.form.has("MaxSessionDuration") {
			n, err := strconv.Atoi(c.form.get("MaxSessionDuration"))
			if err != nil {
				n = 0
			}
			if err := checked(iamcheck.SessionDuration("maxSessionDuration", c.form.get("MaxSessionDuration"), n)); err != nil {
				return nil, err
			}
			r.MaxSessionDuration = n
		}
		if c.form.has("PermissionsBoundary") {
			return nil, errf(http.StatusNotImplemented, "NotImplemented", "Permissions boundaries are not implemented")
		}
		if r.TrustPolicy, err = c.document("AssumeRolePolicyDocument", trustPolicySize, iamcheck.Trust); err != nil {
			return nil, err
		}
		tags, err := c.tags()
		if err != nil {
			return nil, err
		}
		if err := c.changed(c.h.store.CreateRole(c.ctx, r)); err != nil {
			return nil, catalogErr(err, "role with name "+name)
		}
		if len(tags) > 0 {
			if err := c.changed(c.h.store.TagPrincipal(c.ctx, c.tenant, catalog.PrincipalRole, name, tags)); err != nil {
				return nil, catalogErr(err, "role with name "+name)
			}
		}
		out := roleOut(r)
		out.Tags = tagsOut(tags)
		return struct{ Role xmlRole }{out}, nil
	},
	"GetRole": func(c *call) (any, error) {
		r, err := c.role("GetRole")
		if err != nil {
			return nil, err
		}
		tags, err := c.h.store.PrincipalTags(c.ctx, c.tenant, catalog.PrincipalRole, r.Name)
		out := roleOut(r)
		out.Tags = tagsOut(tags)
		return struct{ Role xmlRole }{out}, catalogErr(err, "role with name "+r.Name)
	},
	"ListRoles": func(c *call) (any, error) {
		if err := c.allowed("ListRoles", entityARN(c.tenant, "role", "/", "*")); err != nil {
			return nil, err
		}
		rs, err := c.h.store.ListRoles(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		if rs, err = pathPrefix(c, rs, func(r catalog.Role) string { return r.Path }); err != nil {
			return nil, err
		}
		rs, pg, err := paginate(c, rs, func(r catalog.Role) string { return strings.ToLower(r.Name) })
		out := make([]xmlRole, len(rs))
		for i, r := range rs {
			out[i] = roleOut(r)
		}
		return struct {
			Roles []xmlRole `xml:"Roles>member"`
			page
		}{out, pg}, err
	},
	"DeleteRole": func(c *call) (any, error) {
		r, err := c.role("DeleteRole")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeleteRole(c.ctx, c.tenant, r.Name)), "role with name "+r.Name)
	},
	"UpdateAssumeRolePolicy": func(c *call) (any, error) {
		r, err := c.role("UpdateAssumeRolePolicy")
		if err != nil {
			return nil, err
		}
		doc, err := c.document("PolicyDocument", trustPolicySize, iamcheck.Trust)
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.SetRoleTrustPolicy(c.ctx, c.tenant, r.Name, doc)), "role with name "+r.Name)
	},
	"TagRole": func(c *call) (any, error) {
		r, err := c.role("TagRole")
		if err != nil {
			return nil, err
		}
		tags, err := c.tags()
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.TagPrincipal(c.ctx, c.tenant, catalog.PrincipalRole, r.Name, tags)), "role with name "+r.Name)
	},
	"UntagRole": func(c *call) (any, error) {
		r, err := c.role("UntagRole")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.UntagPrincipal(c.ctx, c.tenant, catalog.PrincipalRole, r.Name, c.list("TagKeys"))), "role with name "+r.Name)
	},
	"ListRoleTags": func(c *call) (any, error) {
		r, err := c.role("ListRoleTags")
		if err != nil {
			return nil, err
		}
		return c.listTags(catalog.PrincipalRole, r.Name)
	},

	"CreateOpenIDConnectProvider": func(c *call) (any, error) {
		p, err := iamcheck.OIDCProvider(c.tenant, c.form.get("Url"), c.list("ClientIDList"), c.list("ThumbprintList"), time.Now())
		if err != nil && p.URL == "" {
			return nil, checked(err)
		}
		if aerr := c.allowed("CreateOpenIDConnectProvider", oidcARN(c.tenant, p.URL)); aerr != nil {
			return nil, aerr
		}
		if err != nil {
			return nil, checked(err)
		}
		if err := c.changed(c.h.store.CreateOIDCProvider(c.ctx, p)); err != nil {
			return nil, catalogErr(err, "OpenID Connect provider "+p.URL)
		}
		return struct{ OpenIDConnectProviderArn string }{oidcARN(c.tenant, p.URL)}, nil
	},
	"GetOpenIDConnectProvider": func(c *call) (any, error) {
		p, err := c.oidc("GetOpenIDConnectProvider")
		if err != nil {
			return nil, err
		}
		return struct {
			Url            string   // the element name is AWS's
			ClientIDList   []string `xml:"ClientIDList>member"`
			ThumbprintList []string `xml:"ThumbprintList>member"`
			CreateDate     string
		}{p.URL, p.ClientIDs, p.Thumbprints, isoTime(p.Created)}, nil
	},
	"ListOpenIDConnectProviders": func(c *call) (any, error) {
		if err := c.allowed("ListOpenIDConnectProviders", oidcARN(c.tenant, "*")); err != nil {
			return nil, err
		}
		ps, err := c.h.store.ListOIDCProviders(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		type entry struct{ Arn string }
		out := make([]entry, len(ps))
		for i, p := range ps {
			out[i] = entry{oidcARN(c.tenant, p.URL)}
		}
		return struct {
			List []entry `xml:"OpenIDConnectProviderList>member"`
		}{out}, nil
	},
	"DeleteOpenIDConnectProvider": func(c *call) (any, error) {
		p, err := c.oidc("DeleteOpenIDConnectProvider")
		if err != nil {
			return nil, err
		}
		return nil, catalogErr(c.changed(c.h.store.DeleteOIDCProvider(c.ctx, c.tenant, p.URL)), "OpenID Connect provider "+p.URL)
	},

	"GetAccountSummary": func(c *call) (any, error) {
		if err := c.allowed("GetAccountSummary", "arn:aws:iam::"+c.tenant+":root"); err != nil {
			return nil, err
		}
		users, err := c.h.store.ListUsers(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		groups, err := c.h.store.ListGroups(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		roles, err := c.h.store.ListRoles(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		policies, err := c.h.store.ListPolicies(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		providers, err := c.h.store.ListOIDCProviders(c.ctx, c.tenant)
		if err != nil {
			return nil, err
		}
		type entry struct {
			Key   string `xml:"key"`
			Value int    `xml:"value"`
		}
		// The counts, and the quotas this service holds to (those it
		// does not enforce are not claimed).
		return struct {
			SummaryMap []entry `xml:"SummaryMap>entry"`
		}{[]entry{
			{"Users", len(users)}, {"Groups", len(groups)}, {"Roles", len(roles)}, {"Policies", len(policies)}, {"Providers", len(providers)},
			{"AccessKeysPerUserQuota", catalog.MaxAccessKeys}, {"GroupsPerUserQuota", catalog.MaxGroupsPerUser},
			{"AttachedPoliciesPerUserQuota", catalog.MaxAttachedPolicies}, {"AttachedPoliciesPerGroupQuota", catalog.MaxAttachedPolicies},
			{"AttachedPoliciesPerRoleQuota", catalog.MaxAttachedPolicies}, {"VersionsPerPolicyQuota", catalog.MaxPolicyVersions},
			{"PolicySizeQuota", managedPolicySize}, {"UserPolicySizeQuota", userPolicySize}, {"GroupPolicySizeQuota", groupPolicySize},
			{"RolePolicySizeQuota", rolePolicySize}, {"AssumeRolePolicySizeQuota", trustPolicySize},
		}}, nil
	},
}

func oidcARN(tenant, u string) string { return "arn:aws:iam::" + tenant + ":oidc-provider/" + u }

// oidc finds the provider OpenIDConnectProviderArn names.
func (c *call) oidc(action string) (catalog.OIDCProvider, error) {
	arn := c.form.get("OpenIDConnectProviderArn")
	u, ok := strings.CutPrefix(arn, "arn:aws:iam::"+c.tenant+":oidc-provider/")
	if aerr := c.allowed(action, arn); aerr != nil && ok {
		return catalog.OIDCProvider{}, aerr
	}
	if !ok || u == "" {
		if arn == "" || !strings.HasPrefix(arn, "arn:") {
			return catalog.OIDCProvider{}, validation("1 validation error detected: Value '%s' at 'openIDConnectProviderArn' failed to satisfy constraint: Member must be an ARN", arn)
		}
		return catalog.OIDCProvider{}, noSuch("OpenIDConnect Provider not found for arn %s", arn)
	}
	p, err := c.h.store.GetOIDCProvider(c.ctx, c.tenant, u)
	if err != nil {
		return p, noSuch("OpenIDConnect Provider not found for arn %s", arn)
	}
	return p, nil
}
