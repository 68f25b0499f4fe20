package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// RootKey is one of the provider's root credentials. Source says where it
// came from: "env" (given at start: the next start given another pair
// replaces it), "generated" (the first start's) or "api".
type RootKey struct {
	AccessKey string     `json:"access_key"`
	SecretKey string     `json:"secret_key,omitempty"` // only when created
	Source    string     `json:"source"`
	Status    string     `json:"status"`
	Expires   *time.Time `json:"expires,omitempty"`
	Created   time.Time  `json:"created"`
}

func rootKeyOut(k catalog.AccessKey) RootKey {
	out := RootKey{AccessKey: k.AccessKey, Source: k.Source, Status: k.Status, Created: k.CreatedAt}
	if !k.Expires.IsZero() {
		out.Expires = &k.Expires
		if !time.Now().Before(k.Expires) {
			out.Status = "expired"
		}
	}
	return out
}

func (s *Service) ListRootKeys(ctx context.Context, id *iam.Identity) ([]RootKey, error) {
	if err := allow(id, ""); err != nil {
		return nil, err
	}
	ks, err := s.cat.ListAccessKeys(ctx, "", "root")
	if err != nil {
		return nil, apiErr(err)
	}
	out := make([]RootKey, len(ks))
	for i, k := range ks {
		out[i] = rootKeyOut(k)
	}
	return out, nil
}

func (s *Service) newRootKey(ctx context.Context) (RootKey, error) {
	ak, secret := iam.NewAccessKey()
	k := catalog.AccessKey{AccessKey: ak, SecretSealed: s.sealer.Seal(secret, ak), Owner: iam.RootCanonicalID, DisplayName: "root",
		User: "root", Kind: catalog.KeyUser, Status: catalog.KeyActive, CreatedAt: time.Now().UTC(), Source: catalog.SourceAPI}
	if err := s.done(s.cat.PutAccessKey(ctx, k)); err != nil {
		return RootKey{}, err
	}
	out := rootKeyOut(k)
	out.SecretKey = secret
	return out, nil
}

// CreateRootKey adds a root credential; its secret is shown this once.
func (s *Service) CreateRootKey(ctx context.Context, id *iam.Identity) (RootKey, error) {
	if err := allow(id, ""); err != nil {
		return RootKey{}, err
	}
	return s.newRootKey(ctx)
}

// rootKey loads one of the root's keys.
func (s *Service) rootKey(ctx context.Context, id *iam.Identity, accessKey string) (catalog.AccessKey, error) {
	if err := allow(id, ""); err != nil {
		return catalog.AccessKey{}, err
	}
	k, err := s.cat.GetAccessKey(ctx, accessKey)
	if err == nil && (k.Owner != iam.RootCanonicalID || k.Tenant != "") {
		err = catalog.ErrNoSuchAccessKey
	}
	return k, apiErr(err)
}

// RotateRootKey issues a new root key and lets the old one work for the
// grace period (DefaultGrace when zero), as RotateKey does for users.
func (s *Service) RotateRootKey(ctx context.Context, id *iam.Identity, accessKey string, grace time.Duration) (RootKey, error) {
	old, err := s.rootKey(ctx, id, accessKey)
	if err != nil {
		return RootKey{}, err
	}
	if grace <= 0 {
		grace = s.grace
	}
	fresh, err := s.newRootKey(ctx)
	if err != nil {
		return RootKey{}, err
	}
	expires := time.Now().Add(grace).UTC()
	if !old.Expires.IsZero() && old.Expires.Before(expires) {
		expires = old.Expires
	}
	return fresh, s.done(s.cat.UpdateAccessKey(ctx, accessKey, old.Status, expires))
}

// RevokeRootKey disables a root key at once. The record stays, so that a
// start given the same pair in its environment does not bring it back.
// The last root key that is active with no expiry cannot be revoked: the
// provider would have no way left in.
func (s *Service) RevokeRootKey(ctx context.Context, id *iam.Identity, accessKey string) (RootKey, error) {
	k, err := s.rootKey(ctx, id, accessKey)
	if err != nil {
		return RootKey{}, err
	}
	// One revocation at a time on this node, so that two revoking the
	// last two keys together cannot both pass the check.
	s.rootMu.Lock()
	defer s.rootMu.Unlock()
	ks, err := s.cat.ListAccessKeys(ctx, "", "root")
	if err != nil {
		return RootKey{}, apiErr(err)
	}
	others := 0
	for _, o := range ks {
		if o.AccessKey != accessKey && o.Owner == iam.RootCanonicalID && o.Status == catalog.KeyActive && o.Expires.IsZero() {
			others++
		}
	}
	if others == 0 && k.Status == catalog.KeyActive && (k.Expires.IsZero() || time.Now().Before(k.Expires)) {
		return RootKey{}, newErr(http.StatusConflict, "LastRootKey", "This is the last active root key; create another first")
	}
	k.Status = catalog.KeyDisable
	return rootKeyOut(k), s.done(s.cat.UpdateAccessKey(ctx, accessKey, catalog.KeyDisable, k.Expires))
}
