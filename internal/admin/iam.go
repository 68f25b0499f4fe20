package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/iamcheck"
	"github.com/ostiumio/ostium/internal/iam/why"
)

// The IAM entities of a tenant (groups, managed policies, roles, the
// policies of users, groups and roles, OpenID Connect providers) as the
// provider and the tenant's admins manage them outside the IAM API:
// the same catalog calls, the same checks (iamcheck), and a tenant
// admin held to its own identity-based policies for each change as the
// IAM API holds it. Every call is audited by the Handler, refused ones
// too.

// Explainer decides a request as the S3 endpoint would and tells what
// applied (*objects.Service).
type Explainer interface {
	Explain(ctx context.Context, r iam.Request, bucket string) (iam.Explanation, error)
}

// SetExplainer gives the API the node's object service, for explaining
// decisions.
func (s *Service) SetExplainer(e Explainer) { s.explainer = e }

func init() {
	routes = append(routes, iamRoutes...)
	for _, k := range []struct{ plural, kind string }{{"users", catalog.PrincipalUser}, {"groups", catalog.PrincipalGroup}, {"roles", catalog.PrincipalRole}} {
		routes = append(routes, principalPolicyRoutes(k.plural, k.kind)...)
	}
}

const iamPrefix = "/tenants/{tenant}/iam"

