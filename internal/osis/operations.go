package osis

import (
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

func (h *Handler) createTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	var in Tenant
	if err := decode(r, &in); err != nil {
		return nil, 0, err
	}
	if in.Name == "" {
		return nil, 0, errBadRequest("A tenant needs a name")
	}
	name := tenantNameFor(in)
	t, err := h.svc.CreateTenant(r.Context(), id, name, in.Name, "")
	if err != nil {
		return nil, 0, err
	}
	if !in.Active {
		if t, err = h.svc.SetSuspended(r.Context(), id, name, true); err != nil {
			return nil, 0, err
		}
	}
	return created(tenantOut(t), nil)
}

func (h *Handler) tenants(r *http.Request, id *iam.Identity) ([]Tenant, error) {
	ts, err := h.svc.ListTenants(r.Context(), id)
	out := make([]Tenant, len(ts))
	for i, t := range ts {
		out[i] = tenantOut(t)
	}
	return out, err
}

func (h *Handler) listTenants(r *http.Request, id *iam.Identity) (any, int, error) {
	p, err := parsePaging(r.URL.Query())
	if err != nil {
		return nil, 0, err
	}
	ts, err := h.tenants(r, id)
	return ok(page(ts, p), err)
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
	ts, err := h.tenants(r, id)
	if err != nil {
		return nil, 0, err
	}
	var out []Tenant
	for _, t := range ts {
		if v, ok := f["tenant_id"]; ok && v != t.TenantID {
			continue
		}
		if v, ok := f["cd_tenant_id"]; ok && !slices.Contains(t.CDTenantIDs, strings.ToLower(v)) {
			continue
		}
		if v, ok := f["name"]; ok && v != t.Name {
			continue
		}
		out = append(out, t)
	}
	return ok(page(out, p), nil)
}

func (h *Handler) getTenant(r *http.Request, id *iam.Identity) (any, int, error) {
	t, err := h.svc.GetTenant(r.Context(), id, r.PathValue("tenantId"))
	return ok(tenantOut(t), err)
}

// updateTenant sets what OSE changes of a tenant: active (active ↔
// suspended). cd_tenant_ids cannot change: they are the tenant's name.
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
		for _, c := range in.CDTenantIDs {
			if !slices.Contains(cdIDs(t.Name), strings.ToLower(c)) {
				return nil, 0, errBadRequest("A tenant's Cloud Director ids cannot change: it is named after them")
			}
		}
	}
	if in.Active != nil && *in.Active != (t.Status == catalog.TenantActive) {
		if t, err = h.svc.SetSuspended(r.Context(), id, name, !*in.Active); err != nil {
			return nil, 0, err
		}
	}
	return ok(tenantOut(t), nil)
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
	return userOut(u, active), err
}

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
	u, err := h.svc.CreateUser(r.Context(), id, r.PathValue("tenantId"), name, role, in.Email)
	if err != nil {
		return nil, 0, err
	}
	return created(userOut(u, true), nil)
}

func (h *Handler) users(r *http.Request, id *iam.Identity, tenant string) ([]User, error) {
	us, err := h.svc.ListUsers(r.Context(), id, tenant)
	if err != nil {
		return nil, err
	}
	out := make([]User, len(us))
	for i, u := range us {
		if out[i], err = h.userOut(r, id, u); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (h *Handler) listUsers(r *http.Request, id *iam.Identity) (any, int, error) {
	p, err := parsePaging(r.URL.Query())
	if err != nil {
		return nil, 0, err
	}
	us, err := h.users(r, id, r.PathValue("tenantId"))
	return ok(page(us, p), err)
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
	out, err := h.matchUsers(r, id, f)
	return ok(page(out, p), err)
}

// matchUsers lists the users f selects: those of one tenant when it
// names one, else of every tenant.
func (h *Handler) matchUsers(r *http.Request, id *iam.Identity, f filter) ([]User, error) {
	var tenants []string
	if t, ok := f.one("tenant_id", "cd_tenant_id"); ok {
		tenants = []string{strings.ToLower(t)}
	} else {
		ts, err := h.svc.ListTenants(r.Context(), id)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			tenants = append(tenants, t.Name)
		}
	}
	out := []User{}
	for _, t := range tenants {
		us, err := h.users(r, id, t)
		if toError(err).Status == http.StatusNotFound {
			continue // a filter naming no tenant matches no one
		}
		if err != nil {
			return nil, err
		}
		for _, u := range us {
			if u.matches(f) {
				out = append(out, u)
			}
		}
	}
	return out, nil
}

func (u User) matches(f filter) bool {
	for k, v := range f {
		var have string
		switch k {
		case "tenant_id", "cd_tenant_id":
			have, v = u.TenantID, strings.ToLower(v)
		case "user_id":
			have = u.UserID
		case "cd_user_id":
			have = u.CDUserID
		case "canonical_user_id":
			have = u.CanonicalUserID
		case "username":
			have = u.Username
		}
		if have != v {
			return false
		}
	}
	return true
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

func (h *Handler) createCredential(r *http.Request, id *iam.Identity) (any, int, error) {
	k, err := h.svc.CreateKey(r.Context(), id, r.PathValue("tenantId"), r.PathValue("userId"))
	return created(credOut(k), err)
}

// userKeys are a user's own access keys (application credentials and
// share links are Ostium's, not OSIS credentials).
func (h *Handler) creds(r *http.Request, id *iam.Identity, tenant, user string) ([]S3Credential, error) {
	ks, err := h.svc.ListKeys(r.Context(), id, tenant, user)
	out := []S3Credential{}
	for _, k := range ks {
		if k.Kind == catalog.KeyUser {
			out = append(out, credOut(k))
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
	out := []S3Credential{}
	if ak, has := f["access_key"]; has {
		k, err := h.svc.FindKey(r.Context(), id, ak)
		if toError(err).Status == http.StatusNotFound {
			return ok(page(out, p), nil)
		}
		if err != nil {
			return nil, 0, err
		}
		if c := credOut(k); c.matches(f) && k.Kind == catalog.KeyUser {
			out = append(out, c)
		}
		return ok(page(out, p), nil)
	}
	uf := filter{}
	for _, k := range []string{"tenant_id", "cd_tenant_id", "user_id", "cd_user_id"} {
		if v, has := f[k]; has {
			uf[k] = v
		}
	}
	us, err := h.matchUsers(r, id, uf)
	if err != nil {
		return nil, 0, err
	}
	for _, u := range us {
		cs, err := h.creds(r, id, u.TenantID, u.UserID)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, cs...)
	}
	return ok(page(out, p), nil)
}

func (c S3Credential) matches(f filter) bool {
	for k, v := range f {
		var have string
		switch k {
		case "tenant_id", "cd_tenant_id":
			have, v = c.TenantID, strings.ToLower(v)
		case "user_id", "cd_user_id":
			have = c.UserID
		case "access_key":
			have = c.AccessKey
		}
		if have != v {
			return false
		}
	}
	return true
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
	if err == nil && (k.Kind != catalog.KeyUser || tenant != "" && k.Tenant != strings.ToLower(tenant) || user != "" && k.User != user) {
		err = errNotFound("The S3 credential does not exist")
	}
	return k, err
}

func (h *Handler) getCredential(r *http.Request, id *iam.Identity) (any, int, error) {
	k, err := h.credential(r, id, false)
	return ok(credOut(k), err)
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
	k, err = h.svc.SetKeyStatus(r.Context(), id, k.Tenant, k.User, k.AccessKey, *in.Active)
	return ok(credOut(k), err)
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
