package admin

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/idp"
)

// SetIdPs gives the API the node's service of console identity
// providers (OpenID Connect sign-in).
func (s *Service) SetIdPs(p *idp.Service) { s.idps = p }

func init() { routes = append(routes, idpRoutes...) }

// idpRoutes register OpenID Connect providers for console sign-in: the
// provider's own (/idps, for every tenant) and a tenant's
// (/tenants/{tenant}/idps), which the provider or the tenant's admins
// manage.
var idpRoutes = []route{
	{"GET", "/idps", "ListIdentityProviders", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIdentityProviders(r.Context(), id, ""))
	}},
	{"GET", "/idps/{idp}", "GetIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetIdentityProvider(r.Context(), id, "", r.PathValue("idp")))
	}},
	{"PUT", "/idps/{idp}", "PutIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return putIdP(s, r, id, "")
	}},
	{"DELETE", "/idps/{idp}", "DeleteIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIdentityProvider(r.Context(), id, "", r.PathValue("idp"))
	}},
	{"GET", "/tenants/{tenant}/idps", "ListIdentityProviders", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIdentityProviders(r.Context(), id, r.PathValue("tenant")))
	}},
	{"GET", "/tenants/{tenant}/idps/{idp}", "GetIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.GetIdentityProvider(r.Context(), id, r.PathValue("tenant"), r.PathValue("idp")))
	}},
	{"PUT", "/tenants/{tenant}/idps/{idp}", "PutIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return putIdP(s, r, id, r.PathValue("tenant"))
	}},
	{"GET", "/tenants/{tenant}/idp-users", "ListIdentityProviderUsers", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ListIdentityProviderUsers(r.Context(), id, r.PathValue("tenant")))
	}},
	{"DELETE", "/tenants/{tenant}/idps/{idp}", "DeleteIdentityProvider", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return nil, http.StatusNoContent, s.DeleteIdentityProvider(r.Context(), id, r.PathValue("tenant"), r.PathValue("idp"))
	}},
}

func putIdP(s *Service, r *http.Request, id *iam.Identity, tenant string) (any, int, error) {
	var in IdentityProviderIn
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	return ok(s.PutIdentityProvider(r.Context(), id, tenant, r.PathValue("idp"), in))
}

// IdentityProviderIn is a provider's settings as put: the config and
// the client secret ("" keeps the one stored).
type IdentityProviderIn struct {
	idp.Config
	ClientSecret string `json:"client_secret,omitempty"`
}

// IdentityProvider is a registered provider as the API shows it: never
// its client secret.
type IdentityProvider struct {
	Tenant  string     `json:"tenant,omitempty"` // absent: the provider's, for every tenant
	Name    string     `json:"name"`
	Config  idp.Config `json:"config"`
	Created time.Time  `json:"created"`
	Updated time.Time  `json:"updated"`
}

func (s *Service) idpStore(id *iam.Identity, tenant string) (catalog.IdentityProviders, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	if s.idps == nil {
		return nil, newErr(http.StatusNotImplemented, "NotImplemented", "This node has no identity provider service")
	}
	return s.idps.Catalog(), nil
}

func idpErr(err error) error {
	var ce *idp.ConfigError
	switch {
	case errors.As(err, &ce):
		return newErr(http.StatusBadRequest, "InvalidIdentityProvider", "%v", ce.Err)
	case errors.Is(err, catalog.ErrNoSuchIdentityProvider):
		return newErr(http.StatusNotFound, "NoSuchIdentityProvider", "No such identity provider")
	}
	return apiErr(err)
}

func idpOut(p catalog.IdentityProvider) (IdentityProvider, error) {
	cfg, err := idp.Of(p)
	return IdentityProvider{Tenant: p.Tenant, Name: p.Name, Config: cfg, Created: p.Created, Updated: p.Updated}, err
}

