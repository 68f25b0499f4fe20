package osis

import (
	"context"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// notBuilt are the optional operations Ostium does not serve: they
// answer 501 and getInfo lists them, as the spec asks. Ostium has no
// anonymous user (public access is a bucket's ACL or policy), and no
// bucket logging id.
var notBuilt = []string{"getBucketLoggingId", "getAnonymousUser"}

func (h *Handler) operations() []operation {
	return []operation{
		{"GET", "/api/info", "getInfo", true, h.getInfo},
		{"GET", "/api/v1/s3capabilities", "getS3Capabilities", false, h.getS3Capabilities},

		{"POST", "/api/v1/tenants", "createTenant", false, h.createTenant},
		{"GET", "/api/v1/tenants", "listTenants", false, h.listTenants},
		{"GET", "/api/v1/tenants/query", "queryTenants", false, h.queryTenants},
		{"GET", "/api/v1/tenants/{tenantId}", "getTenant", false, h.getTenant}, // and headTenant
		{"PATCH", "/api/v1/tenants/{tenantId}", "updateTenant", false, h.updateTenant},
		{"DELETE", "/api/v1/tenants/{tenantId}", "deleteTenant", false, h.deleteTenant},

		{"POST", "/api/v1/tenants/{tenantId}/users", "createUser", false, h.createUser},
		{"GET", "/api/v1/tenants/{tenantId}/users", "listUsers", false, h.listUsers},
		{"GET", "/api/v1/users/query", "queryUsers", false, h.queryUsers},
		{"GET", "/api/v1/users/{canonicalUserId}", "getUserWithCanonicalID", false, h.getUserWithCanonicalID},
		{"GET", "/api/v1/tenants/{tenantId}/users/{userId}", "getUserWithId", false, h.getUser}, // and headUser
		{"PATCH", "/api/v1/tenants/{tenantId}/users/{userId}", "updateUserStatus", false, h.updateUserStatus},
		{"DELETE", "/api/v1/tenants/{tenantId}/users/{userId}", "deleteUser", false, h.deleteUser},

		{"POST", "/api/v1/tenants/{tenantId}/users/{userId}/s3credentials", "createCredential", false, h.createCredential},
		{"GET", "/api/v1/tenants/{tenantId}/users/{userId}/s3credentials", "listCredentials", false, h.listCredentials},
		{"GET", "/api/v1/s3credentials/query", "queryCredentials", false, h.queryCredentials},
		{"GET", "/api/v1/s3credentials/{accessKey}", "getCredential", false, h.getCredential},
		{"PATCH", "/api/v1/s3credentials/{accessKey}", "updateCredentialStatus", false, h.updateCredentialStatus},
		{"DELETE", "/api/v1/s3credentials/{accessKey}", "deleteCredential", false, h.deleteCredential},

		{"GET", "/api/v1/usage", "getUsage", false, h.getUsage},
		{"GET", "/api/v1/bucket-list", "getBucketList", false, h.getBucketList},
		{"GET", "/api/v1/console", "getConsole", false, h.getConsole},
		{"GET", "/api/v1/bucket-logging-id", "getBucketLoggingId", false, h.notBuilt("getBucketLoggingId")},
		{"GET", "/api/v1/anonymous-user", "getAnonymousUser", false, h.notBuilt("getAnonymousUser")},
	}
}

func ok(v any, err error) (any, int, error)      { return v, http.StatusOK, err }
func created(v any, err error) (any, int, error) { return v, http.StatusCreated, err }
func gone(err error) (any, int, error)           { return nil, http.StatusNoContent, err }

func (h *Handler) notBuilt(op string) func(*http.Request, *iam.Identity) (any, int, error) {
	return func(*http.Request, *iam.Identity) (any, int, error) { return nil, 0, errNotImplemented(op) }
}

func (h *Handler) getInfo(r *http.Request, _ *iam.Identity) (any, int, error) {
	ni := slices.Clone(notBuilt)
	if h.opt.ConsoleURL == "" {
		ni = append(ni, "getConsole")
	}
	scheme := "http"
	if r.TLS != nil || iam.OriginOf(r.Context()).Secure {
		scheme = "https"
	}
	return ok(Information{PlatformName: "Ostium", PlatformVersion: h.opt.Version, APIVersion: APIVersion, Status: "NORMAL",
		NotImplemented: ni, AuthModes: []string{"Basic"}, Services: Services{S3: scheme + "://" + r.Host},
		Regions: []string{h.opt.Region}, StorageClasses: []string{"STANDARD"}}, nil)
}

// excluded are the S3 operations the endpoint answers NotImplemented:
// everything else S3 defines for buckets and objects it serves.
var excluded = []string{
	"GetBucketWebsite", "PutBucketWebsite", "DeleteBucketWebsite",
	"GetBucketNotificationConfiguration", "PutBucketNotificationConfiguration",
	"GetBucketReplication", "PutBucketReplication", "DeleteBucketReplication",
	"GetBucketRequestPayment", "PutBucketRequestPayment",
	"GetBucketAccelerateConfiguration", "PutBucketAccelerateConfiguration",
	"GetBucketAnalyticsConfiguration", "PutBucketAnalyticsConfiguration", "DeleteBucketAnalyticsConfiguration", "ListBucketAnalyticsConfigurations",
	"GetBucketInventoryConfiguration", "PutBucketInventoryConfiguration", "DeleteBucketInventoryConfiguration", "ListBucketInventoryConfigurations",
	"GetBucketMetricsConfiguration", "PutBucketMetricsConfiguration", "DeleteBucketMetricsConfiguration", "ListBucketMetricsConfigurations",
	"GetBucketIntelligentTieringConfiguration", "PutBucketIntelligentTieringConfiguration", "DeleteBucketIntelligentTieringConfiguration", "ListBucketIntelligentTieringConfigurations",
	"GetObjectTorrent", "RestoreObject", "SelectObjectContent",
}

func (h *Handler) getS3Capabilities(*http.Request, *iam.Identity) (any, int, error) {
	c := S3Capabilities{Exclusions: map[string]Exclusion{}}
	for _, op := range excluded {
		c.Exclusions[op] = Exclusion{}
	}
	return ok(c, nil)
}

// Tenants.

// isNotFound tells an error that is a 404.
func isNotFound(err error) bool { return err != nil && toError(err).Status == http.StatusNotFound }

// freeCDIDs checks that no tenant (user false) or user has any of ids
// but owner ("" = none may).
func (h *Handler) freeCDIDs(r *http.Request, id *iam.Identity, user bool, owner string, ids []string) error {
	for _, c := range ids {
		t, u, err := h.svc.FindCloudDirectorID(r.Context(), id, user, c)
		switch {
		case isNotFound(err):
			continue
		case err != nil:
			return err
		}
		if who := t + "/" + u; owner == "" || who != owner {
			return newErr(http.StatusConflict, "E_CONFLICT", "The Cloud Director id %s is another's (%s)", c, strings.TrimSuffix(who, "/"))
		}
	}
	return nil
}

// createTenant makes a tenant named after its first Cloud Director id
// (see tenantNameFor) and keeps all of them.
func (h *Handler) createTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	var in struct {
		Tenant
		Active *bool `json:"active"` // absent = active: a new tenant is
	}
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	if in.Name == "" {
		return nil, 0, errBadRequest("A tenant needs a name")
	}
	if err := h.freeCDIDs(r, id, false, "", in.CDTenantIDs); err != nil {
		return nil, 0, err
	}
	name := tenantNameFor(in.Tenant)
	t, err := h.svc.CreateTenant(r.Context(), id, name, in.Name, "")
	if err != nil {
		return nil, 0, err
	}
	if err := h.svc.SetCloudDirectorIDs(r.Context(), id, name, "", in.CDTenantIDs); err != nil {
		// Not half made: a tenant OSE cannot find by its id is of no use.
		if derr := h.svc.DeleteTenant(context.WithoutCancel(r.Context()), id, name, false); derr != nil {
			slog.Error("OSIS: tenant left without its Cloud Director ids", "tenant", name, "err", derr)
		}
		return nil, 0, err
	}
	if in.Active != nil && !*in.Active {
		if t, err = h.svc.SetSuspended(r.Context(), id, name, true); err != nil {
			return nil, 0, err
		}
	}
	return created(h.tenantOut(r, id, t))
}

