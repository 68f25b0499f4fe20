package admin

import (
	"context"
	"net/http"
	"strings"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/storageclass"
)

func init() {
	routes = append(routes, route{"PUT", "/tenants/{tenant}/storage-classes", "SetTenantStorageClasses", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in StorageClasses
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetTenantStorageClasses(r.Context(), id, r.PathValue("tenant"), in))
	}}, route{"GET", "/storage-classes", "GetStorageClasses", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		return ok(s.ProviderStorageClasses(r.Context(), id))
	}}, route{"PUT", "/storage-classes", "SetStorageClasses", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
		var in StorageClasses
		if err := decode(r, &in); err != nil {
			return nil, 0, err
		}
		return ok(s.SetProviderStorageClasses(r.Context(), id, in))
	}})
}

// StorageClasses maps S3 storage classes to platforms: an object written
// with a class its map names has its blobs on that platform, and
// lifecycle transitions to it move them there. A tenant's map overrides
// the provider's class by class, and the provider's the nodes'
// storage_classes; an empty map clears it.
type StorageClasses struct {
	Classes map[string]string `json:"classes"`
}

// check validates a map as the node does, against its platforms.
func (s *Service) checkClasses(in StorageClasses) (storageclass.Map, error) {
	m := storageclass.Map{}
	for c, p := range in.Classes {
		m[strings.ToUpper(c)] = p
	}
	if err := m.Validate(s.platforms.Has); err != nil {
		code := "InvalidArgument"
		if strings.Contains(err.Error(), "is not configured") {
			code = "NoSuchPlatform"
		}
		return nil, newErr(http.StatusBadRequest, code, "%s", err.Error())
	}
	return m, nil
}

func classesOut(enc string) map[string]string {
	m, err := storageclass.Parse(enc)
	if err != nil || len(m) == 0 {
		return nil
	}
	return m
}

// SetTenantStorageClasses sets the tenant's own map (provider only).
// What the tenant stored stays where it is, readable; new writes and
// transitions follow the new map.
func (s *Service) SetTenantStorageClasses(ctx context.Context, id *iam.Identity, name string, in StorageClasses) (Tenant, error) {
	if err := allow(id, ""); err != nil {
		return Tenant{}, err
	}
	m, err := s.checkClasses(in)
	if err != nil {
		return Tenant{}, err
	}
	cat, ok := s.cat.(catalog.Classes)
	if !ok {
		return Tenant{}, newErr(http.StatusNotImplemented, "NotImplemented", "this catalog keeps no storage classes")
	}
	if err := s.done(cat.SetTenantStorageClasses(ctx, name, m.Encode())); err != nil {
		return Tenant{}, err
	}
	for _, p := range m {
		s.prepare(ctx, p, name)
	}
	return s.GetTenant(ctx, id, name)
}

// ProviderStorageClasses is the provider-wide map set through the API
// (the nodes' storage_classes apply under it).
func (s *Service) ProviderStorageClasses(ctx context.Context, id *iam.Identity) (StorageClasses, error) {
	if err := allow(id, ""); err != nil {
		return StorageClasses{}, err
	}
	enc, err := s.cat.ProviderSetting(ctx, catalog.ProviderStorageClasses)
	if err != nil {
		return StorageClasses{}, apiErr(err)
	}
	out := StorageClasses{Classes: classesOut(enc)}
	if out.Classes == nil {
		out.Classes = map[string]string{}
	}
	return out, nil
}

// SetProviderStorageClasses sets the provider-wide map (provider only).
func (s *Service) SetProviderStorageClasses(ctx context.Context, id *iam.Identity, in StorageClasses) (StorageClasses, error) {
	if err := allow(id, ""); err != nil {
		return StorageClasses{}, err
	}
	m, err := s.checkClasses(in)
	if err != nil {
		return StorageClasses{}, err
	}
	if err := s.done(s.cat.SetProviderSetting(ctx, catalog.ProviderStorageClasses, m.Encode())); err != nil {
		return StorageClasses{}, err
	}
	return s.ProviderStorageClasses(ctx, id)
}
