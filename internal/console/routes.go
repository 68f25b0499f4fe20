package console

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
)

// routes is the whole API (docs/console.md).
var routes = []route{
	// Session.
	{method: "POST", pattern: "/session", public: true, ownSlots: true, serve: func(h *Handler, c *call) (any, int, error) { return h.signIn(c.w, c.r) }},
	{method: "GET", pattern: "/session", early: true, serve: func(h *Handler, c *call) (any, int, error) { return h.info(c.s), http.StatusOK, nil }},
	{method: "DELETE", pattern: "/session", early: true, serve: func(h *Handler, c *call) (any, int, error) { return h.signOut(c.w, c.r, c.s) }},
	{method: "POST", pattern: "/password", early: true, audit: "admin:SetPassword", serve: func(h *Handler, c *call) (any, int, error) { return h.changePassword(c.w, c.r, c.s) }},

	// Buckets and their settings.
	{method: "GET", pattern: "/buckets", serve: listBuckets},
	{method: "POST", pattern: "/buckets", serve: createBucket},
	{method: "GET", pattern: "/buckets/{bucket}", serve: getBucket},
	{method: "DELETE", pattern: "/buckets/{bucket}", serve: deleteBucket},
	{method: "POST", pattern: "/buckets/{bucket}/policy/validate", serve: validatePolicy},
	{method: "GET", pattern: "/buckets/{bucket}/settings/{setting}", serve: getSetting},
	{method: "GET", pattern: "/buckets/{bucket}/replication", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.BucketReplication(c.ctx(), c.id(), c.path("bucket")))
	}},
	{method: "PUT", pattern: "/buckets/{bucket}/settings/{setting}", serve: putSetting},
	{method: "DELETE", pattern: "/buckets/{bucket}/settings/{setting}", serve: deleteSetting},

	// Objects.
	{method: "GET", pattern: "/buckets/{bucket}/objects", serve: listObjects},
	{method: "GET", pattern: "/buckets/{bucket}/versions", serve: listVersions},
	{method: "GET", pattern: "/buckets/{bucket}/object", serve: getObject},
	{method: "HEAD", pattern: "/buckets/{bucket}/object", serve: getObject},
	{method: "PUT", pattern: "/buckets/{bucket}/object", serve: putObject},
	{method: "DELETE", pattern: "/buckets/{bucket}/object", serve: deleteObject},
	{method: "POST", pattern: "/buckets/{bucket}/delete", serve: deleteObjects},
	{method: "POST", pattern: "/buckets/{bucket}/restore", serve: restoreVersion},
	{method: "GET", pattern: "/buckets/{bucket}/metadata", serve: getMetadata},
	{method: "PUT", pattern: "/buckets/{bucket}/metadata", serve: putMetadata},
	{method: "GET", pattern: "/buckets/{bucket}/tags", serve: getObjectTags},
	{method: "PUT", pattern: "/buckets/{bucket}/tags", serve: putObjectTags},
	{method: "DELETE", pattern: "/buckets/{bucket}/tags", serve: deleteObjectTags},
	{method: "POST", pattern: "/buckets/{bucket}/copy", serve: copyObject},
	{method: "GET", pattern: "/buckets/{bucket}/lock", serve: getLock},
	{method: "PUT", pattern: "/buckets/{bucket}/lock", serve: putLock},
	{method: "POST", pattern: "/buckets/{bucket}/share", audit: "admin:CreateShareCred", serve: share},
	{method: "GET", pattern: "/buckets/{bucket}/uploads", serve: listUploads},
	{method: "POST", pattern: "/buckets/{bucket}/uploads", serve: createUpload},
	{method: "PUT", pattern: "/buckets/{bucket}/uploads/{upload}", serve: uploadPart},
	{method: "POST", pattern: "/buckets/{bucket}/uploads/{upload}/complete", serve: completeUpload},
	{method: "DELETE", pattern: "/buckets/{bucket}/uploads/{upload}", serve: abortUpload},

	// Users, keys, usage: the admin service's calls, with its rules.
	{method: "GET", pattern: "/tenants/{tenant}/users", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ListUsers(c.ctx(), c.id(), c.path("tenant")))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users", audit: "admin:CreateUser", serve: createUser},
	{method: "DELETE", pattern: "/tenants/{tenant}/users/{user}", audit: "admin:DeleteUser", serve: func(h *Handler, c *call) (any, int, error) {
		return nil, http.StatusNoContent, h.o.Admin.DeleteUser(c.ctx(), c.id(), c.path("tenant"), c.path("user"))
	}},
	{method: "PUT", pattern: "/tenants/{tenant}/users/{user}/password", audit: "admin:SetPassword", serve: func(h *Handler, c *call) (any, int, error) {
		var in struct {
			Password string `json:"password"`
		}
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		// One's own goes through POST /password, which asks for the
		// current one: a session left open must not be enough.
		if id := c.id(); !id.Root && id.Tenant == c.path("tenant") && id.User == c.path("user") {
			return nil, 0, apiError(http.StatusForbidden, "AccessDenied", "Change your own password with POST /console/api/password")
		}
		return nil, http.StatusNoContent, h.o.Admin.SetPasswordKeeping(c.ctx(), c.id(), c.path("tenant"), c.path("user"), in.Password, c.s.IDHash)
	}},
	{method: "GET", pattern: "/tenants/{tenant}/users/{user}/keys", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ListKeys(c.ctx(), c.id(), c.path("tenant"), c.path("user")))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users/{user}/keys", audit: "admin:CreateKey", serve: func(h *Handler, c *call) (any, int, error) {
		return created(h.o.Admin.CreateKey(c.ctx(), c.id(), c.path("tenant"), c.path("user")))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users/{user}/appcreds", audit: "admin:CreateAppCred", serve: func(h *Handler, c *call) (any, int, error) {
		var in struct {
			Buckets        []string `json:"buckets"`
			ReadOnly       bool     `json:"read_only"`
			ExpiresSeconds int64    `json:"expires_seconds"`
		}
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		var expires time.Time
		if in.ExpiresSeconds > 0 {
			expires = time.Now().Add(time.Duration(in.ExpiresSeconds) * time.Second)
		}
		return created(h.o.Admin.CreateAppCredUntil(c.ctx(), c.id(), c.path("tenant"), c.path("user"), in.Buckets, in.ReadOnly, expires))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users/{user}/keys/{key}/rotate", audit: "admin:RotateKey", serve: func(h *Handler, c *call) (any, int, error) {
		var in struct {
			GraceSeconds int64 `json:"grace_seconds"`
		}
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		return created(h.o.Admin.RotateKey(c.ctx(), c.id(), c.path("tenant"), c.path("user"), c.path("key"), time.Duration(in.GraceSeconds)*time.Second))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users/{user}/keys/{key}/disable", audit: "admin:DisableKey", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.SetKeyStatus(c.ctx(), c.id(), c.path("tenant"), c.path("user"), c.path("key"), false))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/users/{user}/keys/{key}/enable", audit: "admin:EnableKey", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.SetKeyStatus(c.ctx(), c.id(), c.path("tenant"), c.path("user"), c.path("key"), true))
	}},
	{method: "DELETE", pattern: "/tenants/{tenant}/users/{user}/keys/{key}", audit: "admin:DeleteKey", serve: func(h *Handler, c *call) (any, int, error) {
		return nil, http.StatusNoContent, h.o.Admin.DeleteKey(c.ctx(), c.id(), c.path("tenant"), c.path("user"), c.path("key"))
	}},
	{method: "GET", pattern: "/tenants/{tenant}/quotas", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ListQuotas(c.ctx(), c.id(), c.path("tenant")))
	}},
	{method: "GET", pattern: "/tenants/{tenant}/usage", serve: tenantUsage},
	// The tenant's KMS keys, from which SSE-KMS's key is chosen: a tenant
	// admin's own, or any tenant's for the provider.
	{method: "GET", pattern: "/tenants/{tenant}/kms-keys", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ListKMSKeys(c.ctx(), c.id(), c.path("tenant")))
	}},

	// The provider's.
	{method: "GET", pattern: "/tenants", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ListTenants(c.ctx(), c.id()))
	}},
	{method: "POST", pattern: "/tenants", audit: "admin:CreateTenant", serve: createTenant},
	{method: "GET", pattern: "/tenants/{tenant}", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.GetTenant(c.ctx(), c.id(), c.path("tenant")))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/suspend", audit: "admin:SuspendTenant", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.SetSuspended(c.ctx(), c.id(), c.path("tenant"), true))
	}},
	{method: "POST", pattern: "/tenants/{tenant}/resume", audit: "admin:ResumeTenant", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.SetSuspended(c.ctx(), c.id(), c.path("tenant"), false))
	}},
	{method: "DELETE", pattern: "/tenants/{tenant}", audit: "admin:DeleteTenant", serve: func(h *Handler, c *call) (any, int, error) {
		purge, _ := strconv.ParseBool(c.query("purge"))
		return nil, http.StatusNoContent, h.o.Admin.DeleteTenant(c.ctx(), c.id(), c.path("tenant"), purge)
	}},
	{method: "PUT", pattern: "/tenants/{tenant}/quotas", audit: "admin:SetQuota", serve: func(h *Handler, c *call) (any, int, error) {
		var in admin.Quota
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		in.Tenant = c.path("tenant")
		return ok(h.o.Admin.SetQuota(c.ctx(), c.id(), in))
	}},
	{method: "PUT", pattern: "/tenants/{tenant}/platform", audit: "admin:SetTenantPlatform", serve: func(h *Handler, c *call) (any, int, error) {
		var in struct {
			Platform string `json:"platform"`
		}
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		return ok(h.o.Admin.SetTenantPlatform(c.ctx(), c.id(), c.path("tenant"), in.Platform))
	}},
	{method: "PUT", pattern: "/tenants/{tenant}/encryption", audit: "admin:SetTenantEncryption", serve: func(h *Handler, c *call) (any, int, error) {
		var in admin.TenantEncryption
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		return ok(h.o.Admin.SetTenantEncryption(c.ctx(), c.id(), c.path("tenant"), in))
	}},
	// The provider-wide default of every tenant's new objects, under a
	// tenant's and a bucket's own (provider only, as in the admin API).
	{method: "GET", pattern: "/encryption", serve: func(h *Handler, c *call) (any, int, error) {
		return ok(h.o.Admin.ProviderEncryption(c.ctx(), c.id()))
	}},
	{method: "PUT", pattern: "/encryption", audit: "admin:SetProviderEncryption", serve: func(h *Handler, c *call) (any, int, error) {
		var in admin.TenantEncryption
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		return ok(h.o.Admin.SetProviderEncryption(c.ctx(), c.id(), in))
	}},
	{method: "PUT", pattern: "/placement/buckets/{bucket}", audit: "admin:PlaceBucket", serve: func(h *Handler, c *call) (any, int, error) {
		var in struct {
			Platform string `json:"platform"`
		}
		if err := decode(c.r, &in); err != nil {
			return nil, 0, err
		}
		return nil, http.StatusNoContent, h.o.Admin.PlaceBucket(c.ctx(), c.id(), c.path("bucket"), in.Platform)
	}},
	{method: "GET", pattern: "/health", serve: health},
	{method: "GET", pattern: "/usage", serve: allUsage},
}