func (h *Handler) tenantOut(r *http.Request, id *iam.Identity, t admin.Tenant) (Tenant, error) {
	ids, err := h.svc.CloudDirectorIDs(r.Context(), id, t.Name, "")
	return tenantOut(t, ids), err
}

// tenantPage cuts a page of ts and fills in its tenants' Cloud Director
// ids (read for the page alone).
func (h *Handler) tenantPage(r *http.Request, id *iam.Identity, ts []admin.Tenant, p paging) (any, int, error) {
	pg := page(ts, p)
	out := Page[Tenant]{Items: make([]Tenant, len(pg.Items)), PageInfo: pg.PageInfo}
	for i, t := range pg.Items {
		var err error
		if out.Items[i], err = h.tenantOut(r, id, t); err != nil {
			return nil, 0, err
		}
	}
	return ok(out, nil)
}

func (h *Handler) listTenants(r *http.Request, id *iam.Identity) (any, int, error) {
	p, err := parsePaging(r.URL.Query())
	if err != nil {
		return nil, 0, err
	}
	ts, err := h.svc.ListTenants(r.Context(), id)
	if err != nil {
		return nil, 0, err
	}
	return h.tenantPage(r, id, ts, p)
}

func (h *Handler) queryTenants(r *http.Request, id *iam.Identity) (any, int, error) {
	q := r.URL.Query()
	p, err := parsePaging(q)
	if err != nil {
		return nil, 0, err
	}
	f, err := parseFilter(q.Get("filter"), "tenant_id", "cd_tenant_id", "name")
	if err != nil {
		return nil, 0, err
	}
	want, has := f["tenant_id"]
	if c, ok := f["cd_tenant_id"]; ok {
		t, _, err := h.svc.FindCloudDirectorID(r.Context(), id, false, c)
		if isNotFound(err) || has && t != want {
			return h.tenantPage(r, id, nil, p)
		}
		if err != nil {
			return nil, 0, err
		}
		want, has = t, true
	}
	ts, err := h.svc.ListTenants(r.Context(), id)
	if err != nil {
		return nil, 0, err
	}
	var out []admin.Tenant
	for _, t := range ts {
		if has && t.Name != want {
			continue
		}
		if v, ok := f["name"]; ok && v != t.DisplayName {
			continue
		}
		out = append(out, t)
	}
	return h.tenantPage(r, id, out, p)
}

