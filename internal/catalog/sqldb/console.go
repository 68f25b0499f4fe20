package sqldb

import (
	"context"
	"database/sql"
	"errors"

	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Console = (*Store)(nil)

// A password is no identity the nodes cache, so changing one is a plain
// write: the identity generation stays.
func (s *Store) SetPassword(ctx context.Context, tenant, user string, p catalog.Password) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE users SET password = ?, password_must_change = ? WHERE tenant = ? AND name = ?`),
			p.Hash, boolInt(p.MustChange), tenant, user)
		return affected(res, err, catalog.ErrNoSuchUser)
	})
	return wrap("set password", err)
}

func (s *Store) GetPassword(ctx context.Context, tenant, user string) (catalog.Password, error) {
	var p catalog.Password
	var must int
	err := s.row(ctx, nil, s.q(`SELECT password, password_must_change FROM users WHERE tenant = ? AND name = ?`), tenant, user).Scan(&p.Hash, &must)
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ErrNoSuchUser
	}
	p.MustChange = must != 0
	return p, wrap("get password", err)
}

const sessionCols = `id_hash, subject, method, tenant, user_name, user_id, access_key, csrf, must_change, created, last_seen, expires`

func (s *Store) CreateSession(ctx context.Context, ss catalog.Session) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO console_sessions (`+sessionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			ss.IDHash, ss.Subject, ss.Method, ss.Tenant, ss.User, ss.UserID, ss.AccessKey, ss.CSRF, boolInt(ss.MustChange),
			nanos(ss.Created), nanos(ss.LastSeen), nanos(ss.Expires))
		return err
	})
	return wrap("create session", err)
}

func (s *Store) GetSession(ctx context.Context, idHash string) (catalog.Session, error) {
	var ss catalog.Session
	var must int
	var created, seen, expires int64
	err := s.row(ctx, nil, s.q(`SELECT `+sessionCols+` FROM console_sessions WHERE id_hash = ?`), idHash).Scan(
		&ss.IDHash, &ss.Subject, &ss.Method, &ss.Tenant, &ss.User, &ss.UserID, &ss.AccessKey, &ss.CSRF, &must, &created, &seen, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return ss, catalog.ErrNoSuchSession
	}
	ss.MustChange, ss.Created, ss.LastSeen, ss.Expires = must != 0, fromNanos(created), fromNanos(seen), fromNanos(expires)
	return ss, wrap("get session", err)
}

func (s *Store) TouchSession(ctx context.Context, idHash string, at time.Time) error {
	return s.sessionWrite(ctx, "touch session", `UPDATE console_sessions SET last_seen = ? WHERE id_hash = ?`, nanos(at), idHash)
}

func (s *Store) UpdateSession(ctx context.Context, idHash string, mustChange bool) error {
	return s.sessionWrite(ctx, "update session", `UPDATE console_sessions SET must_change = ? WHERE id_hash = ?`, boolInt(mustChange), idHash)
}

func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return s.sessionWrite(ctx, "delete session", `DELETE FROM console_sessions WHERE id_hash = ?`, idHash)
}

func (s *Store) DeleteSessions(ctx context.Context, subject, keep string) error {
	return s.sessionWrite(ctx, "delete sessions", `DELETE FROM console_sessions WHERE subject = ? AND id_hash <> ?`, subject, keep)
}

func (s *Store) PruneSessions(ctx context.Context, now, idleBefore time.Time) error {
	return s.sessionWrite(ctx, "prune sessions", `DELETE FROM console_sessions WHERE expires <= ? OR last_seen < ?`, nanos(now), nanos(idleBefore))
}

func (s *Store) sessionWrite(ctx context.Context, what, query string, args ...any) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, s.q(query), args...)
		return err
	})
	return wrap(what, err)
}

func (s *Store) SignInFailures(ctx context.Context, key string, since time.Time) (int, time.Time, error) {
	var n int
	var start int64
	err := s.row(ctx, nil, s.q(`SELECT failures, window_start FROM console_signin_failures WHERE fkey = ? AND window_start >= ?`), key, nanos(since)).Scan(&n, &start)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	}
	return n, fromNanos(start), wrap("sign-in failures", err)
}

func (s *Store) AddSignInFailure(ctx context.Context, key string, now, since time.Time) (int, time.Time, error) {
	var n int
	var start int64
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		// The old windows of every key go here, so the table holds at
		// most the keys that failed within one window.
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM console_signin_failures WHERE window_start < ?`), nanos(since)); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO console_signin_failures (fkey, window_start, failures) VALUES (?, ?, 1)
			ON CONFLICT (fkey) DO UPDATE SET failures = console_signin_failures.failures + 1`), key, nanos(now)); err != nil {
			return err
		}
		return s.row(ctx, tx, s.q(`SELECT failures, window_start FROM console_signin_failures WHERE fkey = ?`), key).Scan(&n, &start)
	})
	return n, fromNanos(start), wrap("add sign-in failure", err)
}

func (s *Store) ClearSignInFailures(ctx context.Context, key string) error {
	return s.sessionWrite(ctx, "clear sign-in failures", `DELETE FROM console_signin_failures WHERE fkey = ?`, key)
}
