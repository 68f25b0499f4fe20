package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Directories = (*Store)(nil)

const directoryCols = `tenant, config, secret_sealed, created, updated, last_sync, last_result`

func scanDirectory(sc interface{ Scan(...any) error }) (catalog.Directory, error) {
	var d catalog.Directory
	var created, updated, last int64
	err := sc.Scan(&d.Tenant, &d.Config, &d.SecretSealed, &created, &updated, &last, &d.LastResult)
	d.Created, d.Updated = fromNanos(created), fromNanos(updated)
	if last != 0 {
		d.LastSync = fromNanos(last)
	}
	return d, err
}

func (s *Store) PutDirectory(ctx context.Context, d catalog.Directory) error {
	secret := d.SecretSealed
	if secret == nil {
		secret = []byte{}
	}
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), d.Tenant).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return catalog.ErrNoSuchTenant
		}
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO directories (tenant, config, secret_sealed, created, updated) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (tenant) DO UPDATE SET config = excluded.config, secret_sealed = excluded.secret_sealed, updated = excluded.updated`),
			d.Tenant, d.Config, secret, nanos(d.Created), nanos(d.Updated))
		return err
	})
	return wrap("put directory", err)
}

func (s *Store) GetDirectory(ctx context.Context, tenant string) (catalog.Directory, error) {
	d, err := scanDirectory(s.row(ctx, nil, s.q(`SELECT `+directoryCols+` FROM directories WHERE tenant = ?`), tenant))
	if errors.Is(err, sql.ErrNoRows) {
		return d, catalog.ErrNoSuchDirectory
	}
	return d, wrap("get directory", err)
}

func (s *Store) ListDirectories(ctx context.Context) ([]catalog.Directory, error) {
	return queryAll(ctx, s, "list directories", scanDirectory, `SELECT `+directoryCols+` FROM directories ORDER BY tenant`)
}

func (s *Store) DeleteDirectory(ctx context.Context, tenant string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM directories WHERE tenant = ?`), tenant)
		if err := affected(res, err, catalog.ErrNoSuchDirectory); err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM directory_groups WHERE tenant = ?`), tenant)
		return err
	})
	return wrap("delete directory", err)
}

func (s *Store) RecordDirectorySync(ctx context.Context, tenant string, at time.Time, result string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE directories SET last_sync = ?, last_result = ? WHERE tenant = ?`), nanos(at), result, tenant)
		return affected(res, err, catalog.ErrNoSuchDirectory)
	})
	return wrap("record directory sync", err)
}

const directoryUserCols = `tenant, user_name, external_id, login, dn, display_name, groups, synced`

func scanDirectoryUser(sc interface{ Scan(...any) error }) (catalog.DirectoryUser, error) {
	var u catalog.DirectoryUser
	var groups string
	var synced int64
	err := sc.Scan(&u.Tenant, &u.User, &u.ExternalID, &u.Login, &u.DN, &u.DisplayName, &groups, &synced)
	u.Synced = fromNanos(synced)
	if groups != "" {
		// A newline cannot be in a group name the directory package keeps.
		u.Groups = strings.Split(groups, "\n")
	}
	return u, err
}

func (s *Store) ImportDirectoryUser(ctx context.Context, link catalog.DirectoryUser, u catalog.User) (catalog.User, bool, error) {
	var out catalog.User
	var changed bool
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		changed = false
		var name string
		err := s.row(ctx, tx, s.q(`SELECT user_name FROM directory_users WHERE tenant = ? AND external_id = ? {{forupdate}}`), link.Tenant, link.ExternalID).Scan(&name)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := s.createLinked(ctx, tx, link, u); err != nil {
				return err
			}
			name, changed = link.User, true
		case err != nil:
			return err
		}
		have, err := scanUser(s.row(ctx, tx, s.q(`SELECT `+userCols+` FROM users WHERE tenant = ? AND name = ?`), link.Tenant, name))
		if errors.Is(err, sql.ErrNoRows) {
			// The link of a user deleted some other way than DeleteUser
			// (never by the catalog's own calls): gone with it.
			return catalog.ErrNoSuchUser
		}
		if err != nil {
			return err
		}
		email, err := s.freeEmail(ctx, tx, u.Email, link.Tenant, name)
		if err != nil {
			return err
		}
		if have.Role != u.Role || have.Email != email || have.Disabled != u.Disabled {
			if _, err := s.exec(ctx, tx, s.q(`UPDATE users SET role = ?, email = ?, disabled = ? WHERE tenant = ? AND name = ?`),
				u.Role, email, boolInt(u.Disabled), link.Tenant, name); err != nil {
				return err
			}
			if u.Disabled && !have.Disabled {
				if err := s.endSessions(ctx, tx, link.Tenant, name); err != nil {
					return err
				}
			}
			have.Role, have.Email, have.Disabled, changed = u.Role, email, u.Disabled, true
		}
		if _, err := s.exec(ctx, tx, s.q(`UPDATE directory_users SET login = ?, dn = ?, display_name = ?, groups = ?, synced = ? WHERE tenant = ? AND user_name = ?`),
			link.Login, link.DN, link.DisplayName, strings.Join(link.Groups, "\n"), nanos(link.Synced), link.Tenant, name); err != nil {
			return err
		}
		out = have
		if changed {
			return s.changed(ctx, tx)
		}
		return nil
	})
	return out, changed, wrap("import directory user", err)
}