func (h *Handler) getTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	t, err := h.svc.GetTenant(r.Context(), id, r.PathValue("tenantId"))
	if err != nil {
		return nil, 0, err
	}
	return ok(h.tenantOut(r, id, t))
}

// updateTenant sets what OSE changes of a tenant: active (active ↔
// suspended) and its Cloud Director ids (replaced when given).
func (h *Handler) updateTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	var in struct {
		Active      *bool    `json:"active"`
		CDTenantIDs []string `json:"cd_tenant_ids"`
	}
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	name := r.PathValue("tenantId")
	t, err := h.svc.GetTenant(r.Context(), id, name)
	if err != nil {
		return nil, 0, err
	}
	if in.CDTenantIDs != nil {
		if err := h.freeCDIDs(r, id, false, name+"/", in.CDTenantIDs); err != nil {
			return nil, 0, err
		}
		if err := h.svc.SetCloudDirectorIDs(r.Context(), id, name, "", in.CDTenantIDs); err != nil {
			return nil, 0, err
		}
	}
	if in.Active != nil && *in.Active != (t.Status == catalog.TenantActive) {
		if t, err = h.svc.SetSuspended(r.Context(), id, name, !*in.Active); err != nil {
			return nil, 0, err
		}
	}
	return ok(h.tenantOut(r, id, t))
}

func (h *Handler) deleteTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	purge, err := boolParam(r, "purge_data", true)
	if err != nil {
		return nil, 0, err
	}
	return gone(h.svc.DeleteTenant(r.Context(), id, r.PathValue("tenantId"), purge))
}

