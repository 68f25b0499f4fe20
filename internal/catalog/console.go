package catalog

import (
	"context"
	"errors"
	"time"
)

// ErrNoSuchSession is returned for a session id the catalog does not hold.
var ErrNoSuchSession = errors.New("catalog: no such session")

// Password is a user's console password.
type Password struct {
	// Hash is the encoded hash (a PHC string, argon2id); "" = the user
	// has none and cannot sign in with one.
	Hash string
	// MustChange is set when someone else chose it: the user must
	// change it before the console lets it do anything else.
	MustChange bool
}

// Session is a console session. Its id is known to the browser only;
// the catalog keeps its SHA-256 (IDHash, hex), so a reader of the
// catalog cannot take a session over.
type Session struct {
	IDHash string
	// Subject names whom the session is for, so that a password change
	// can end the user's other sessions: "user:<tenant>/<name>" or
	// "key:<access key>".
	Subject string
	Method  string // the sign-in method: "password", "access_key", ...
	// Tenant, User and UserID (the user's canonical id) name a user's
	// session; UserID ends it when the name is given to a new user.
	Tenant, User, UserID string
	AccessKey            string // an access key's session
	CSRF                 string // the token every changing call carries
	MustChange           bool   // the password must be changed first
	Created, LastSeen    time.Time
	Expires              time.Time // absolute expiry
}

// Console is the catalog's part for the web console: passwords,
// sessions and failed sign-ins.
type Console interface {
	// SetPassword stores a user's password hash ("" removes it);
	// ErrNoSuchUser.
	SetPassword(ctx context.Context, tenant, user string, p Password) error
	// GetPassword returns a user's password (Hash "" when it has none);
	// ErrNoSuchUser.
	GetPassword(ctx context.Context, tenant, user string) (Password, error)

	CreateSession(ctx context.Context, s Session) error
	// GetSession returns a session by the hash of its id;
	// ErrNoSuchSession.
	GetSession(ctx context.Context, idHash string) (Session, error)
	// TouchSession records a session's last use.
	TouchSession(ctx context.Context, idHash string, at time.Time) error
	// UpdateSession sets whether a session must still change its password.
	UpdateSession(ctx context.Context, idHash string, mustChange bool) error
	// DeleteSession removes a session (none: no error).
	DeleteSession(ctx context.Context, idHash string) error
	// DeleteSessions removes every session of subject but keep's.
	DeleteSessions(ctx context.Context, subject, keep string) error
	// PruneSessions removes the sessions past their absolute expiry, or
	// unused since idleBefore.
	PruneSessions(ctx context.Context, now, idleBefore time.Time) error

	// SignInFailures returns how many failed sign-ins key counted since
	// its window began, and when that was; zero for a window begun
	// before since.
	SignInFailures(ctx context.Context, key string, since time.Time) (int, time.Time, error)
	// AddSignInFailure counts a failure of key at now, in a window begun
	// at now if its last one began before since; it returns the new
	// count and the window's start. Windows begun before since are
	// pruned.
	AddSignInFailure(ctx context.Context, key string, now, since time.Time) (int, time.Time, error)
	// ClearSignInFailures forgets key's failures.
	ClearSignInFailures(ctx context.Context, key string) error
}
