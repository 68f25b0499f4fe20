package console

import (
	"context"
	"errors"
	"net/http"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/directory"
)

// DirectorySignIn signs a tenant's directory user in by binding as it
// (package directory).
type DirectorySignIn interface {
	SignIn(ctx context.Context, tenant, login, password string) (catalog.User, error)
}

// directoryMethod is sign-in with a directory password: the tenant, the
// login name the directory knows and its password. The directory
// checks the password; the console never holds it.
type directoryMethod struct {
	h   *Handler
	dir DirectorySignIn
}

func (directoryMethod) Name() string { return "directory" }

func (directoryMethod) Claimant(in SignIn) string { return admin.SessionSubject(in.Tenant, in.User) }

var errDirectoryUnavailable = apiError(http.StatusServiceUnavailable, "DirectoryUnavailable", "The directory did not answer; try again later")

func (m directoryMethod) SignIn(ctx context.Context, in SignIn) (Subject, error) {
	u, err := m.dir.SignIn(ctx, in.Tenant, in.User, in.Password)
	switch {
	case errors.Is(err, directory.ErrInvalidCredentials):
		return Subject{}, errInvalidCredentials
	case errors.Is(err, directory.ErrBusy):
		return Subject{}, errSignInBusy
	case err != nil:
		return Subject{}, errDirectoryUnavailable
	}
	got, err := m.h.o.Catalog.GetUser(ctx, u.Tenant, u.Name)
	if errors.Is(err, catalog.ErrNoSuchUser) {
		return Subject{}, errInvalidCredentials
	}
	if err != nil {
		return Subject{}, err
	}
	return Subject{Method: "directory", Tenant: got.Tenant, User: got.Name, UserID: got.CanonicalID}, nil
}

// Errors of DirectoryAttempt besides directory.ErrInvalidCredentials and
// directory.ErrBusy.
var (
	// ErrTooManyAttempts: the address or the user has failed too often;
	// the attempt was not evaluated.
	ErrTooManyAttempts = errors.New("console: too many failed sign-ins")
	// ErrDirectoryUnavailable: the directory did not answer.
	ErrDirectoryUnavailable = errors.New("console: the directory did not answer")
)

// DirectoryAttempt signs a tenant's directory user in for another
// service (STS's AssumeRoleWithLDAPIdentity) under the console's own
// limits: the same lane as strangers' sign-ins, the same counts per
// client address (addr) and per user, so that guesses made through
// either door count against both. action names a refused attempt in the
// audit log. It returns the catalog's user, enabled.
func (h *Handler) DirectoryAttempt(ctx context.Context, addr, action, tenant, login, password string) (catalog.User, error) {
	m, ok := h.methods["directory"]
	if !ok {
		return catalog.User{}, directory.ErrInvalidCredentials
	}
	in := SignIn{Method: "directory", Tenant: tenant, User: login, Password: password, action: action}
	rs := []reservation{{"addr:" + addrKey(addr), h.limit(h.o.MaxAddrFailures)},
		{countKey(m.Claimant(in)), h.limit(h.o.MaxUserFailures)}}
	sub, err := h.attempt(ctx, h.strangers, rs, m, in)
	var e *Error
	switch {
	case err == nil:
	case err == errInvalidCredentials:
		return catalog.User{}, directory.ErrInvalidCredentials
	case err == errSignInBusy:
		return catalog.User{}, directory.ErrBusy
	case err == errDirectoryUnavailable:
		return catalog.User{}, ErrDirectoryUnavailable
	case errors.As(err, &e) && e.Code == "TooManyAttempts":
		return catalog.User{}, ErrTooManyAttempts
	default:
		return catalog.User{}, err
	}
	h.release(ctx, rs)
	u, err := h.o.Catalog.GetUser(ctx, sub.Tenant, sub.User)
	switch {
	case errors.Is(err, catalog.ErrNoSuchUser):
		return catalog.User{}, directory.ErrInvalidCredentials
	case err != nil:
		return catalog.User{}, err
	case u.Disabled || u.CanonicalID != sub.UserID:
		return catalog.User{}, directory.ErrInvalidCredentials
	}
	return u, nil
}