func boolParam(r *http.Request, name string, def bool) (bool, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errBadRequest("%s must be true or false", name)
	}
	return b, nil
}

// Users.

// cdOf are the Cloud Director ids a tenant's user shows.
func (h *Handler) cdOf(r *http.Request, id *iam.Identity, tenant, user string) (cd, error) {
	out := cd{tenant: tenant, user: user}
	ts, err := h.svc.CloudDirectorIDs(r.Context(), id, tenant, "")
	if err != nil {
		return out, err
	}
	if len(ts) > 0 {
		out.tenant = ts[0]
	}
	us, err := h.svc.CloudDirectorIDs(r.Context(), id, tenant, user)
	if len(us) > 0 {
		out.user = us[0]
	}
	return out, err
}

// userActive is a user's OSIS status: Ostium users have none of their
// own, so a user is inactive when it has keys and none is active
// (updateUserStatus disables or enables them all).
func (h *Handler) userActive(r *http.Request, id *iam.Identity, u admin.User) (bool, error) {
	ks, err := h.svc.ListKeys(r.Context(), id, u.Tenant, u.Name)
	if err != nil {
		return false, err
	}
	for _, k := range ks {
		if k.Status == catalog.KeyActive {
			return true, nil
		}
	}
	return len(ks) == 0, nil
}

func (h *Handler) userOut(r *http.Request, id *iam.Identity, u admin.User) (User, error) {
	active, err := h.userActive(r, id, u)
	if err != nil {
		return User{}, err
	}
	ids, err := h.cdOf(r, id, u.Tenant, u.Name)
	return userOut(u, active, ids), err
}

// createUser makes a user named after its Cloud Director id (else its
// username) and keeps that id.
func (h *Handler) createUser(r *http.Request, id *iam.Identity) (any, int, error) {
	var in User
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	role, known := roleIn(in.Role)
	if !known {
		return nil, 0, errBadRequest("A user's role is TENANT_ADMIN or TENANT_USER, not %q", in.Role)
	}
	name := in.CDUserID
	if name == "" {
		name = in.Username
	}
	if name == "" {
		return nil, 0, errBadRequest("A user needs a cd_user_id or a username")
	}
	var ids []string
	if in.CDUserID != "" {
		ids = []string{in.CDUserID}
	}
	if err := h.freeCDIDs(r, id, true, "", ids); err != nil {
		return nil, 0, err
	}
	tenant := r.PathValue("tenantId")
	u, err := h.svc.CreateUser(r.Context(), id, tenant, name, role, in.Email)
	if err != nil {
		return nil, 0, err
	}
	if err := h.svc.SetCloudDirectorIDs(r.Context(), id, tenant, name, ids); err != nil {
		if derr := h.svc.DeleteUser(context.WithoutCancel(r.Context()), id, tenant, name); derr != nil {
			slog.Error("OSIS: user left without its Cloud Director id", "tenant", tenant, "user", name, "err", derr)
		}
		return nil, 0, err
	}
	return created(h.userOut(r, id, u))
}

func (h *Handler) userPage(r *http.Request, id *iam.Identity, us []admin.User, p paging) (any, int, error) {
	pg := page(us, p)
	out := Page[User]{Items: make([]User, len(pg.Items)), PageInfo: pg.PageInfo}
	for i, u := range pg.Items {
		var err error
		if out.Items[i], err = h.userOut(r, id, u); err != nil {
			return nil, 0, err
		}
	}
	return ok(out, nil)
}

func (h *Handler) listUsers(r *http.Request, id *iam.Identity) (any, int, error) {
	p, err := parsePaging(r.URL.Query())
	if err != nil {
		return nil, 0, err
	}
	us, err := h.svc.ListUsers(r.Context(), id, r.PathValue("tenantId"))
	if err != nil {
		return nil, 0, err
	}
	return h.userPage(r, id, us, p)
}

var userKeys = []string{"tenant_id", "cd_tenant_id", "user_id", "cd_user_id", "canonical_user_id", "username"}

