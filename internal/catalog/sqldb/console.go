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
		if err := affected(res, err, catalog.ErrNoSuchUser); err != nil {
			return err
		}
		// A device earned trust with the old password; whoever knew it
		// may not keep that trust.
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM console_devices WHERE tenant = ? AND user_name = ?`), tenant, user)
		return err
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

func (s *Store) ReserveSignIn(ctx context.Context, key string, now time.Time, lim catalog.SignInLimit) (time.Time, bool, error) {
	// A key held back is refused on a read: a flood of attempts for one
	// user writes nothing. (A read older than a release can only refuse
	// one attempt more.)
	var n0 int
	var last0 int64
	err := s.row(ctx, nil, s.q(`SELECT attempts, last_at FROM console_signin_attempts WHERE fkey = ?`), key).Scan(&n0, &last0)
	if err == nil {
		if _, next, ok := lim.Count(n0, fromNanos(last0), now); !ok {
			return next, false, nil
		}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, wrap("reserve sign-in", err)
	}
	var next time.Time
	var ok bool
	err = s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM console_signin_attempts WHERE last_at < ?`), nanos(now.Add(-lim.Cap-lim.Forget))); err != nil {
			return err
		}
		// The row exists before it is read locked, so that concurrent
		// first attempts of a key wait for each other too.
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO console_signin_attempts (fkey, attempts, last_at) VALUES (?, 0, 0)
			ON CONFLICT (fkey) DO NOTHING`), key); err != nil {
			return err
		}
		var n int
		var last int64
		if err := s.row(ctx, tx, s.q(`SELECT attempts, last_at FROM console_signin_attempts WHERE fkey = ? {{forupdate}}`), key).Scan(&n, &last); err != nil {
			return err
		}
		var count int
		count, next, ok = lim.Count(n, fromNanos(last), now)
		if !ok {
			return nil
		}
		_, err := s.exec(ctx, tx, s.q(`UPDATE console_signin_attempts SET attempts = ?, last_at = ? WHERE fkey = ?`),
			count, max(last, nanos(now)), key)
		return err
	})
	return next, ok, wrap("reserve sign-in", err)
}

func (s *Store) ReleaseSignIn(ctx context.Context, key string) error {
	return s.sessionWrite(ctx, "release sign-in", `UPDATE console_signin_attempts SET attempts = attempts - 1 WHERE fkey = ? AND attempts > 0`, key)
}

func (s *Store) ClearSignIns(ctx context.Context, key string) error {
	return s.sessionWrite(ctx, "clear sign-ins", `DELETE FROM console_signin_attempts WHERE fkey = ?`, key)
}

const deviceCols = `token_hash, subject, tenant, user_name, created, expires`

func (s *Store) CreateDevice(ctx context.Context, d catalog.Device, keep int) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM console_devices WHERE expires <= ?`), nanos(d.Created)); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO console_devices (`+deviceCols+`) VALUES (?, ?, ?, ?, ?, ?)`),
			d.TokenHash, d.Subject, d.Tenant, d.User, nanos(d.Created), nanos(d.Expires)); err != nil {
			return err
		}
		// A subject keeps its newest devices only: signing in again and
		// again without keeping the cookie grows nothing.
		_, err := s.exec(ctx, tx, s.q(`DELETE FROM console_devices WHERE subject = ? AND token_hash NOT IN
			(SELECT token_hash FROM console_devices WHERE subject = ? ORDER BY created DESC, token_hash LIMIT ?)`), d.Subject, d.Subject, keep)
		return err
	})
	return wrap("create device", err)
}

func (s *Store) GetDevice(ctx context.Context, tokenHash string) (catalog.Device, error) {
	var d catalog.Device
	var created, expires int64
	err := s.row(ctx, nil, s.q(`SELECT `+deviceCols+` FROM console_devices WHERE token_hash = ?`), tokenHash).Scan(
		&d.TokenHash, &d.Subject, &d.Tenant, &d.User, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return d, catalog.ErrNoSuchDevice
	}
	d.Created, d.Expires = fromNanos(created), fromNanos(expires)
	return d, wrap("get device", err)
}

func (s *Store) DeleteDevice(ctx context.Context, tokenHash string) error {
	return s.sessionWrite(ctx, "delete device", `DELETE FROM console_devices WHERE token_hash = ?`, tokenHash)
}
