package console

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
)

// Sign-in is where a stranger makes the node work: a password hash
// takes 64 MiB for a tenth of a second. Its limits:
//
//   - Every attempt is counted in the catalog before it is evaluated
//     (catalog.Console.ReserveSignIn), so concurrent attempts on any
//     number of nodes cannot all pass a limit checked before the first
//     of them failed. A success, or an attempt never evaluated, is
//     taken back; a failure stays counted.
//   - A browser that signed in as a subject before carries a device
//     cookie (random, HttpOnly, SameSite=Strict; the catalog keeps its
//     hash, bound to the subject). Its attempts for that subject are
//     counted per device, not per user and address: what strangers
//     built up against the user does not keep it out (OWASP's device
//     cookies). A stolen device cookie alone signs no one in: the
//     password is checked all the same, and the device's own limit
//     bounds guesses made with it. Attempts without a device cookie of
//     their subject are counted per user and per client address.
//   - Past its free attempts, a key waits a delay that doubles with each
//     further attempt, up to the failure window; it is forgotten a
//     window after its delay ended.
//   - The two kinds run in lanes of their own: a bounded number in
//     flight (more get 503 at once), a few hashes at a time, a short
//     wait for one. Neither takes the S3 endpoint's request slots, so a
//     flood of strangers' attempts starves neither the anonymous reads
//     nor the browsers that signed in before.
//
// See docs/console.md, "Sign-in limits".

// DeviceCookie is the device cookie's name over plain HTTP, where it is
// sent to sign-in only (devicePath); over HTTPS it is SecureDeviceCookie,
// for Path=/ as the "__Host-" prefix requires: a browser then takes it
// from the console's host alone, so no sibling host name (a
// virtual-hosted bucket's) can plant one.
const (
	DeviceCookie       = "ostium_device"
	SecureDeviceCookie = "__Host-" + DeviceCookie
)

// deviceCookie is the device cookie's name and path for r.
func deviceCookie(r *http.Request) (name, path string) {
	if iam.OriginOf(r.Context()).Secure {
		return SecureDeviceCookie, "/"
	}
	return DeviceCookie, devicePath
}

// Defaults of the device cookies.
const (
	DefaultDeviceMaxAge      = 30 * 24 * time.Hour
	DefaultMaxDeviceFailures = 5
	// lockoutBase is the first delay past a key's free attempts.
	lockoutBase = time.Minute
	// maxDevices bounds the devices a subject keeps (the newest).
	maxDevices = 16
	// maxSignInBody bounds a sign-in's body, read before any limit applies.
	maxSignInBody = 8 << 10
)

// devicePath is where the browser sends the device cookie: to sign-in
// only.
const devicePath = API + "session"

// lane is a share of the sign-in work: at most cap(in) attempts in
// flight (more are refused at once), cap(hashing) password hashes at a
// time, and a wait of at most wait for one.
type lane struct {
	in, hashing chan struct{}
	wait        time.Duration
}

func newLane(inFlight, hashes int, wait time.Duration) *lane {
	return &lane{in: make(chan struct{}, inFlight), hashing: make(chan struct{}, hashes), wait: wait}
}

var errSignInBusy = apiError(http.StatusServiceUnavailable, "SlowDown", "Too many sign-ins at once; try again in a moment")

// enter admits an attempt to the lane, or refuses it at once.
func (l *lane) enter() (leave func(), err error) {
	select {
	case l.in <- struct{}{}:
		return func() { <-l.in }, nil
	default:
		return nil, errSignInBusy
	}
}

// hashSlot waits, at most the lane's wait, for a hashing slot.
func (l *lane) hashSlot(ctx context.Context) (release func(), err error) {
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.hashing <- struct{}{}:
		return func() { <-l.hashing }, nil
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, errSignInBusy
}

// Lanes' sizes: 4 hashes at once in all (256 MiB), as many attempts
// waiting as hashes take about a second, a wait of two.
const (
	laneInFlight = 16
	laneHashes   = 2
	laneWait     = 2 * time.Second
)

// hashing marks a Method whose check hashes a password: it runs in one
// of its lane's hashing slots.
type hashing interface{ hashes() }

func (passwordMethod) hashes() {}

// reservation is one key an attempt is counted on, with its limit.
type reservation struct {
	key string
	lim catalog.SignInLimit
}

func (h *Handler) limit(free int) catalog.SignInLimit {
	return catalog.SignInLimit{Free: free, Base: min(lockoutBase, h.o.FailureWindow), Cap: h.o.FailureWindow, Forget: h.o.FailureWindow}
}

// reserve counts the attempt on every key, before it is evaluated; when
// a key may not try yet it takes back what it counted and answers 429
// with the wait.
func (h *Handler) reserve(ctx context.Context, rs []reservation) error {
	now := h.o.Now()
	for i, r := range rs {
		next, ok, err := h.con.ReserveSignIn(ctx, r.key, now, r.lim)
		if err == nil && !ok {
			err = tooMany(next.Sub(now))
		}
		if err != nil {
			h.release(ctx, rs[:i])
			return err
		}
	}
	return nil
}

// release takes back an attempt's reservations, even when the client
// has gone (a reservation left would count as a failure).
func (h *Handler) release(ctx context.Context, rs []reservation) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, r := range rs {
		if err := h.con.ReleaseSignIn(ctx, r.key); err != nil {
			slog.Warn("console: release a sign-in attempt", "key", r.key, "err", err)
		}
	}
}

// evaluate checks the credentials, in one of the lane's hashing slots
// if the method hashes.
func (h *Handler) evaluate(ctx context.Context, l *lane, m Method, in SignIn) (Subject, error) {
	if _, ok := m.(hashing); ok {
		release, err := l.hashSlot(ctx)
		if err != nil {
			return Subject{}, err
		}
		defer release()
	}
	return m.SignIn(ctx, in)
}

