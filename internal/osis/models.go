package osis

import (
	"regexp"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
)

// The spec's models, by their JSON (snake_case) names.

type Information struct {
	PlatformName    string   `json:"platform_name"`
	PlatformVersion string   `json:"platform_version"`
	APIVersion      string   `json:"api_version"`
	Status          string   `json:"status"`
	NotImplemented  []string `json:"not_implemented"`
	AuthModes       []string `json:"auth_modes"`
	Services        Services `json:"services"`
	Regions         []string `json:"regions"`
	StorageClasses  []string `json:"storage_classes"`
}

type Services struct {
	S3 string `json:"s3"`
}

type Tenant struct {
	TenantID    string   `json:"tenant_id"`
	Name        string   `json:"name"`
	Active      bool     `json:"active"`
	CDTenantIDs []string `json:"cd_tenant_ids"`
}

type User struct {
	UserID          string `json:"user_id"`
	CanonicalUserID string `json:"canonical_user_id"`
	TenantID        string `json:"tenant_id"`
	Active          bool   `json:"active"`
	CDUserID        string `json:"cd_user_id"`
	CDTenantID      string `json:"cd_tenant_id"`
	Username        string `json:"username"`
	Email           string `json:"email,omitempty"`
	Role            string `json:"role"`
}

type S3Credential struct {
	AccessKey    string `json:"access_key"`
	SecretKey    string `json:"secret_key,omitempty"` // only when created: it is kept sealed
	Active       bool   `json:"active"`
	CreationDate string `json:"creation_date"`
	Immutable    bool   `json:"immutable"`
	TenantID     string `json:"tenant_id"`
	UserID       string `json:"user_id"`
	Username     string `json:"username"`
	CDTenantID   string `json:"cd_tenant_id"`
	CDUserID     string `json:"cd_user_id"`
}

type PageInfo struct {
	Total  int64 `json:"total"`
	Offset int64 `json:"offset"`
	Limit  int64 `json:"limit"`
}

type Page[T any] struct {
	Items    []T      `json:"items"`
	PageInfo PageInfo `json:"page_info"`
}

type Usage struct {
	BucketCount    int64 `json:"bucket_count"`
	ObjectCount    int64 `json:"object_count"`
	TotalBytes     int64 `json:"total_bytes"`
	AvailableBytes int64 `json:"available_bytes"`
	UsedBytes      int64 `json:"used_bytes"`
}

type BucketMeta struct {
	Name         string `json:"name"`
	CreationDate string `json:"creation_date"`
	UserID       string `json:"user_id,omitempty"`
}

type Exclusion struct {
	ByParams  []string `json:"by_params,omitempty"`
	ByHeaders []string `json:"by_headers,omitempty"`
	ByPayload []string `json:"by_payload,omitempty"`
}

type S3Capabilities struct {
	Exclusions map[string]Exclusion `json:"exclusions"`
}

// Roles: OSIS's and Ostium's. Ostium has no read-only role; OSIS's
// PROVIDER_ADMIN is the root, never a tenant's user.
const (
	roleTenantAdmin = "TENANT_ADMIN"
	roleTenantUser  = "TENANT_USER"
)

func roleIn(r string) (string, bool) {
	switch r {
	case roleTenantAdmin:
		return catalog.RoleAdmin, true
	case roleTenantUser, "":
		return catalog.RoleUser, true
	}
	return "", false
}

func roleOut(r string) string {
	if r == catalog.RoleAdmin {
		return roleTenantAdmin
	}
	return roleTenantUser
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func tenantOut(t admin.Tenant, cdIDs []string) Tenant {
	if cdIDs == nil {
		cdIDs = []string{}
	}
	return Tenant{TenantID: t.Name, Name: t.DisplayName, Active: t.Status == catalog.TenantActive, CDTenantIDs: cdIDs}
}

// cd are the Cloud Director ids a user and its credentials show: the
// user's own and its tenant's first (Ostium's names where none is kept).
type cd struct{ tenant, user string }

func userOut(u admin.User, active bool, ids cd) User {
	return User{UserID: u.Name, CanonicalUserID: u.CanonicalID, TenantID: u.Tenant, Active: active,
		CDUserID: ids.user, CDTenantID: ids.tenant, Username: u.Name, Email: u.Email, Role: roleOut(u.Role)}
}

func credOut(k admin.Key, ids cd) S3Credential {
	return S3Credential{AccessKey: k.AccessKey, SecretKey: k.SecretKey, Active: k.Status == catalog.KeyActive,
		CreationDate: k.Created.UTC().Format(time.RFC3339), TenantID: k.Tenant, UserID: k.User, Username: k.User,
		CDTenantID: ids.tenant, CDUserID: ids.user}
}

// tenantNameFor is the Ostium name of a tenant OSE creates: its first
// Cloud Director id, lower-cased, which fits a tenant name; else its
// name, made to fit.
func tenantNameFor(t Tenant) string {
	for _, id := range t.CDTenantIDs {
		if id = strings.ToLower(id); uuidShape.MatchString(id) {
			return id
		}
	}
	var b strings.Builder
	for _, c := range strings.ToLower(t.Name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}
