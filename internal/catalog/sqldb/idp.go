package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.IdentityProviders = (*Store)(nil)

const idpCols = `tenant, name, config, secret_sealed, created, updated`

func scanIdP(sc interface{ Scan(...any) error }) (catalog.IdentityProvider, error) {
	var p catalog.IdentityProvider
	var created, updated int64
	err := sc.Scan(&p.Tenant, &p.Name, &p.Config, &p.SecretSealed, &created, &updated)
	p.Created, p.Updated = fromNanos(created), fromNanos(updated)
	return p, err
}

func (s *Store) PutIdentityProvider(ctx context.Context, p catalog.IdentityProvider) error {
	secret := p.SecretSealed
	if secret == nil {
		secret = []byte{}
	}
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if p.Tenant != "" {
			var one int
			err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), p.Tenant).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return catalog.ErrNoSuchTenant
			}
			if err != nil {
				return err
			}
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO identity_providers (`+idpCols+`) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant, name) DO UPDATE SET config = excluded.config, secret_sealed = excluded.secret_sealed, updated = excluded.updated`),
			p.Tenant, p.Name, p.Config, secret, nanos(p.Created), nanos(p.Updated))
		return err
	})
	return wrap("put identity provider", err)
}

func (s *Store) GetIdentityProvider(ctx context.Context, tenant, name string) (catalog.IdentityProvider, error) {
	p, err := scanIdP(s.row(ctx, nil, s.q(`SELECT `+idpCols+` FROM identity_providers WHERE tenant = ? AND name = ?`), tenant, name))
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ErrNoSuchIdentityProvider
	}
	return p, wrap("get identity provider", err)
}

func (s *Store) ListIdentityProviders(ctx context.Context, tenant string) ([]catalog.IdentityProvider, error) {
	return queryAll(ctx, s, "list identity providers", scanIdP,
		`SELECT `+idpCols+` FROM identity_providers WHERE tenant = ? ORDER BY name`, tenant)
}

func (s *Store) DeleteIdentityProvider(ctx context.Context, tenant, name string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM identity_providers WHERE tenant = ? AND name = ?`), tenant, name)
		return affected(res, err, catalog.ErrNoSuchIdentityProvider)
	})
	return wrap("delete identity provider", err)
}

const idpUserCols = `tenant, user_name, idp_tenant, idp, subject, login, groups, signed_in`

func scanIdPUser(sc interface{ Scan(...any) error }) (catalog.IdentityProviderUser, error) {
	var u catalog.IdentityProviderUser
	var groups string
	var at int64
	err := sc.Scan(&u.Tenant, &u.User, &u.IdPTenant, &u.IdP, &u.Subject, &u.Login, &groups, &at)
	u.SignedIn = fromNanos(at)
	if groups != "" {
		// Package idp keeps no newline in a group name.
		u.Groups = strings.Split(groups, "\n")
	}
	return u, err
}

func (s *Store) SignInIdentityProviderUser(ctx context.Context, link catalog.IdentityProviderUser, u catalog.User, create bool) (catalog.User, bool, error) {
	var out catalog.User
	var changed bool
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		changed = false
		var name string
		err := s.row(ctx, tx, s.q(`SELECT user_name FROM idp_users WHERE tenant = ? AND idp_tenant = ? AND idp = ? AND subject = ? {{forupdate}}`),
			link.Tenant, link.IdPTenant, link.IdP, link.Subject).Scan(&name)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := s.linkIdPUser(ctx, tx, link, u, create); err != nil {
				return err
			}
			name, changed = link.User, create
		case err != nil:
			return err
		}
		have, err := scanUser(s.row(ctx, tx, s.q(`SELECT `+userCols+` FROM users WHERE tenant = ? AND name = ?`), link.Tenant, name))
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchUser
		}
		if err != nil {
			return err
		}
		if have.Role != u.Role {
			if _, err := s.exec(ctx, tx, s.q(`UPDATE users SET role = ? WHERE tenant = ? AND name = ?`), u.Role, link.Tenant, name); err != nil {
				return err
			}
			have.Role, changed = u.Role, true
		}
		if _, err := s.exec(ctx, tx, s.q(`UPDATE idp_users SET login = ?, groups = ?, signed_in = ? WHERE tenant = ? AND user_name = ?`),
			link.Login, strings.Join(link.Groups, "\n"), nanos(link.SignedIn), link.Tenant, name); err != nil {
			return err
		}
		out = have
		if changed {
			return s.changed(ctx, tx)
		}
		return nil
	})
	return out, changed, wrap("sign in identity provider user", err)
}

