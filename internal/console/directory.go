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
