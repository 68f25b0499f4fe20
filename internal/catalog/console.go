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
// sessions, sign-in attempts and the devices that signed in before.
type Console interface {
	// SetPassword stores a user's password hash ("" removes it) and, in
	// the same transaction, forgets the user's devices; ErrNoSuchUser.
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

	// ReserveSignIn counts an attempt of key at now if lim lets key try
	// now, before the attempt is evaluated, so that concurrent attempts
	// (on any node) cannot all pass a check made before the first of
	// them failed; ok is false, with when key may try next, when it may
	// not. Keys quiet for lim.Cap+lim.Forget are pruned, whatever their
	// own limit was.
	ReserveSignIn(ctx context.Context, key string, now time.Time, lim SignInLimit) (next time.Time, ok bool, err error)
	// ReleaseSignIn takes back one attempt ReserveSignIn counted for
	// key: one that succeeded, or was never evaluated.
	ReleaseSignIn(ctx context.Context, key string) error
	// ClearSignIns forgets key's attempts.
	ClearSignIns(ctx context.Context, key string) error

	// CreateDevice records a device that signed in, and drops the
	// subject's oldest devices beyond keep and every expired device.
	CreateDevice(ctx context.Context, d Device, keep int) error
	// GetDevice returns a device by the hash of its token;
	// ErrNoSuchDevice.
	GetDevice(ctx context.Context, tokenHash string) (Device, error)
	// DeleteDevice removes a device (none: no error).
	DeleteDevice(ctx context.Context, tokenHash string) error
}

// ErrNoSuchDevice is returned for a device token the catalog does not
// hold.
var ErrNoSuchDevice = errors.New("catalog: no such device")

// Device is a browser that signed in as Subject before: the console
// trusts its later sign-ins as that subject more than a stranger's. Its
// token is known to the browser only; the catalog keeps its SHA-256
// (TokenHash, hex). A user's devices (Tenant and User set) go when the
// user's password is set (SetPassword).
type Device struct {
	TokenHash        string
	Subject          string // as Session.Subject
	Tenant, User     string // "" for an access key's device
	Created, Expires time.Time
}

// SignInLimit bounds the sign-in attempts of one key (a user, a client
// address, a device): Free attempts count without delay; from then on
// each must come Wait(n) after the last one, a delay that starts at
// Base and doubles with each further attempt, up to Cap. A key whose
// last attempt is Forget past its wait starts again from none.
type SignInLimit struct {
	Free      int
	Base, Cap time.Duration
	Forget    time.Duration
}

// Wait is how long after its last attempt a key that counted n may try
// again.
func (l SignInLimit) Wait(n int) time.Duration {
	if n < l.Free {
		return 0
	}
	d := l.Base
	for i := l.Free; i < n && d < l.Cap; i++ {
		d *= 2
	}
	return min(d, l.Cap)
}

// Count decides an attempt at now of a key that counted n attempts,
// the last at last: ok, with the key's count once this one is counted
// (a forgotten key counts from none), or not yet, with when it may.
func (l SignInLimit) Count(n int, last, now time.Time) (count int, next time.Time, ok bool) {
	if n <= 0 || !now.Before(last.Add(l.Wait(n)+l.Forget)) {
		return 1, now, true
	}
	if next = last.Add(l.Wait(n)); n < l.Free || !now.Before(next) {
		return n + 1, now, true
	}
	return n, next, false
}