func (h *Handler) queryUsers(r *http.Request, id *iam.Identity) (any, int, error) {
	q := r.URL.Query()
	p, err := parsePaging(q)
	if err != nil {
		return nil, 0, err
	}
	f, err := parseFilter(q.Get("filter"), userKeys...)
	if err != nil {
		return nil, 0, err
	}
	us, err := h.matchUsers(r, id, f)
	if err != nil {
		return nil, 0, err
	}
	return h.userPage(r, id, us, p)
}

// matchUsers lists the users f selects. Cloud Director ids resolve to
// Ostium's names first; a filter then names one tenant, or every tenant
// is looked through.
func (h *Handler) matchUsers(r *http.Request, id *iam.Identity, f filter) ([]admin.User, error) {
	f = maps.Clone(f)
	// agree sets key to v, or tells that the filter already wants another.
	agree := func(key, v string) bool {
		if old, ok := f[key]; ok && old != v {
			return false
		}
		f[key] = v
		return true
	}
	if c, ok := f["cd_tenant_id"]; ok {
		t, _, err := h.svc.FindCloudDirectorID(r.Context(), id, false, c)
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !agree("tenant_id", t) {
			return nil, nil
		}
	}
	if c, ok := f["cd_user_id"]; ok {
		t, u, err := h.svc.FindCloudDirectorID(r.Context(), id, true, c)
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if !agree("tenant_id", t) || !agree("user_id", u) {
			return nil, nil
		}
	}
	var tenants []string
	if t, ok := f["tenant_id"]; ok {
		tenants = []string{t}
	} else {
		ts, err := h.svc.ListTenants(r.Context(), id)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			tenants = append(tenants, t.Name)
		}
	}
	var out []admin.User
	for _, t := range tenants {
		us, err := h.svc.ListUsers(r.Context(), id, t)
		if isNotFound(err) {
			continue // a filter naming no tenant matches no one
		}
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if v, ok := f["user_id"]; ok && v != u.Name {
				continue
			}
			if v, ok := f["username"]; ok && v != u.Name {
				continue
			}
			if v, ok := f["canonical_user_id"]; ok && v != u.CanonicalID {
				continue
			}
			out = append(out, u)
		}
	}
	return out, nil
}

func (h *Handler) getUserWithCanonicalID(r *http.Request, id *iam.Identity) (any, int, error) {
	u, err := h.svc.FindUser(r.Context(), id, r.PathValue("canonicalUserId"))
	if err != nil {
		return nil, 0, err
	}
	return ok(h.userOut(r, id, u))
}

func (h *Handler) getUser(r *http.Request, id *iam.Identity) (any, int, error) {
	u, err := h.svc.GetUser(r.Context(), id, r.PathValue("tenantId"), r.PathValue("userId"))
	if err != nil {
		return nil, 0, err
	}
	return ok(h.userOut(r, id, u))
}

// updateUserStatus sets a user active or not: all its keys enabled or
// disabled. Only active takes effect, as the spec says.
func (h *Handler) updateUserStatus(r *http.Request, id *iam.Identity) (any, int, error) {
	var in struct {
		Active *bool `json:"active"`
	}
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	if in.Active == nil {
		return nil, 0, errBadRequest("updateUserStatus needs active")
	}
	tenant, name := r.PathValue("tenantId"), r.PathValue("userId")
	u, err := h.svc.GetUser(r.Context(), id, tenant, name)
	if err != nil {
		return nil, 0, err
	}
	ks, err := h.svc.ListKeys(r.Context(), id, tenant, name)
	if err != nil {
		return nil, 0, err
	}
	for _, k := range ks {
		if k.Status == admin.KeyExpired {
			continue
		}
		if _, err := h.svc.SetKeyStatus(r.Context(), id, tenant, name, k.AccessKey, *in.Active); err != nil {
			return nil, 0, err
		}
	}
	out, err := h.userOut(r, id, u)
	return out, http.StatusCreated, err // the spec answers 201
}