// check runs a sign-in attempt through its lane and limits: the subject
// on success, with the hash of the trusted device cookie it came with
// ("" none).
func (h *Handler) check(r *http.Request, m Method, in SignIn) (Subject, string, error) {
	ctx := r.Context()
	claimant := m.Claimant(in)
	device := h.trustedDevice(r, claimant)
	l, rs := h.strangers, []reservation{{"addr:" + addrKey(clientAddr(r)), h.limit(h.o.MaxAddrFailures)}}
	if claimant != "" {
		rs = append(rs, reservation{countKey(claimant), h.limit(h.o.MaxUserFailures)})
	}
	if device != "" {
		l, rs = h.devices, []reservation{{"device:" + device, h.limit(h.o.MaxDeviceFailures)}}
	}
	sub, err := h.attempt(ctx, l, rs, m, in)
	if err != nil {
		return Subject{}, "", err
	}
	// A success is no failure. The user's and address's counts keep the
	// failures of others: a success does not give a guesser new tries.
	if device != "" {
		err = h.con.ClearSignIns(ctx, rs[0].key)
	} else {
		h.release(ctx, rs)
	}
	return sub, device, err
}

// attempt runs one sign-in attempt in lane l, counted on rs: refused at
// once when the lane is full or a key may not try yet; a failure stays
// counted (and is audited), any other error is taken back. On success
// the caller releases or clears rs.
func (h *Handler) attempt(ctx context.Context, l *lane, rs []reservation, m Method, in SignIn) (Subject, error) {
	leave, err := l.enter()
	if err != nil {
		return Subject{}, err
	}
	defer leave()
	if err := h.reserve(ctx, rs); err != nil {
		return Subject{}, err
	}
	sub, err := h.evaluate(ctx, l, m, in)
	switch {
	case err == errInvalidCredentials:
		// Counted already. Recorded as the admin API records a refused
		// call, with whom it claimed to be (bounded: it is the client's
		// text). Throttled attempts are not, so a flood cannot fill the
		// log.
		h.o.Audit.Record(ctx, nil, catalog.AuditEntry{Action: in.auditAction(), Target: in.Method, Status: http.StatusUnauthorized,
			Outcome: errInvalidCredentials.Code, AccessKey: clip(in.AccessKey), Tenant: clip(in.Tenant), User: clip(in.User)})
		return Subject{}, err
	case err == errDirectoryUnavailable:
		// Not the claimant's failure (taken back), but a refused
		// sign-in all the same, and why: one attempt per slot of the
		// lane, so the log grows no faster than the directory times out.
		h.release(ctx, rs)
		h.o.Audit.Record(ctx, nil, catalog.AuditEntry{Action: in.auditAction(), Target: in.Method, Status: errDirectoryUnavailable.Status,
			Outcome: errDirectoryUnavailable.Code, AccessKey: clip(in.AccessKey), Tenant: clip(in.Tenant), User: clip(in.User)})
		return Subject{}, err
	case err != nil:
		h.release(ctx, rs)
		return Subject{}, err
	}
	return sub, nil
}

// addrKey is the key a client address's attempts are counted on: an
// IPv4 address, or the /64 network of an IPv6 one. A single host is
// handed a whole /64 (a server, a home line), and can send from any of
// its 2^64 addresses: counted one by one, each would bring 20 free
// attempts of its own.
func addrKey(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil || !ip.Is6() || ip.Is4In6() {
		return addr
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// countKey is the key a claimant's attempts are counted on: itself, or
// the hash of a name longer than any real one (the client's text, up to
// the body's size, would otherwise be a row of the catalog).
func countKey(claimant string) string {
	if len(claimant) <= 256 {
		return claimant
	}
	return "sha256:" + hashID(claimant)
}

// trustedDevice is the hash of the request's device cookie when it is
// one the catalog holds for subject and not expired; "" otherwise.
func (h *Handler) trustedDevice(r *http.Request, subject string) string {
	name, _ := deviceCookie(r)
	c, err := r.Cookie(name)
	if err != nil || c.Value == "" || len(c.Value) > 64 || subject == "" {
		return ""
	}
	key := hashID(c.Value)
	d, err := h.con.GetDevice(r.Context(), key)
	if err != nil || d.Subject != subject || !h.o.Now().Before(d.Expires) {
		return ""
	}
	return key
}

// rememberDevice gives the browser a new device cookie for sub, in place
// of old's (a device's token changes at every sign-in, so a copy taken
// earlier stops working once the browser signs in again). A failure is
// logged: the sign-in stands, the browser stays a stranger.
func (h *Handler) rememberDevice(w http.ResponseWriter, r *http.Request, sub Subject, old string) {
	ctx := r.Context()
	if old != "" {
		if err := h.con.DeleteDevice(ctx, old); err != nil {
			slog.Warn("console: forget a device", "err", err)
		}
	}
	token, now := randomToken(), h.o.Now().UTC()
	d := catalog.Device{TokenHash: hashID(token), Subject: subjectOf(sub), Created: now, Expires: now.Add(h.o.DeviceMaxAge)}
	if sub.Method == "password" {
		d.Tenant, d.User = sub.Tenant, sub.User
	}
	if err := h.con.CreateDevice(ctx, d, maxDevices); err != nil {
		slog.Warn("console: remember a device", "err", err)
		return
	}
	name, path := deviceCookie(r)
	http.SetCookie(w, &http.Cookie{Name: name, Value: token, Path: path, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: iam.OriginOf(ctx).Secure, MaxAge: int(h.o.DeviceMaxAge / time.Second)})
}