// linkIdPUser links link.User to its subject: made from u when create,
// otherwise an existing user no directory or provider has linked.
func (s *Store) linkIdPUser(ctx context.Context, tx *sql.Tx, link catalog.IdentityProviderUser, u catalog.User, create bool) error {
	var one int
	err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), link.Tenant).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.ErrNoSuchTenant
	}
	if err != nil {
		return err
	}
	if create {
		if err := s.insertOnce(ctx, tx, catalog.ErrUserExists,
			`INSERT INTO users (tenant, name, role, canonical_id, email, created, disabled) VALUES (?, ?, ?, ?, '', ?, 0) ON CONFLICT (tenant, name) DO NOTHING`,
			link.Tenant, link.User, u.Role, u.CanonicalID, nanos(u.CreatedAt)); err != nil {
			return err
		}
	} else {
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM users WHERE tenant = ? AND name = ? {{forupdate}}`), link.Tenant, link.User).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchUser
		}
		if err != nil {
			return err
		}
		for _, q := range []string{`SELECT 1 FROM directory_users WHERE tenant = ? AND user_name = ?`, `SELECT 1 FROM idp_users WHERE tenant = ? AND user_name = ?`} {
			err := s.row(ctx, tx, s.q(q), link.Tenant, link.User).Scan(&one)
			if err == nil {
				return catalog.ErrUserExists
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
	}
	if create {
		// A stale link of that name (its user deleted through SQL) goes.
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM idp_users WHERE tenant = ? AND user_name = ?`), link.Tenant, link.User); err != nil {
			return err
		}
	}
	_, err = s.exec(ctx, tx, s.q(`INSERT INTO idp_users (`+idpUserCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		link.Tenant, link.User, link.IdPTenant, link.IdP, link.Subject, link.Login, strings.Join(link.Groups, "\n"), nanos(link.SignedIn))
	return err
}

func (s *Store) IdentityProviderUsers(ctx context.Context, tenant string) ([]catalog.IdentityProviderUser, error) {
	return queryAll(ctx, s, "list identity provider users", scanIdPUser,
		`SELECT `+idpUserCols+` FROM idp_users WHERE tenant = ? ORDER BY user_name`, tenant)
}

func (s *Store) UseSignInState(ctx context.Context, hash string, expires, now time.Time) (bool, error) {
	var fresh bool
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM idp_used_states WHERE expires <= ?`), nanos(now)); err != nil {
			return err
		}
		res, err := s.exec(ctx, tx, s.q(`INSERT INTO idp_used_states (state_hash, expires) VALUES (?, ?) ON CONFLICT (state_hash) DO NOTHING`), hash, nanos(expires))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		fresh = n == 1
		return err
	})
	return fresh, wrap("use sign-in state", err)
}

func (s *Store) PutIdPSession(ctx context.Context, is catalog.IdPSession) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM idp_sessions WHERE session_hash NOT IN (SELECT id_hash FROM console_sessions)`)); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO idp_sessions (session_hash, idp_tenant, idp, id_token) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_hash) DO UPDATE SET idp_tenant = excluded.idp_tenant, idp = excluded.idp, id_token = excluded.id_token`),
			is.SessionHash, is.IdPTenant, is.IdP, is.IDToken)
		return err
	})
	return wrap("put idp session", err)
}

func (s *Store) TakeIdPSession(ctx context.Context, sessionHash string) (catalog.IdPSession, error) {
	var is catalog.IdPSession
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		err := s.row(ctx, tx, s.q(`SELECT session_hash, idp_tenant, idp, id_token FROM idp_sessions WHERE session_hash = ?`), sessionHash).
			Scan(&is.SessionHash, &is.IdPTenant, &is.IdP, &is.IDToken)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchSession
		}
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM idp_sessions WHERE session_hash = ?`), sessionHash)
		return err
	})
	return is, wrap("take idp session", err)
}