// deleteUser deletes the user and its keys. Its buckets are the
// tenant's and stay: purge_data is taken and has nothing of the user's
// own to purge.
func (h *Handler) deleteUser(r *http.Request, id *iam.Identity) (any, int, error) {
	if _, err := boolParam(r, "purge_data", true); err != nil {
		return nil, 0, err
	}
	return gone(h.svc.DeleteUser(r.Context(), id, r.PathValue("tenantId"), r.PathValue("userId")))
}

// S3 credentials.

func (h *Handler) credOut(r *http.Request, id *iam.Identity, k admin.Key) (S3Credential, error) {
	ids, err := h.cdOf(r, id, k.Tenant, k.User)
	return credOut(k, ids), err
}

func (h *Handler) createCredential(r *http.Request, id *iam.Identity) (any, int, error) {
	k, err := h.svc.CreateKey(r.Context(), id, r.PathValue("tenantId"), r.PathValue("userId"))
	if err != nil {
		return nil, 0, err
	}
	return created(h.credOut(r, id, k))
}

// creds are a user's own access keys (application credentials and share
// links are Ostium's, not OSIS credentials).
func (h *Handler) creds(r *http.Request, id *iam.Identity, tenant, user string) ([]S3Credential, error) {
	ks, err := h.svc.ListKeys(r.Context(), id, tenant, user)
	if err != nil {
		return nil, err
	}
	ids, err := h.cdOf(r, id, tenant, user)
	out := []S3Credential{}
	for _, k := range ks {
		if k.Kind == catalog.KeyUser {
			out = append(out, credOut(k, ids))
		}
	}
	return out, err
}

func (h *Handler) listCredentials(r *http.Request, id *iam.Identity) (any, int, error) {
	p, err := parsePaging(r.URL.Query())
	if err != nil {
		return nil, 0, err
	}
	cs, err := h.creds(r, id, r.PathValue("tenantId"), r.PathValue("userId"))
	return ok(page(cs, p), err)
}

func (h *Handler) queryCredentials(r *http.Request, id *iam.Identity) (any, int, error) {
	q := r.URL.Query()
	p, err := parsePaging(q)
	if err != nil {
		return nil, 0, err
	}
	f, err := parseFilter(q.Get("filter"), "tenant_id", "cd_tenant_id", "user_id", "cd_user_id", "access_key")
	if err != nil {
		return nil, 0, err
	}
	uf := maps.Clone(f)
	delete(uf, "access_key")
	us, err := h.matchUsers(r, id, uf)
	if err != nil {
		return nil, 0, err
	}
	out := []S3Credential{}
	for _, u := range us {
		cs, err := h.creds(r, id, u.Tenant, u.Name)
		if err != nil {
			return nil, 0, err
		}
		for _, c := range cs {
			if ak, has := f["access_key"]; !has || c.AccessKey == ak {
				out = append(out, c)
			}
		}
	}
	return ok(page(out, p), nil)
}

// credential finds the key of the path, checked against the tenant_id
// and user_id parameters when they are given.
func (h *Handler) credential(r *http.Request, id *iam.Identity, need bool) (admin.Key, error) {
	q := r.URL.Query()
	tenant, user := q.Get("tenant_id"), q.Get("user_id")
	if need && (tenant == "" || user == "") {
		return admin.Key{}, errBadRequest("tenant_id and user_id are required")
	}
	k, err := h.svc.FindKey(r.Context(), id, r.PathValue("accessKey"))
	if err == nil && (k.Kind != catalog.KeyUser || tenant != "" && k.Tenant != tenant || user != "" && k.User != user) {
		err = errNotFound("The S3 credential does not exist")
	}
	return k, err
}

func (h *Handler) getCredential(r *http.Request, id *iam.Identity) (any, int, error) {
	k, err := h.credential(r, id, false)
	if err != nil {
		return nil, 0, err
	}
	return ok(h.credOut(r, id, k))
}

func (h *Handler) updateCredentialStatus(r *http.Request, id *iam.Identity) (any, int, error) {
	var in struct {
		Active *bool `json:"active"`
	}
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	if in.Active == nil {
		return nil, 0, errBadRequest("updateCredentialStatus needs active")
	}
	k, err := h.credential(r, id, true)
	if err != nil {
		return nil, 0, err
	}
	if k, err = h.svc.SetKeyStatus(r.Context(), id, k.Tenant, k.User, k.AccessKey, *in.Active); err != nil {
		return nil, 0, err
	}
	return ok(h.credOut(r, id, k))
}

