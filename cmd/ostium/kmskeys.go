package main

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/kms"
)

// The key commands of encryption at rest: a tenant's KMS keys
// (`ostium admin tenant key ...`) and the master key.
func init() {
	maps.Copy(adminCmds, kmsAdminCmds)
	adminGroups["tenant key"] = "a tenant's keys of encryption at rest (SSE-S3's default key, and keys for SSE-KMS)"
	adminGroups["master-key"] = "the built-in keyring's master key, which seals every tenant key"
	adminGroups["encryption"] = "the provider-wide default encryption of new objects"
}

var kmsAdminCmds = map[string]adminCmd{
	"tenant key list": {args: []string{"TENANT"}, short: "list a tenant's keys (destroyed ones too)", example: "  ostium admin tenant key list acme", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]kms.KeyInfo](c, "GET", path("tenants", a[0], "kms-keys"), nil)
	}},
	"tenant key create": {args: []string{"TENANT", "[ALIAS]"}, short: "make a key for SSE-KMS (named by alias/ALIAS, its id or its ARN)", example: "  ostium admin tenant key create acme app/logs", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		alias := ""
		if len(a) > 1 {
			alias = strings.TrimPrefix(a[1], "alias/")
		}
		return call[kms.KeyInfo](c, "POST", path("tenants", a[0], "kms-keys"), map[string]string{"alias": alias})
	}},
	"tenant key rotate": {args: []string{"TENANT", "KEY"}, short: "a new version of the key; stored data keys are re-wrapped in the background", example: "  ostium admin tenant key rotate acme alias/aws/s3", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return kmsKeyCall(c, a, http.MethodPost, "rotate")
	}},
	"tenant key disable": {args: []string{"TENANT", "KEY"}, short: "stop the key from encrypting and decrypting until enabled", example: "  ostium admin tenant key disable acme alias/app/logs", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return kmsKeyCall(c, a, http.MethodPost, "disable")
	}},
	"tenant key enable": {args: []string{"TENANT", "KEY"}, short: "let a disabled key work again", example: "  ostium admin tenant key enable acme alias/app/logs", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return kmsKeyCall(c, a, http.MethodPost, "enable")
	}},
	"tenant key destroy": {args: []string{"TENANT", "KEY"}, short: "destroy a key for good: what it encrypted is unreadable (--yes)", example: "  ostium admin tenant key destroy acme alias/app/logs --yes", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.BoolVar(&f.yes, "yes", false, "yes, make every object the key encrypted unreadable for good")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		if !f.yes {
			return nil, fmt.Errorf("destroying %s makes every object it encrypted unreadable for good: say --yes", a[1])
		}
		return kmsKeyCall(c, a, http.MethodDelete, "")
	}},
	"encryption get": {short: "show the provider-wide default encryption of new objects", example: "  ostium admin encryption get", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.TenantEncryption](c, "GET", "/encryption", nil)
	}},
	"encryption set": {short: "set the default encryption of every tenant's new objects (below a tenant's or a bucket's own)", example: "  ostium admin encryption set --default sse-s3\n  ostium admin encryption set --default none", flags: func(fs *pflag.FlagSet, f *adminFlags) {
		fs.StringVar(&f.sseDefault, "default", "", "sse-s3, sse-kms (each tenant's own key) or none (the nodes' sse_default then applies)")
	}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.TenantEncryption](c, "PUT", "/encryption", admin.TenantEncryption{Default: f.sseDefault})
	}},
	"master-key rotate": {short: "rotate the master key: every tenant key sealed again under a new version", example: "  ostium admin master-key rotate", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[kms.MasterRotation](c, "POST", "/master-key/rotate", nil)
	}},
}

// kmsKeyCall calls action on the key a[1] names: an id, or an alias or
// ARN, which the key list turns into the id the API takes.
func kmsKeyCall(c *admin.Client, a []string, method, action string) (any, error) {
	id, err := kmsKeyID(c, a[0], a[1])
	if err != nil {
		return nil, err
	}
	parts := []string{"tenants", a[0], "kms-keys", id}
	if action != "" {
		parts = append(parts, action)
	}
	return call[kms.KeyInfo](c, method, path(parts...), nil)
}

func kmsKeyID(c *admin.Client, tenant, ref string) (string, error) {
	r, err := kms.ParseKeyRef(ref)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	if r.Alias == "" {
		return r.ID, nil
	}
	var keys []kms.KeyInfo
	if err := c.Do(context.Background(), "GET", path("tenants", tenant, "kms-keys"), nil, &keys); err != nil {
		return "", err
	}
	for _, k := range keys {
		if k.Alias == r.Alias && k.State != kms.StateDestroyed {
			return k.ID, nil
		}
	}
	return "", fmt.Errorf("tenant %s has no key alias/%s", tenant, r.Alias)
}