// createLinked creates the user link.User from u, linked to its entry.
func (s *Store) createLinked(ctx context.Context, tx *sql.Tx, link catalog.DirectoryUser, u catalog.User) error {
	var one int
	err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), link.Tenant).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.ErrNoSuchTenant
	}
	if err != nil {
		return err
	}
	if err := s.insertOnce(ctx, tx, catalog.ErrUserExists,
		`INSERT INTO users (tenant, name, role, canonical_id, email, created, disabled) VALUES (?, ?, ?, ?, '', ?, ?) ON CONFLICT (tenant, name) DO NOTHING`,
		link.Tenant, link.User, u.Role, u.CanonicalID, nanos(u.CreatedAt), boolInt(u.Disabled)); err != nil {
		return err
	}
	// A stale link of that name (its user deleted through SQL) goes.
	if _, err := s.exec(ctx, tx, s.q(`DELETE FROM directory_users WHERE tenant = ? AND user_name = ?`), link.Tenant, link.User); err != nil {
		return err
	}
	_, err = s.exec(ctx, tx, s.q(`INSERT INTO directory_users (`+directoryUserCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
		link.Tenant, link.User, link.ExternalID, link.Login, link.DN, link.DisplayName, strings.Join(link.Groups, "\n"), nanos(link.Synced))
	return err
}

// freeEmail is email if no user but tenant/name has it, else "".
func (s *Store) freeEmail(ctx context.Context, tx *sql.Tx, email, tenant, name string) (string, error) {
	if email == "" {
		return "", nil
	}
	var t, n string
	err := s.row(ctx, tx, s.q(`SELECT tenant, name FROM users WHERE email = ?`), email).Scan(&t, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && t == tenant && n == name:
		return email, nil
	case err != nil:
		return "", err
	}
	return "", nil
}

// endSessions removes the console sessions of a user, those it signed
// in with its keys too.
func (s *Store) endSessions(ctx context.Context, tx *sql.Tx, tenant, name string) error {
	_, err := s.exec(ctx, tx, s.q(`DELETE FROM console_sessions WHERE tenant = ? AND user_name = ?`), tenant, name)
	return err
}

func (s *Store) DirectoryUsers(ctx context.Context, tenant string) ([]catalog.DirectoryUser, error) {
	return queryAll(ctx, s, "list directory users", scanDirectoryUser,
		`SELECT `+directoryUserCols+` FROM directory_users WHERE tenant = ? ORDER BY user_name`, tenant)
}

func (s *Store) DirectoryUser(ctx context.Context, tenant, externalID string) (catalog.DirectoryUser, error) {
	return s.directoryUser(ctx, `external_id`, tenant, externalID)
}

func (s *Store) DirectoryUserByLogin(ctx context.Context, tenant, login string) (catalog.DirectoryUser, error) {
	return s.directoryUser(ctx, `login`, tenant, login)
}

func (s *Store) directoryUser(ctx context.Context, col, tenant, v string) (catalog.DirectoryUser, error) {
	u, err := scanDirectoryUser(s.row(ctx, nil, s.q(`SELECT `+directoryUserCols+` FROM directory_users WHERE tenant = ? AND `+col+` = ? ORDER BY user_name LIMIT 1`), tenant, v))
	if errors.Is(err, sql.ErrNoRows) {
		return u, catalog.ErrNoSuchUser
	}
	return u, wrap("get directory user", err)
}

func (s *Store) SetUserDisabled(ctx context.Context, tenant, name string, disabled bool) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE users SET disabled = ? WHERE tenant = ? AND name = ?`), boolInt(disabled), tenant, name)
		if err := affected(res, err, catalog.ErrNoSuchUser); err != nil {
			return err
		}
		if disabled {
			return s.endSessions(ctx, tx, tenant, name)
		}
		return nil
	})
	return wrap("set user disabled", err)
}

func (s *Store) ReplaceDirectoryGroups(ctx context.Context, tenant string, gs []catalog.DirectoryGroup) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM directory_groups WHERE tenant = ?`), tenant); err != nil {
			return err
		}
		for _, g := range gs {
			if _, err := s.exec(ctx, tx, s.q(`INSERT INTO directory_groups (tenant, external_id, name, dn, role, members) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (tenant, external_id) DO NOTHING`), tenant, g.ExternalID, g.Name, g.DN, g.Role, g.Members); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("replace directory groups", err)
}

func (s *Store) DirectoryGroups(ctx context.Context, tenant string) ([]catalog.DirectoryGroup, error) {
	return queryAll(ctx, s, "list directory groups", func(sc interface{ Scan(...any) error }) (catalog.DirectoryGroup, error) {
		var g catalog.DirectoryGroup
		return g, sc.Scan(&g.Tenant, &g.ExternalID, &g.Name, &g.DN, &g.Role, &g.Members)
	}, `SELECT tenant, external_id, name, dn, role, members FROM directory_groups WHERE tenant = ? ORDER BY name, external_id`, tenant)
}
