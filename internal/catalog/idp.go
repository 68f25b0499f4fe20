package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchIdentityProvider is returned for a console identity provider
// not registered.
var ErrNoSuchIdentityProvider = errors.New("catalog: no such identity provider")

// IdentityProvider is an OpenID Connect provider registered for console
// sign-in (package idp): the provider's own (Tenant ""), for every
// tenant, with a claim naming the tenant; or a tenant's, for itself.
type IdentityProvider struct {
	Tenant string // "" = the provider's
	Name   string
	// Config is the issuer, client id, scopes and claim mapping, as
	// package idp encodes them.
	Config string
	// SecretSealed is the client secret, sealed under the node key
	// (iam.Sealer) with "idp:", the tenant and the name as context.
	SecretSealed     []byte
	Created, Updated time.Time
}

// IdentityProviderUser links a tenant's user to the subject an identity
// provider names it by: the token's sub, stable where the user name
// claim may change.
type IdentityProviderUser struct {
	Tenant, User string
	// IdPTenant and IdP name the provider ("" tenant: the provider's).
	IdPTenant, IdP string
	Subject        string
	Login          string   // the user name claim at the last sign-in
	Groups         []string // the groups claim at the last sign-in
	SignedIn       time.Time
}

// IdPSession is a console session signed in through an identity
// provider: which one, and the ID token it gave (the hint of its
// sign-out).
type IdPSession struct {
	SessionHash    string
	IdPTenant, IdP string
	IDToken        string
}

// IdentityProviders keeps the console's identity providers and the links
// of users to their subjects.
type IdentityProviders interface {
	// PutIdentityProvider creates or replaces one, keeping its creation
	// time: ErrNoSuchTenant for a tenant's that does not exist.
	PutIdentityProvider(ctx context.Context, p IdentityProvider) error
	// GetIdentityProvider returns one: ErrNoSuchIdentityProvider.
	GetIdentityProvider(ctx context.Context, tenant, name string) (IdentityProvider, error)
	// ListIdentityProviders returns a tenant's ("" the provider's), by
	// name.
	ListIdentityProviders(ctx context.Context, tenant string) ([]IdentityProvider, error)
	// DeleteIdentityProvider removes one (ErrNoSuchIdentityProvider).
	// The links of its users stay: registered again, it finds them.
	DeleteIdentityProvider(ctx context.Context, tenant, name string) error

	// SignInIdentityProviderUser finds or makes the tenant's user that
	// link's provider and subject name, in one transaction, and records
	// link's login, groups and time. A linked user gets u's Role. With
	// none linked: when create, the user link.User is made from u
	// (ErrUserExists when a user of that name exists: a user made
	// another way is never taken over); otherwise an existing user
	// link.User that no directory or identity provider has linked is
	// linked (the tenant's admin made it for this provider), and with no
	// such user ErrNoSuchUser. It returns the user as it is now (perhaps
	// Disabled) and whether the user changed (then the identity
	// generation advanced).
	SignInIdentityProviderUser(ctx context.Context, link IdentityProviderUser, u User, create bool) (User, bool, error)
	// UseSignInState marks a sign-in's state (its hash) used until
	// expires, and drops those expired by now: false when it was used
	// already, so a state signs in once whatever node it comes back to.
	UseSignInState(ctx context.Context, hash string, expires, now time.Time) (bool, error)
	// PutIdPSession records that the console session sessionHash came
	// from an identity provider, with the ID token it gave, and forgets
	// the records of sessions that have ended. TakeIdPSession returns
	// and forgets one: ErrNoSuchSession.
	PutIdPSession(ctx context.Context, s IdPSession) error
	TakeIdPSession(ctx context.Context, sessionHash string) (IdPSession, error)
	// IdentityProviderUsers lists a tenant's linked users, by name.
	IdentityProviderUsers(ctx context.Context, tenant string) ([]IdentityProviderUser, error)
}