var iamRoutes = []route{
	{"POST", iamPrefix + "/validate", "ValidatePolicy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Kind     iamcheck.Kind `json:"kind"`
			Document string        `json:"document"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.ValidatePolicy(r.Context(), id, r.PathValue("tenant"), in.Kind, in.Document))
	}},
	{"POST", iamPrefix + "/explain", "ExplainRequest", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in ExplainIn
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.Explain(r.Context(), id, r.PathValue("tenant"), in))
	}},
	{"GET", iamPrefix + "/groups", "ListIAMGroups", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIAMGroups(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", iamPrefix + "/groups", "CreateIAMGroup", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct{ Name, Path string }
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateIAMGroup(r.Context(), id, r.PathValue("tenant"), in.Name, in.Path))
	}},
	{"GET", iamPrefix + "/groups/{group}", "GetIAMGroup", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetIAMGroup(r.Context(), id, r.PathValue("tenant"), r.PathValue("group")))
	}},
	{"DELETE", iamPrefix + "/groups/{group}", "DeleteIAMGroup", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIAMGroup(r.Context(), id, r.PathValue("tenant"), r.PathValue("group"))
	}},
	{"PUT", iamPrefix + "/groups/{group}/members/{user}", "AddIAMGroupMember", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.SetIAMGroupMember(r.Context(), id, r.PathValue("tenant"), r.PathValue("group"), r.PathValue("user"), true)
	}},
	{"DELETE", iamPrefix + "/groups/{group}/members/{user}", "RemoveIAMGroupMember", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.SetIAMGroupMember(r.Context(), id, r.PathValue("tenant"), r.PathValue("group"), r.PathValue("user"), false)
	}},
	{"GET", iamPrefix + "/policies", "ListIAMPolicies", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIAMPolicies(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", iamPrefix + "/policies", "CreateIAMPolicy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Name        string `json:"name"`
			Path        string `json:"path"`
			Description string `json:"description"`
			Document    string `json:"document"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateIAMPolicy(r.Context(), id, r.PathValue("tenant"), in.Name, in.Path, in.Description, in.Document))
	}},
	{"GET", iamPrefix + "/policies/{policy}", "GetIAMPolicy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetIAMPolicy(r.Context(), id, r.PathValue("tenant"), r.PathValue("policy")))
	}},
	{"DELETE", iamPrefix + "/policies/{policy}", "DeleteIAMPolicy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIAMPolicy(r.Context(), id, r.PathValue("tenant"), r.PathValue("policy"))
	}},
	{"POST", iamPrefix + "/policies/{policy}/versions", "CreateIAMPolicyVersion", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Document   string `json:"document"`
			SetDefault bool   `json:"set_default"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateIAMPolicyVersion(r.Context(), id, r.PathValue("tenant"), r.PathValue("policy"), in.Document, in.SetDefault))
	}},
	{"PUT", iamPrefix + "/policies/{policy}/default", "SetIAMPolicyDefault", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Version string `json:"version"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetIAMPolicyDefault(r.Context(), id, r.PathValue("tenant"), r.PathValue("policy"), in.Version))
	}},
	{"DELETE", iamPrefix + "/policies/{policy}/versions/{version}", "DeleteIAMPolicyVersion", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIAMPolicyVersion(r.Context(), id, r.PathValue("tenant"), r.PathValue("policy"), r.PathValue("version"))
	}},
	{"GET", iamPrefix + "/roles", "ListIAMRoles", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIAMRoles(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", iamPrefix + "/roles", "CreateIAMRole", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in RoleIn
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateIAMRole(r.Context(), id, r.PathValue("tenant"), in))
	}},
	{"GET", iamPrefix + "/roles/{role}", "GetIAMRole", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetIAMRole(r.Context(), id, r.PathValue("tenant"), r.PathValue("role")))
	}},
	{"DELETE", iamPrefix + "/roles/{role}", "DeleteIAMRole", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIAMRole(r.Context(), id, r.PathValue("tenant"), r.PathValue("role"))
	}},
	{"PUT", iamPrefix + "/roles/{role}/trust-policy", "SetIAMRoleTrust", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			Document string `json:"document"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetIAMRoleTrust(r.Context(), id, r.PathValue("tenant"), r.PathValue("role"), in.Document))
	}},
	{"GET", iamPrefix + "/oidc-providers", "ListOIDCProviders", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListOIDCProviders(r.Context(), id, r.PathValue("tenant")))
	}},
	{"POST", iamPrefix + "/oidc-providers", "CreateOIDCProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in struct {
			URL         string   `json:"url"`
			ClientIDs   []string `json:"client_ids"`
			Thumbprints []string `json:"thumbprints"`
		}
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return created(s.CreateOIDCProvider(r.Context(), id, r.PathValue("tenant"), in.URL, in.ClientIDs, in.Thumbprints))
	}},
	{"DELETE", iamPrefix + "/oidc-providers", "DeleteOIDCProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteOIDCProvider(r.Context(), id, r.PathValue("tenant"), r.URL.Query().Get("url"))
	}},
}

// principalPolicyRoutes are the inline and attached policies of users,
// groups or roles (plural names them in the path).
func principalPolicyRoutes(plural, kind string) []route {
	p := iamPrefix + "/" + plural + "/{name}"
	title := strings.ToUpper(kind[:1]) + kind[1:]
	return []route{
		{"GET", p + "/policies", "List" + title + "Policies", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return ok(s.PrincipalPolicies(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name")))
		}},
		{"GET", p + "/policies/{policy}", "Get" + title + "Policy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return ok(s.GetInlinePolicy(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name"), r.PathValue("policy")))
		}},
		{"PUT", p + "/policies/{policy}", "Put" + title + "Policy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			var in struct {
				Document string `json:"document"`
			}
			if err := decode(r, &in); err != nil {
				return nil, 0, err
			}
			return ok(s.PutInlinePolicy(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name"), r.PathValue("policy"), in.Document))
		}},
		{"DELETE", p + "/policies/{policy}", "Delete" + title + "Policy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return nil, http.StatusNoContent, s.DeleteInlinePolicy(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name"), r.PathValue("policy"))
		}},
		{"PUT", p + "/attached/{policy}", "Attach" + title + "Policy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return nil, http.StatusNoContent, s.SetAttached(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name"), r.PathValue("policy"), true)
		}},
		{"DELETE", p + "/attached/{policy}", "Detach" + title + "Policy", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return nil, http.StatusNoContent, s.SetAttached(r.Context(), id, r.PathValue("tenant"), kind, r.PathValue("name"), r.PathValue("policy"), false)
		}},
	}
}

// The API's records of IAM entities.
type (
	IAMGroup struct {
		Name     string    `json:"name"`
		Path     string    `json:"path"`
		ID       string    `json:"id"`
		ARN      string    `json:"arn"`
		Created  time.Time `json:"created"`
		Members  []string  `json:"members,omitempty"`
		Policies *Policies `json:"policies,omitempty"`
	}
	IAMPolicy struct {
		Name            string          `json:"name"`
		Path            string          `json:"path"`
		ID              string          `json:"id"`
		ARN             string          `json:"arn"`
		Description     string          `json:"description,omitempty"`
		DefaultVersion  string          `json:"default_version"`
		AttachmentCount int             `json:"attachment_count"`
		Created         time.Time       `json:"created"`
		Updated         time.Time       `json:"updated"`
		Versions        []PolicyVersion `json:"versions,omitempty"`
	}
	PolicyVersion struct {
		ID       string    `json:"id"`
		Default  bool      `json:"default"`
		Document string    `json:"document"`
		Created  time.Time `json:"created"`
	}
	IAMRole struct {
		Name               string    `json:"name"`
		Path               string    `json:"path"`
		ID                 string    `json:"id"`
		ARN                string    `json:"arn"`
		Description        string    `json:"description,omitempty"`
		TrustPolicy        string    `json:"trust_policy"`
		MaxSessionDuration int       `json:"max_session_duration"`
		Created            time.Time `json:"created"`
		Policies           *Policies `json:"policies,omitempty"`
	}
	// Policies are a user's, group's or role's own: inline by name, and
	// the managed ones attached.
	Policies struct {
		Inline   []string    `json:"inline"`
		Attached []IAMPolicy `json:"attached"`
	}
	InlinePolicy struct {
		Name     string `json:"name"`
		Document string `json:"document"`
	}
	OIDCProvider struct {
		URL         string    `json:"url"`
		ARN         string    `json:"arn"`
		ClientIDs   []string  `json:"client_ids"`
		Thumbprints []string  `json:"thumbprints"`
		Created     time.Time `json:"created"`
	}
	// RoleIn is a role as created.
	RoleIn struct {
		Name               string `json:"name"`
		Path               string `json:"path"`
		Description        string `json:"description"`
		TrustPolicy        string `json:"trust_policy"`
		MaxSessionDuration int    `json:"max_session_duration"`
	}
	// Validation is what a policy document's check found: Valid when it
	// would be stored (warnings do not refuse it).
	Validation struct {
		Valid    bool               `json:"valid"`
		Problems []iamcheck.Problem `json:"problems"`
	}
)

func entityARN(tenant, kind, path, name string) string {
	if path == "" {
		path = "/"
	}
	return "arn:aws:iam::" + tenant + ":" + kind + path + name
}

func groupOut(g catalog.Group) IAMGroup {
	return IAMGroup{Name: g.Name, Path: g.Path, ID: g.ID, ARN: entityARN(g.Tenant, "group", g.Path, g.Name), Created: g.Created}
}

func policyOut(p catalog.ManagedPolicy) IAMPolicy {
	return IAMPolicy{Name: p.Name, Path: p.Path, ID: p.ID, ARN: why.PolicyARN(p), Description: p.Description, DefaultVersion: p.DefaultVersion,
		AttachmentCount: p.AttachmentCount, Created: p.Created, Updated: p.Updated}
}

func roleOut(r catalog.Role) IAMRole {
	return IAMRole{Name: r.Name, Path: r.Path, ID: r.ID, ARN: entityARN(r.Tenant, "role", r.Path, r.Name), Description: r.Description,
		TrustPolicy: r.TrustPolicy, MaxSessionDuration: r.MaxSessionDuration, Created: r.Created}
}

// iamStore is the catalog's IAM part, for a caller who may act on
// tenant's entity (action, the IAM action it is, on arn): the provider's
// root, or a tenant admin whose own identity-based policies allow the
// action there, as the IAM API decides it.
func (s *Service) iamStore(ctx context.Context, id *iam.Identity, tenant, action, arn string) (catalog.IAM, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	if err := iam.AuthorizeService(id, action, arn); err != nil {
		return nil, errDenied
	}
	st, ok := s.cat.(catalog.IAM)
	if !ok {
		return nil, newErr(http.StatusNotImplemented, "NotImplemented", "This catalog holds no IAM entities")
	}
	if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
		return nil, apiErr(err)
	}
	return st, nil
}

// iamErr maps the catalog's and the checks' refusals to the API's.
func iamErr(err error, what string) error {
	var ce *iamcheck.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		status := http.StatusBadRequest
		if ce.Code == iamcheck.CodeLimitExceeded {
			status = http.StatusConflict
		}
		return newErr(status, ce.Code, "%s", ce.Message)
	case errors.Is(err, catalog.ErrNoSuchEntity):
		return newErr(http.StatusNotFound, "NoSuchEntity", "The %s does not exist", what)
	case errors.Is(err, catalog.ErrEntityExists):
		return newErr(http.StatusConflict, "EntityAlreadyExists", "The %s already exists", what)
	case errors.Is(err, catalog.ErrDeleteConflict):
		return newErr(http.StatusConflict, "DeleteConflict", "The %s still holds or is held by something (policies, members, versions, attachments); remove those first", what)
	case errors.Is(err, catalog.ErrLimitExceeded):
		return newErr(http.StatusConflict, "LimitExceeded", "A quota of the %s would be exceeded", what)
	}
	return apiErr(err)
}

// changed flushes this node's identity cache after a change (the
// catalog moves the identity generation for the other nodes).
func (s *Service) changed(err error, what string) error {
	if err == nil {
		s.keys.Flush()
	}
	return iamErr(err, what)
}

// ValidatePolicy checks a policy document of kind (identity or trust)
// as it would be checked when stored, without storing it.
func (s *Service) ValidatePolicy(ctx context.Context, id *iam.Identity, tenant string, kind iamcheck.Kind, doc string) (Validation, error) {
	if err := allow(id, tenant); err != nil {
		return Validation{}, err
	}
	if _, err := kind.Parser(); err != nil {
		return Validation{}, newErr(http.StatusBadRequest, "InvalidArgument", "kind is identity or trust")
	}
	ps := iamcheck.Validate(kind, doc)
	if ps == nil {
		ps = []iamcheck.Problem{}
	}
	v := Validation{Valid: true, Problems: ps}
	for _, p := range ps {
		if p.Severity == "error" {
			v.Valid = false
		}
	}
	return v, nil
}

// Groups.

func (s *Service) ListIAMGroups(ctx context.Context, id *iam.Identity, tenant string) ([]IAMGroup, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:ListGroups", entityARN(tenant, "group", "/", "*"))
	if err != nil {
		return nil, err
	}
	gs, err := st.ListGroups(ctx, tenant)
	out := make([]IAMGroup, len(gs))
	for i, g := range gs {
		out[i] = groupOut(g)
	}
	return out, iamErr(err, "group")
}

func (s *Service) CreateIAMGroup(ctx context.Context, id *iam.Identity, tenant, name, path string) (IAMGroup, error) {
	path = or(path, "/")
	if err := firstErr(iamcheck.Name("name", name, iamcheck.GroupNameMax), iamcheck.Path("path", path)); err != nil {
		return IAMGroup{}, iamErr(err, "group")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:CreateGroup", entityARN(tenant, "group", path, name))
	if err != nil {
		return IAMGroup{}, err
	}
	g := catalog.Group{Tenant: tenant, Name: name, Path: path, ID: iamcheck.NewID("AGPA"), Created: time.Now().UTC()}
	return groupOut(g), s.changed(st.CreateGroup(ctx, g), "group "+name)
}

func (s *Service) GetIAMGroup(ctx context.Context, id *iam.Identity, tenant, name string) (IAMGroup, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:GetGroup", entityARN(tenant, "group", "/", name))
	if err != nil {
		return IAMGroup{}, err
	}
	g, err := st.GetGroup(ctx, tenant, name)
	if err != nil {
		return IAMGroup{}, iamErr(err, "group "+name)
	}
	out := groupOut(g)
	if out.Members, err = st.GroupMembers(ctx, tenant, g.Name); err != nil {
		return out, iamErr(err, "group "+name)
	}
	ps, err := s.policies(ctx, st, tenant, catalog.PrincipalGroup, g.Name)
	out.Policies = &ps
	return out, iamErr(err, "group "+name)
}

func (s *Service) DeleteIAMGroup(ctx context.Context, id *iam.Identity, tenant, name string) error {
	st, err := s.iamStore(ctx, id, tenant, "iam:DeleteGroup", entityARN(tenant, "group", "/", name))
	if err != nil {
		return err
	}
	return s.changed(st.DeleteGroup(ctx, tenant, name), "group "+name)
}

// SetIAMGroupMember adds a user to a group (in) or removes it.
func (s *Service) SetIAMGroupMember(ctx context.Context, id *iam.Identity, tenant, group, user string, in bool) error {
	action, change := "iam:RemoveUserFromGroup", (catalog.IAM).RemoveUserFromGroup
	if in {
		action, change = "iam:AddUserToGroup", (catalog.IAM).AddUserToGroup
	}
	st, err := s.iamStore(ctx, id, tenant, action, entityARN(tenant, "group", "/", group))
	if err != nil {
		return err
	}
	err = change(st, ctx, tenant, group, user)
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return apiErr(err)
	}
	return s.changed(err, "group "+group+" or its member "+user)
}

// Managed policies.

func (s *Service) ListIAMPolicies(ctx context.Context, id *iam.Identity, tenant string) ([]IAMPolicy, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:ListPolicies", entityARN(tenant, "policy", "/", "*"))
	if err != nil {
		return nil, err
	}
	ps, err := st.ListPolicies(ctx, tenant)
	out := make([]IAMPolicy, len(ps))
	for i, p := range ps {
		out[i] = policyOut(p)
	}
	return out, iamErr(err, "policy")
}

func (s *Service) CreateIAMPolicy(ctx context.Context, id *iam.Identity, tenant, name, path, desc, doc string) (IAMPolicy, error) {
	path = or(path, "/")
	if err := firstErr(iamcheck.Name("name", name, iamcheck.PolicyNameMax), iamcheck.Path("path", path), iamcheck.Description("description", desc),
		iamcheck.Document("document", iamcheck.Identity, doc, iamcheck.ManagedPolicySize)); err != nil {
		return IAMPolicy{}, iamErr(err, "policy")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:CreatePolicy", entityARN(tenant, "policy", path, name))
	if err != nil {
		return IAMPolicy{}, err
	}
	p, err := st.CreatePolicy(ctx, catalog.ManagedPolicy{Tenant: tenant, Name: name, Path: path, ID: iamcheck.NewID("ANPA"), Description: desc, Created: time.Now().UTC()}, doc)
	return policyOut(p), s.changed(err, "policy "+name)
}

func (s *Service) GetIAMPolicy(ctx context.Context, id *iam.Identity, tenant, name string) (IAMPolicy, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:GetPolicy", entityARN(tenant, "policy", "/", name))
	if err != nil {
		return IAMPolicy{}, err
	}
	p, err := st.GetPolicy(ctx, tenant, name)
	if err != nil {
		return IAMPolicy{}, iamErr(err, "policy "+name)
	}
	out := policyOut(p)
	vs, err := st.ListPolicyVersions(ctx, tenant, p.Name)
	for _, v := range vs {
		out.Versions = append(out.Versions, PolicyVersion{ID: v.ID, Default: v.Default, Document: v.Document, Created: v.Created})
	}
	return out, iamErr(err, "policy "+name)
}

func (s *Service) DeleteIAMPolicy(ctx context.Context, id *iam.Identity, tenant, name string) error {
	st, err := s.iamStore(ctx, id, tenant, "iam:DeletePolicy", entityARN(tenant, "policy", "/", name))
	if err != nil {
		return err
	}
	return s.changed(st.DeletePolicy(ctx, tenant, name), "policy "+name)
}

func (s *Service) CreateIAMPolicyVersion(ctx context.Context, id *iam.Identity, tenant, name, doc string, setDefault bool) (PolicyVersion, error) {
	if err := iamcheck.Document("document", iamcheck.Identity, doc, iamcheck.ManagedPolicySize); err != nil {
		return PolicyVersion{}, iamErr(err, "policy")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:CreatePolicyVersion", entityARN(tenant, "policy", "/", name))
	if err != nil {
		return PolicyVersion{}, err
	}
	v, err := st.CreatePolicyVersion(ctx, tenant, name, doc, setDefault)
	return PolicyVersion{ID: v.ID, Default: v.Default, Document: v.Document, Created: v.Created}, s.changed(err, "policy "+name)
}

func (s *Service) SetIAMPolicyDefault(ctx context.Context, id *iam.Identity, tenant, name, version string) (IAMPolicy, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:SetDefaultPolicyVersion", entityARN(tenant, "policy", "/", name))
	if err != nil {
		return IAMPolicy{}, err
	}
	if err := s.changed(st.SetDefaultPolicyVersion(ctx, tenant, name, version), "policy "+name+" version "+version); err != nil {
		return IAMPolicy{}, err
	}
	return s.GetIAMPolicy(ctx, id, tenant, name)
}

func (s *Service) DeleteIAMPolicyVersion(ctx context.Context, id *iam.Identity, tenant, name, version string) error {
	st, err := s.iamStore(ctx, id, tenant, "iam:DeletePolicyVersion", entityARN(tenant, "policy", "/", name))
	if err != nil {
		return err
	}
	return s.changed(st.DeletePolicyVersion(ctx, tenant, name, version), "policy "+name+" version "+version)
}

// Roles.

func (s *Service) ListIAMRoles(ctx context.Context, id *iam.Identity, tenant string) ([]IAMRole, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:ListRoles", entityARN(tenant, "role", "/", "*"))
	if err != nil {
		return nil, err
	}
	rs, err := st.ListRoles(ctx, tenant)
	out := make([]IAMRole, len(rs))
	for i, r := range rs {
		out[i] = roleOut(r)
	}
	return out, iamErr(err, "role")
}

func (s *Service) CreateIAMRole(ctx context.Context, id *iam.Identity, tenant string, in RoleIn) (IAMRole, error) {
	in.Path = or(in.Path, "/")
	if in.MaxSessionDuration == 0 {
		in.MaxSessionDuration = iamcheck.MinSessionDuration
	}
	if err := firstErr(iamcheck.Name("name", in.Name, iamcheck.RoleNameMax), iamcheck.Path("path", in.Path), iamcheck.Description("description", in.Description),
		iamcheck.SessionDuration("max_session_duration", itoa(in.MaxSessionDuration), in.MaxSessionDuration),
		iamcheck.Document("trust_policy", iamcheck.Trust, in.TrustPolicy, iamcheck.TrustPolicySize)); err != nil {
		return IAMRole{}, iamErr(err, "role")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:CreateRole", entityARN(tenant, "role", in.Path, in.Name))
	if err != nil {
		return IAMRole{}, err
	}
	r := catalog.Role{Tenant: tenant, Name: in.Name, Path: in.Path, ID: iamcheck.NewID("AROA"), Description: in.Description,
		TrustPolicy: in.TrustPolicy, MaxSessionDuration: in.MaxSessionDuration, Created: time.Now().UTC()}
	return roleOut(r), s.changed(st.CreateRole(ctx, r), "role "+in.Name)
}

func (s *Service) GetIAMRole(ctx context.Context, id *iam.Identity, tenant, name string) (IAMRole, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:GetRole", entityARN(tenant, "role", "/", name))
	if err != nil {
		return IAMRole{}, err
	}
	r, err := st.GetRole(ctx, tenant, name)
	if err != nil {
		return IAMRole{}, iamErr(err, "role "+name)
	}
	out := roleOut(r)
	ps, err := s.policies(ctx, st, tenant, catalog.PrincipalRole, r.Name)
	out.Policies = &ps
	return out, iamErr(err, "role "+name)
}

func (s *Service) DeleteIAMRole(ctx context.Context, id *iam.Identity, tenant, name string) error {
	st, err := s.iamStore(ctx, id, tenant, "iam:DeleteRole", entityARN(tenant, "role", "/", name))
	if err != nil {
		return err
	}
	return s.changed(st.DeleteRole(ctx, tenant, name), "role "+name)
}

func (s *Service) SetIAMRoleTrust(ctx context.Context, id *iam.Identity, tenant, name, doc string) (IAMRole, error) {
	if err := iamcheck.Document("document", iamcheck.Trust, doc, iamcheck.TrustPolicySize); err != nil {
		return IAMRole{}, iamErr(err, "role")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:UpdateAssumeRolePolicy", entityARN(tenant, "role", "/", name))
	if err != nil {
		return IAMRole{}, err
	}
	if err := s.changed(st.SetRoleTrustPolicy(ctx, tenant, name, doc), "role "+name); err != nil {
		return IAMRole{}, err
	}
	return s.GetIAMRole(ctx, id, tenant, name)
}

// The policies of users, groups and roles.

// principalARN is the ARN of a user, group or role, for authorizing a
// change to its policies.
func principalARN(tenant, kind, name string) string { return entityARN(tenant, kind, "/", name) }

// inlineSize is the quota of an inline policy of kind.
func inlineSize(kind string) int {
	switch kind {
	case catalog.PrincipalGroup:
		return iamcheck.GroupPolicySize
	case catalog.PrincipalRole:
		return iamcheck.RolePolicySize
	}
	return iamcheck.UserPolicySize
}

// iamAction is the IAM action of verb ("Put", "Get", ...) on a
// principal of kind's policies: iam:PutUserPolicy, iam:AttachRolePolicy.
func iamAction(verb, kind, noun string) string {
	return "iam:" + verb + strings.ToUpper(kind[:1]) + kind[1:] + noun
}

func (s *Service) policies(ctx context.Context, st catalog.IAM, tenant, kind, name string) (Policies, error) {
	var ps Policies
	var err error
	if ps.Inline, err = st.ListInlinePolicies(ctx, tenant, kind, name); err != nil {
		return ps, err
	}
	ms, err := st.AttachedPolicies(ctx, tenant, kind, name)
	ps.Attached = make([]IAMPolicy, len(ms))
	for i, m := range ms {
		ps.Attached[i] = policyOut(m)
	}
	if ps.Inline == nil {
		ps.Inline = []string{}
	}
	return ps, err
}

// PrincipalPolicies lists a user's, group's or role's inline and
// attached policies.
func (s *Service) PrincipalPolicies(ctx context.Context, id *iam.Identity, tenant, kind, name string) (Policies, error) {
	st, err := s.iamStore(ctx, id, tenant, iamAction("List", kind, "Policies"), principalARN(tenant, kind, name))
	if err != nil {
		return Policies{}, err
	}
	ps, err := s.policies(ctx, st, tenant, kind, name)
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return ps, apiErr(err)
	}
	return ps, iamErr(err, kind+" "+name)
}

func (s *Service) GetInlinePolicy(ctx context.Context, id *iam.Identity, tenant, kind, name, policy string) (InlinePolicy, error) {
	st, err := s.iamStore(ctx, id, tenant, iamAction("Get", kind, "Policy"), principalARN(tenant, kind, name))
	if err != nil {
		return InlinePolicy{}, err
	}
	doc, err := st.GetInlinePolicy(ctx, tenant, kind, name, policy)
	return InlinePolicy{Name: policy, Document: doc}, s.principalErr(err, kind, name, "policy "+policy+" of "+kind+" "+name, false)
}

func (s *Service) PutInlinePolicy(ctx context.Context, id *iam.Identity, tenant, kind, name, policy, doc string) (InlinePolicy, error) {
	if err := firstErr(iamcheck.Name("policy", policy, iamcheck.PolicyNameMax), iamcheck.Document("document", iamcheck.Identity, doc, inlineSize(kind))); err != nil {
		return InlinePolicy{}, iamErr(err, "policy")
	}
	st, err := s.iamStore(ctx, id, tenant, iamAction("Put", kind, "Policy"), principalARN(tenant, kind, name))
	if err != nil {
		return InlinePolicy{}, err
	}
	err = st.PutInlinePolicy(ctx, tenant, kind, name, policy, doc)
	return InlinePolicy{Name: policy, Document: doc}, s.principalErr(err, kind, name, kind+" "+name, true)
}

func (s *Service) DeleteInlinePolicy(ctx context.Context, id *iam.Identity, tenant, kind, name, policy string) error {
	st, err := s.iamStore(ctx, id, tenant, iamAction("Delete", kind, "Policy"), principalARN(tenant, kind, name))
	if err != nil {
		return err
	}
	return s.principalErr(st.DeleteInlinePolicy(ctx, tenant, kind, name, policy), kind, name, "policy "+policy+" of "+kind+" "+name, true)
}

// SetAttached attaches a managed policy to a user, group or role (on)
// or detaches it.
func (s *Service) SetAttached(ctx context.Context, id *iam.Identity, tenant, kind, name, policy string, on bool) error {
	verb, change := "Detach", (catalog.IAM).DetachPolicy
	if on {
		verb, change = "Attach", (catalog.IAM).AttachPolicy
	}
	st, err := s.iamStore(ctx, id, tenant, iamAction(verb, kind, "Policy"), principalARN(tenant, kind, name))
	if err != nil {
		return err
	}
	return s.principalErr(change(st, ctx, tenant, kind, name, policy), kind, name, "policy "+policy+" or "+kind+" "+name, true)
}

// principalErr maps a refusal about a principal's policies; a change
// (changed) flushes the identity cache.
func (s *Service) principalErr(err error, kind, name, what string, change bool) error {
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return apiErr(err)
	}
	if change {
		return s.changed(err, what)
	}
	return iamErr(err, what)
}

// OpenID Connect providers.

func oidcOut(p catalog.OIDCProvider) OIDCProvider {
	return OIDCProvider{URL: p.URL, ARN: "arn:aws:iam::" + p.Tenant + ":oidc-provider/" + p.URL, ClientIDs: orEmpty(p.ClientIDs),
		Thumbprints: orEmpty(p.Thumbprints), Created: p.Created}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Service) ListOIDCProviders(ctx context.Context, id *iam.Identity, tenant string) ([]OIDCProvider, error) {
	st, err := s.iamStore(ctx, id, tenant, "iam:ListOpenIDConnectProviders", "arn:aws:iam::"+tenant+":oidc-provider/*")
	if err != nil {
		return nil, err
	}
	ps, err := st.ListOIDCProviders(ctx, tenant)
	out := make([]OIDCProvider, len(ps))
	for i, p := range ps {
		out[i] = oidcOut(p)
	}
	return out, iamErr(err, "OpenID Connect provider")
}

func (s *Service) CreateOIDCProvider(ctx context.Context, id *iam.Identity, tenant, url string, clientIDs, thumbprints []string) (OIDCProvider, error) {
	p, err := iamcheck.OIDCProvider(tenant, url, clientIDs, thumbprints, time.Now())
	if err != nil {
		return OIDCProvider{}, iamErr(err, "OpenID Connect provider")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:CreateOpenIDConnectProvider", "arn:aws:iam::"+tenant+":oidc-provider/"+p.URL)
	if err != nil {
		return OIDCProvider{}, err
	}
	return oidcOut(p), s.changed(st.CreateOIDCProvider(ctx, p), "OpenID Connect provider "+p.URL)
}

// DeleteOIDCProvider deletes the provider of url (with or without its
// https:// scheme).
func (s *Service) DeleteOIDCProvider(ctx context.Context, id *iam.Identity, tenant, url string) error {
	url = strings.TrimSuffix(strings.TrimPrefix(url, "https://"), "/")
	if url == "" {
		return newErr(http.StatusBadRequest, "InvalidArgument", "url names the provider")
	}
	st, err := s.iamStore(ctx, id, tenant, "iam:DeleteOpenIDConnectProvider", "arn:aws:iam::"+tenant+":oidc-provider/"+url)
	if err != nil {
		return err
	}
	return s.changed(st.DeleteOIDCProvider(ctx, tenant, url), "OpenID Connect provider "+url)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