func (h *Handler) deleteCredential(r *http.Request, id *iam.Identity) (any, int, error) {
	k, err := h.credential(r, id, true)
	if err != nil {
		return nil, 0, err
	}
	return gone(h.svc.DeleteKey(r.Context(), id, k.Tenant, k.User, k.AccessKey))
}

// Usage, buckets, console.

// getUsage reports what a tenant stores now (tenant_id takes precedence
// over user_id, as the spec says; a user's usage is its tenant's, since
// buckets are the tenant's), or the whole platform's without either.
// total_bytes is the tenant's quota when it has one, else what it uses.
func (h *Handler) getUsage(r *http.Request, id *iam.Identity) (any, int, error) {
	q := r.URL.Query()
	tenant := q.Get("tenant_id")
	if tenant == "" && q.Get("user_id") != "" {
		return nil, 0, errBadRequest("user_id must come with its tenant_id")
	}
	var tenants []string
	if tenant != "" {
		tenants = []string{tenant}
	} else {
		ts, err := h.svc.ListTenants(r.Context(), id)
		if err != nil {
			return nil, 0, err
		}
		for _, t := range ts {
			tenants = append(tenants, t.Name)
		}
	}
	var u Usage
	var quota int64
	for _, t := range tenants {
		now := time.Now()
		use, err := h.svc.Usage(r.Context(), id, t, now.Add(-time.Hour), now.Add(time.Hour))
		if err != nil {
			return nil, 0, err
		}
		bs, err := h.svc.TenantBuckets(r.Context(), id, t)
		if err != nil {
			return nil, 0, err
		}
		u.BucketCount += int64(len(bs))
		u.ObjectCount += use.Now.Objects
		u.UsedBytes += use.Now.Bytes
		qs, err := h.svc.ListQuotas(r.Context(), id, t)
		if err != nil {
			return nil, 0, err
		}
		tq := int64(0)
		for _, qq := range qs {
			if qq.Bucket == "" && qq.MaxBytes > 0 {
				tq = qq.MaxBytes
			}
		}
		if tq == 0 {
			tq = use.Now.Bytes
		}
		quota += tq
	}
	u.TotalBytes = quota
	u.AvailableBytes = max(0, quota-u.UsedBytes)
	return ok(u, nil)
}

func (h *Handler) getBucketList(r *http.Request, id *iam.Identity) (any, int, error) {
	q := r.URL.Query()
	p, err := parsePaging(q)
	if err != nil {
		return nil, 0, err
	}
	tenant := q.Get("tenant_id")
	if tenant == "" {
		return nil, 0, errBadRequest("tenant_id is required")
	}
	bs, err := h.svc.TenantBuckets(r.Context(), id, tenant)
	if err != nil {
		return nil, 0, err
	}
	us, err := h.svc.ListUsers(r.Context(), id, tenant)
	if err != nil {
		return nil, 0, err
	}
	owner := map[string]string{}
	for _, u := range us {
		owner[u.CanonicalID] = u.Name
	}
	out := make([]BucketMeta, len(bs))
	for i, b := range bs {
		out[i] = BucketMeta{Name: b.Name, CreationDate: b.Created.UTC().Format(time.RFC3339), UserID: owner[b.Owner]}
	}
	return ok(page(out, p), nil)
}

// getConsole answers the console's address: one console serves the
// provider and every tenant, so tenant_id changes nothing but must name
// a tenant.
func (h *Handler) getConsole(r *http.Request, id *iam.Identity) (any, int, error) {
	if h.opt.ConsoleURL == "" {
		return nil, 0, errNotImplemented("getConsole")
	}
	if t := r.URL.Query().Get("tenant_id"); t != "" {
		if _, err := h.svc.GetTenant(r.Context(), id, t); err != nil {
			return nil, 0, err
		}
	}
	return ok(h.opt.ConsoleURL, nil)
}