// ListIdentityProviders lists a tenant's providers ("" the provider's).
func (s *Service) ListIdentityProviders(ctx context.Context, id *iam.Identity, tenant string) ([]IdentityProvider, error) {
	ps, err := s.idpStore(id, tenant)
	if err != nil {
		return nil, err
	}
	if tenant != "" {
		if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
			return nil, apiErr(err)
		}
	}
	all, err := ps.ListIdentityProviders(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	out := []IdentityProvider{}
	for _, p := range all {
		o, err := idpOut(p)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// GetIdentityProvider returns one.
func (s *Service) GetIdentityProvider(ctx context.Context, id *iam.Identity, tenant, name string) (IdentityProvider, error) {
	ps, err := s.idpStore(id, tenant)
	if err != nil {
		return IdentityProvider{}, err
	}
	p, err := ps.GetIdentityProvider(ctx, tenant, name)
	if err != nil {
		return IdentityProvider{}, idpErr(err)
	}
	return idpOut(p)
}

// PutIdentityProvider registers a provider or changes it. A new one
// needs its client secret.
func (s *Service) PutIdentityProvider(ctx context.Context, id *iam.Identity, tenant, name string, in IdentityProviderIn) (IdentityProvider, error) {
	ps, err := s.idpStore(id, tenant)
	if err != nil {
		return IdentityProvider{}, err
	}
	if tenant != "" {
		if _, err := s.cat.GetTenant(ctx, tenant); err != nil {
			return IdentityProvider{}, apiErr(err)
		}
	}
	if _, err := s.idps.Configure(ctx, tenant, name, in.Config, in.ClientSecret); err != nil {
		if errors.Is(err, catalog.ErrNoSuchIdentityProvider) {
			return IdentityProvider{}, newErr(http.StatusBadRequest, "InvalidIdentityProvider", "client_secret: a new identity provider needs its client secret")
		}
		return IdentityProvider{}, idpErr(err)
	}
	p, err := ps.GetIdentityProvider(ctx, tenant, name)
	if err != nil {
		return IdentityProvider{}, idpErr(err)
	}
	return idpOut(p)
}

// DeleteIdentityProvider removes one: no one signs in through it any
// more; its users stay, with their keys and sessions.
func (s *Service) DeleteIdentityProvider(ctx context.Context, id *iam.Identity, tenant, name string) error {
	ps, err := s.idpStore(id, tenant)
	if err != nil {
		return err
	}
	return idpErr(ps.DeleteIdentityProvider(ctx, tenant, name))
}

// IdentityProviderUser is a tenant's user an identity provider signed
// in: which provider (IdPTenant absent: the provider's own), the subject
// it names the user by, and what its last sign-in said.
type IdentityProviderUser struct {
	User      string    `json:"user"`
	IdPTenant string    `json:"idp_tenant,omitempty"`
	IdP       string    `json:"idp"`
	Subject   string    `json:"subject"`
	Login     string    `json:"login"`
	Groups    []string  `json:"groups"`
	Role      string    `json:"role"`
	Disabled  bool      `json:"disabled"`
	SignedIn  time.Time `json:"signed_in"`
}

// ListIdentityProviderUsers lists the tenant's users that identity
// providers signed in, through its own providers or the provider's.
func (s *Service) ListIdentityProviderUsers(ctx context.Context, id *iam.Identity, tenant string) ([]IdentityProviderUser, error) {
	ps, err := s.idpStore(id, tenant)
	if err != nil {
		return nil, err
	}
	links, err := ps.IdentityProviderUsers(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	byName, err := s.usersByName(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := []IdentityProviderUser{}
	for _, l := range links {
		u := byName[l.User]
		out = append(out, IdentityProviderUser{User: l.User, IdPTenant: l.IdPTenant, IdP: l.IdP, Subject: l.Subject, Login: l.Login,
			Groups: append([]string{}, l.Groups...), Role: u.Role, Disabled: u.Disabled, SignedIn: l.SignedIn})
	}
	return out, nil
}
