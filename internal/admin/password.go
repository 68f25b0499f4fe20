package admin

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/objects"
)

// SessionSubject names a user's console sessions (catalog.Session's
// Subject), so that a password change can end them.
func SessionSubject(tenant, user string) string { return "user:" + tenant + "/" + user }

// self reports whether id is tenant/user itself, signed in as a person
// (not an application credential) of a tenant that is not suspended.
func self(id *iam.Identity, tenant, user string) bool {
	return id != nil && !id.Root && id.App == nil && !id.Suspended && id.Tenant == tenant && id.User == user
}

// SetPassword sets a user's console password. A user may set its own;
// its tenant's admin and the provider may set anyone's, and a password
// chosen by someone else must be changed at the user's next sign-in.
// Either way the user's other console sessions end (keep names the
// session the change came through: its hash, "" = none).
func (s *Service) SetPassword(ctx context.Context, id *iam.Identity, tenant, user, password string) error {
	return s.setPassword(ctx, id, tenant, user, password, "")
}

// SetPasswordKeeping is SetPassword from a console session that stays.
func (s *Service) SetPasswordKeeping(ctx context.Context, id *iam.Identity, tenant, user, password, keep string) error {
	return s.setPassword(ctx, id, tenant, user, password, keep)
}

func (s *Service) setPassword(ctx context.Context, id *iam.Identity, tenant, user, password, keep string) error {
	mine := self(id, tenant, user)
	if !mine {
		if err := allow(id, tenant); err != nil {
			return err
		}
	}
	if err := iam.ValidPassword(password); err != nil {
		return newErr(http.StatusBadRequest, "InvalidPassword", "%s", err.Error())
	}
	c, ok := s.cat.(catalog.Console)
	if !ok {
		return fmt.Errorf("admin: catalog %T keeps no passwords", s.cat)
	}
	if err := c.SetPassword(ctx, tenant, user, catalog.Password{Hash: iam.HashPassword(password), MustChange: !mine}); err != nil {
		return apiErr(err)
	}
	return apiErr(c.DeleteSessions(ctx, SessionSubject(tenant, user), keep))
}

// MaxShareExpiry is the longest a share link lives, as S3 bounds a
// presigned URL (a week).
const MaxShareExpiry = 7 * 24 * time.Hour

// CreateShareCred issues the credential a share link is signed with: an
// application credential of the caller itself, read-only, on one bucket,
// expiring with the link. Any tenant user may have one for itself, as it
// can only do less than the user can.
func (s *Service) CreateShareCred(ctx context.Context, id *iam.Identity, bucket string, expires time.Time) (Key, error) {
	if id == nil || !self(id, id.Tenant, id.User) || id.Tenant == "" {
		return Key{}, errDenied
	}
	if objects.ValidBucketName(bucket) != nil {
		return Key{}, newErr(http.StatusBadRequest, "InvalidBucketName", "%q is not a valid bucket name", bucket)
	}
	if d := time.Until(expires); d <= 0 || d > MaxShareExpiry+time.Minute {
		return Key{}, newErr(http.StatusBadRequest, "InvalidArgument", "A share link expires within a week")
	}
	return s.newKey(ctx, id.Tenant, id.User, catalog.AccessKey{Kind: catalog.KeyAppCred, Buckets: []string{bucket}, ReadOnly: true, Expires: expires.UTC()})
}