func ok[T any](v T, err error) (any, int, error)      { return v, http.StatusOK, err }
func created[T any](v T, err error) (any, int, error) { return v, http.StatusCreated, err }

// createUser adds a user and, when given one, its first password, which
// the user must change.
func createUser(h *Handler, c *call) (any, int, error) {
	var in struct {
		Name     string `json:"name"`
		Role     string `json:"role"`
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if in.Password != "" {
		if err := validPassword(in.Password); err != nil {
			return nil, 0, err
		}
	}
	u, err := h.o.Admin.CreateUser(c.ctx(), c.id(), c.path("tenant"), in.Name, in.Role, in.Email)
	if err != nil {
		return nil, 0, err
	}
	if in.Password != "" {
		if err := h.o.Admin.SetPassword(c.ctx(), c.id(), u.Tenant, u.Name, in.Password); err != nil {
			return nil, 0, err
		}
	}
	return u, http.StatusCreated, nil
}

// createTenant onboards a tenant and, when asked, its first admin user
// with a password to change at first sign-in.
func createTenant(h *Handler, c *call) (any, int, error) {
	var in struct {
		Name        string `json:"name"`
		DisplayName string `json:"display_name"`
		Platform    string `json:"platform"`
		Admin       *struct {
			Name     string `json:"name"`
			Password string `json:"password"`
		} `json:"admin"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if in.Admin != nil {
		if err := validPassword(in.Admin.Password); err != nil {
			return nil, 0, err
		}
	}
	ctx, id := c.ctx(), c.id()
	t, err := h.o.Admin.CreateTenant(ctx, id, in.Name, in.DisplayName, in.Platform)
	if err != nil {
		return nil, 0, err
	}
	if in.Admin != nil {
		if _, err := h.o.Admin.CreateUser(ctx, id, t.Name, in.Admin.Name, catalog.RoleAdmin, ""); err != nil {
			return nil, 0, err
		}
		if err := h.o.Admin.SetPassword(ctx, id, t.Name, in.Admin.Name, in.Admin.Password); err != nil {
			return nil, 0, err
		}
	}
	return t, http.StatusCreated, nil
}

func usagePeriod(c *call) (from, to time.Time, err error) {
	parse := func(name string) (time.Time, error) {
		v := c.query(name)
		if v == "" {
			return time.Time{}, nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t, nil
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Unix(n, 0), nil
		}
		return time.Time{}, apiError(http.StatusBadRequest, "InvalidArgument", "%s: %q is neither RFC 3339 nor Unix seconds", name, v)
	}
	if from, err = parse("from"); err != nil {
		return
	}
	to, err = parse("to")
	return
}

func tenantUsage(h *Handler, c *call) (any, int, error) {
	from, to, err := usagePeriod(c)
	if err != nil {
		return nil, 0, err
	}
	u, err := h.o.Admin.Usage(c.ctx(), c.id(), c.path("tenant"), from, to)
	if err != nil {
		return nil, 0, err
	}
	if c.query("format") == "csv" {
		writeCSV(c.w, u.Tenant+"-usage.csv", usageRows([]admin.Usage{u}))
		return rawBody{}, http.StatusOK, nil
	}
	return u, http.StatusOK, nil
}

// allUsage is the billing export: every tenant's usage over a period.
func allUsage(h *Handler, c *call) (any, int, error) {
	from, to, err := usagePeriod(c)
	if err != nil {
		return nil, 0, err
	}
	ctx, id := c.ctx(), c.id()
	ts, err := h.o.Admin.ListTenants(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	us := make([]admin.Usage, 0, len(ts))
	for _, t := range ts {
		u, err := h.o.Admin.Usage(ctx, id, t.Name, from, to)
		if err != nil {
			return nil, 0, err
		}
		us = append(us, u)
	}
	if c.query("format") == "csv" {
		writeCSV(c.w, "usage.csv", usageRows(us))
		return rawBody{}, http.StatusOK, nil
	}
	out := struct {
		From    time.Time     `json:"from"`
		To      time.Time     `json:"to"`
		Tenants []admin.Usage `json:"tenants"`
	}{From: from, To: to, Tenants: us}
	return out, http.StatusOK, nil
}

// usageRows are the admin API's CSV columns, for every tenant given.
func usageRows(us []admin.Usage) [][]string {
	out := [][]string{{"tenant", "bucket", "hour", "byte_hours", "objects", "get_requests", "put_requests",
		"list_requests", "delete_requests", "bytes_in", "bytes_out"}}
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, u := range us {
		for _, r := range u.Rows {
			out = append(out, []string{u.Tenant, r.Bucket, r.Hour.Format(time.RFC3339), n(r.ByteHours), n(r.Objects),
				n(r.Get), n(r.Put), n(r.List), n(r.Delete), n(r.BytesIn), n(r.BytesOut)})
		}
	}
	return out
}

func writeCSV(w http.ResponseWriter, name string, rows [][]string) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	csv.NewWriter(w).WriteAll(rows)
}

// health is the provider's view of the node: its catalog, platforms,
// lease holders and load, as /health/ready reports them.
func health(h *Handler, c *call) (any, int, error) {
	if !c.id().Root {
		return nil, 0, errDenied
	}
	if h.o.Health == nil {
		return map[string]any{}, http.StatusOK, nil
	}
	return h.o.Health(c.ctx()), http.StatusOK, nil
}
