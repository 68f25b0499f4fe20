package catalog

import (
	"context"
	"errors"
)

// ErrNoSuchCloudDirectorID: no tenant or user has the Cloud Director id;
// ErrCloudDirectorIDTaken: another tenant or user has it.
var (
	ErrNoSuchCloudDirectorID = errors.New("catalog: no such Cloud Director id")
	ErrCloudDirectorIDTaken  = errors.New("catalog: Cloud Director id taken")
)

// CloudDirector keeps the VMware Cloud Director ids the OSIS API maps
// onto tenants and users (one model, not a copy: the records are the
// tenants' and users' own). A tenant's ids are its organizations' (user
// ""); a user's id its Cloud Director user's. Deleting the tenant or the
// user deletes its ids.
type CloudDirector interface {
	// SetCloudDirectorIDs replaces the ids of tenant (user "") or of
	// tenant/user: ErrNoSuchTenant or ErrNoSuchUser, ErrCloudDirectorIDTaken
	// when another tenant or user has one of ids.
	SetCloudDirectorIDs(ctx context.Context, tenant, user string, ids []string) error
	// CloudDirectorIDs lists the ids of tenant (user "") or tenant/user,
	// sorted; none is an empty list.
	CloudDirectorIDs(ctx context.Context, tenant, user string) ([]string, error)
	// FindCloudDirectorID returns who has a tenant id (user false) or a
	// user id (user true): ErrNoSuchCloudDirectorID.
	FindCloudDirectorID(ctx context.Context, user bool, id string) (tenant, name string, err error)
}
