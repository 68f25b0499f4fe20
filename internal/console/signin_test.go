package console_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ostiumio/ostium/internal/console/consoletest"
	"github.com/ostiumio/ostium/internal/node"
	"github.com/ostiumio/ostium/internal/node/nodetest"
)

// post signs in with fields over hc, with no cookie (a stranger's
// browser), from the address xff names when the node trusts loopback
// as its proxy; safe from any goroutine.
func post(hc *http.Client, base string, fields map[string]string, xff string) (int, http.Header, error) {
	body, _ := json.Marshal(fields)
	req, err := http.NewRequest("POST", base+"/console/api/session", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

func deviceCookie(t *testing.T, r *consoletest.Response) *http.Cookie {
	t.Helper()
	return namedCookie(t, r, "ostium_device")
}

func namedCookie(t *testing.T, r *consoletest.Response, name string) *http.Cookie {
	t.Helper()
	for _, line := range r.Header.Values("Set-Cookie") {
		cs, err := http.ParseSetCookie(line)
		if err == nil && cs.Name == name {
			return cs
		}
	}
	t.Fatalf("no device cookie in %v", r.Header)
	return nil
}

// lockOut makes strangers fail 5 times as tenant/user: the user's
// stranger attempts are then held back.
func lockOut(t *testing.T, srv *nodetest.Server, tenant, user string) {
	t.Helper()
	c := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	for i := 0; i < 5; i++ {
		if r := c.SignIn(map[string]string{"tenant": tenant, "user": user, "password": "guessed-" + strconv.Itoa(i)}); r.Status != 401 {
			t.Fatalf("guess %d: %d %s", i+1, r.Status, r.Body)
		}
	}
}

// TestSignInReservedBeforeHashing: 60 sign-ins for one user at once, 59
// wrong and one right, half through each of two nodes sharing the
// catalog, against a limit of 5: at most 5 wrong ones are evaluated
// (answered 401; the right one, if evaluated, 200); every other one is
// refused unevaluated (429, or 503 when its
// lane is full). Each attempt is counted before its password is hashed,
// not after.
func TestSignInReservedBeforeHashing(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	peer := nodetest.StartPeer(t, srv, nodetest.Options{})
	onboard(t, srv, "acme")
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[int]int{}
	for i := 0; i < 60; i++ {
		pass := "wrong-pass-" + strconv.Itoa(i)
		if i == 30 {
			pass = "bob-pass-1"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			to := srv
			if i%2 == 1 {
				to = peer
			}
			status, _, err := post(to.Console.Client(), to.Console.URL, map[string]string{"tenant": "acme", "user": "bob", "password": pass}, "")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			answers[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("answers: %v", answers)
	// The limit counts failures: the right password, when it is among the
	// evaluated, releases its reservation, so at most 5 wrong ones and the
	// right one are evaluated.
	if failed := answers[401]; failed > 5 || failed+answers[200] == 0 || answers[200] > 1 {
		t.Fatalf("%d wrong of 60 concurrent attempts were evaluated against a limit of 5 (answers %v)", failed, answers)
	}
	if answers[429] == 0 || answers[200]+answers[401]+answers[429]+answers[503] != 60 {
		t.Fatalf("answers %v: want the attempts past the limit refused with 429 (or 503), nothing else", answers)
	}
}

// TestSignInFlood: 150 wrong sign-ins at once, again and again, each
// from an address of its own (behind a trusted proxy) and for the user
// under attack or for users that do not exist. Meanwhile a browser that
// signed in as that user before signs in at its first try, and
// anonymous reads of a public object keep answering 200: the flood
// holds no request slot of the S3 endpoint, and the browsers known to
// their user have a lane of their own. The strangers' lane answers 503
// with Retry-After at once when full.
func TestSignInFlood(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.TrustedProxies = []string{"127.0.0.1", "::1"}
	}})
	_, bob := onboard(t, srv, "acme")
	rc := root(t, srv)
	rc.Must(201, "POST", "/buckets", map[string]string{"name": "open"})
	rc.Must(204, "DELETE", "/buckets/open/settings/public-access-block", nil)
	rc.Must(200, "PUT", "/buckets/open/settings/policy",
		[]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::open/*"}]}`))
	rc.Must(200, "PUT", "/buckets/open/object?key=hello", []byte("hello, world"))
	bob.Must(204, "DELETE", "/session", nil)

	var stop atomic.Bool
	var answered, busy, busyNoRetry atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	defer hc.CloseIdleConnections()
	for i := 0; i < 150; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				n := next.Add(1)
				user := "bob"
				if n%2 == 0 {
					user = "ghost-" + strconv.FormatInt(n, 10)
				}
				addr := fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255)
				status, h, err := post(hc, srv.Console.URL, map[string]string{"tenant": "acme", "user": user, "password": "flood-pass-1"}, addr)
				if err != nil {
					if !stop.Load() {
						t.Error(err)
					}
					return
				}
				answered.Add(1)
				if status == 503 {
					busy.Add(1)
					if h.Get("Retry-After") == "" {
						busyNoRetry.Add(1)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	// The flood is on once it has had answers of every kind it gets.
	for deadline := time.Now().Add(2 * time.Minute); answered.Load() < 300; {
		if time.Now().After(deadline) {
			t.Fatalf("the flood got %d answers in 2 minutes", answered.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}

	start := time.Now()
	r := bob.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	t.Logf("bob's known browser signed in during the flood in %v: %d", time.Since(start), r.Status)
	if r.Status != 200 {
		t.Fatalf("bob's known browser during the flood: %d %s", r.Status, r.Body)
	}
	bob.Must(200, "GET", "/buckets", nil)

	for i := 0; i < 20; i++ {
		resp, err := http.Get(srv.URL + "/open/hello")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "hello, world" {
			t.Fatalf("anonymous read %d during the flood: %d %s", i+1, resp.StatusCode, body)
		}
	}
	if answered.Load() <= 300 {
		t.Fatal("the flood stopped before the checks ended")
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("flood: %d answers, %d of them 503", answered.Load(), busy.Load())
	if busy.Load() == 0 || busyNoRetry.Load() != 0 {
		t.Fatalf("flood: %d answers 503, %d without Retry-After: want a full lane refused at once, with Retry-After", busy.Load(), busyNoRetry.Load())
	}
}

// TestDeviceCookie: a browser that signed in gets a device cookie
// (random, HttpOnly, SameSite=Strict, sent to sign-in only). When
// strangers' failures hold the user back, that browser still signs in
// with the right password, and only it: a new browser waits (a minute
// at first, not the whole window), the device cookie alone signs no one
// in, a device's token changes at each sign-in (an old copy is a
// stranger's), and a device has its own small limit of failures.
func TestDeviceCookie(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	onboard(t, srv, "acme")
	known := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	ck := deviceCookie(t, known.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"}))
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console/api/session" || ck.Secure || len(ck.Value) < 43 ||
		ck.MaxAge < 7*24*3600 {
		t.Fatalf("device cookie %+v: want HttpOnly, SameSite=Strict, Path=/console/api/session, not Secure over HTTP, 256 random bits, long-lived", ck)
	}
	known.Must(204, "DELETE", "/session", nil)

	lockOut(t, srv, "acme", "bob")
	stranger := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	r := stranger.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	wait, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	if r.Status != 429 || r.Code() != "TooManyAttempts" || wait < 1 || wait > 60 {
		t.Fatalf("a new browser with the right password after 5 failures: %d %s, Retry-After %q; want 429 for at most a minute",
			r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	// The known browser is not held back.
	r = known.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	known.Must(200, "GET", "/buckets", nil)
	rotated := deviceCookie(t, r)
	if rotated.Value == ck.Value {
		t.Fatal("the device token did not change at sign-in")
	}
	// A copy of the old token is a stranger's: held back.
	thief := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if r := thief.Do("POST", "/session", map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"},
		"Cookie", "ostium_device="+ck.Value); r.Status != 429 {
		t.Fatalf("the old device token: %d %s, want 429 as a stranger", r.Status, r.Body)
	}
	// The current token with a wrong password signs no one in.
	if r := thief.Do("POST", "/session", map[string]string{"tenant": "acme", "user": "bob", "password": "wrong-pass-9"},
		"Cookie", "ostium_device="+rotated.Value); r.Status != 401 {
		t.Fatalf("a device cookie with a wrong password: %d %s, want 401", r.Status, r.Body)
	}
	// The device's own limit: 5 failures in all (the thief's one above
	// counts), then even the right password waits.
	known.Must(204, "DELETE", "/session", nil)
	for i := 0; i < 4; i++ {
		if r := known.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "typo-pass-" + strconv.Itoa(i)}); r.Status != 401 {
			t.Fatalf("the device's failure %d: %d %s", i+2, r.Status, r.Body)
		}
	}
	if r := known.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"}); r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the device after 5 failures: %d %s, want 429", r.Status, r.Body)
	}
}

// TestDeviceCookieOtherUser: a device cookie is its user's: with ann's,
// attempts for bob are strangers' (held back when bob is), and its
// token is not ann's to lose either.
func TestDeviceCookieOtherUser(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann, _ := onboard(t, srv, "acme")
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "ann-pass-2"})
	ann.Must(204, "DELETE", "/session", nil)
	lockOut(t, srv, "acme", "bob")
	if r := ann.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"}); r.Status != 429 {
		t.Fatalf("bob's password from ann's known browser while bob is held back: %d %s, want 429", r.Status, r.Body)
	}
	lockOut(t, srv, "acme", "ann")
	ann.MustSignIn(map[string]string{"tenant": "acme", "user": "ann", "password": "ann-pass-2"})
}

// TestPasswordChangeRevokesDevices: a new password forgets the user's
// devices, whoever set it; the browser that changed its own stays known.
// A session changes its password even while strangers hold its user
// back.
func TestPasswordChangeRevokesDevices(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{})
	ann, b1 := onboard(t, srv, "acme")
	ann.Must(204, "POST", "/password", map[string]string{"current": "first-pass-1", "new": "ann-pass-2"})
	b2 := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	b2.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-1"})
	b2.Must(204, "DELETE", "/session", nil)

	lockOut(t, srv, "acme", "bob")
	b1.Must(204, "POST", "/password", map[string]string{"current": "bob-pass-1", "new": "bob-pass-2"})
	b1.Must(204, "DELETE", "/session", nil)
	if r := b2.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-2"}); r.Status != 429 {
		t.Fatalf("a browser known before bob's change of password, while bob is held back: %d %s, want 429", r.Status, r.Body)
	}
	b1.MustSignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "bob-pass-2"})
	b1.Must(204, "DELETE", "/session", nil)

	// A reset by the tenant's admin forgets them all.
	ann.Must(204, "PUT", "/tenants/acme/users/bob/password", map[string]string{"password": "reset-pass-3"})
	if r := b1.SignIn(map[string]string{"tenant": "acme", "user": "bob", "password": "reset-pass-3"}); r.Status != 429 {
		t.Fatalf("bob's known browser after a reset, while bob is held back: %d %s, want 429", r.Status, r.Body)
	}
}

// TestDeviceCookieAccessKey: the provider signs in with its access key;
// its known browser gets through when strangers hold the key back, a
// new browser waits. Over TLS the device cookie is Secure, for Path=/,
// under the "__Host-" prefix (which browsers take from the host alone).
func TestDeviceCookieAccessKey(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{TLS: true})
	known := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	if ck := namedCookie(t, known.Key(nodetest.AccessKey, nodetest.SecretKey), "__Host-ostium_device"); !ck.Secure || !ck.HttpOnly || ck.Path != "/" || ck.Domain != "" {
		t.Fatalf("device cookie over TLS: %+v, want Secure, HttpOnly, Path=/, no Domain", ck)
	}
	known.Must(204, "DELETE", "/session", nil)
	stranger := consoletest.New(t, srv.Console.URL, srv.Console.Client())
	for i := 0; i < 5; i++ {
		if r := stranger.SignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": "guess-" + strconv.Itoa(i)}); r.Status != 401 {
			t.Fatalf("guess %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := stranger.SignIn(map[string]string{"access_key": nodetest.AccessKey, "secret_key": nodetest.SecretKey}); r.Status != 429 {
		t.Fatalf("a new browser with the root key after 5 failures: %d %s, want 429", r.Status, r.Body)
	}
	known.Key(nodetest.AccessKey, nodetest.SecretKey)
	var s struct {
		Provider bool `json:"provider"`
	}
	known.Must(200, "GET", "/session", nil).JSON(t, &s)
	if !s.Provider {
		t.Fatal("the provider's known browser is not signed in as the provider")
	}
}

// TestSignInAddressLimitPerIPv6Network: the addresses of one IPv6 /64
// are one client's (a host is handed the whole network), so their
// failures are counted together: past the 20 free attempts of an address
// the next from the same /64 waits, whatever address of it sends, while
// another network and IPv4 addresses are not held back. Each attempt
// names a user of its own, so no user's limit is what stops it.
func TestSignInAddressLimitPerIPv6Network(t *testing.T) {
	srv := nodetest.Start(t, nodetest.Options{Config: func(c *node.Config) {
		c.TrustedProxies = []string{"127.0.0.1", "::1"}
	}})
	onboard(t, srv, "acme")
	hc := srv.Console.Client()
	try := func(i int, addr string) int {
		t.Helper()
		status, _, err := post(hc, srv.Console.URL, map[string]string{"tenant": "acme", "user": "ghost-" + strconv.Itoa(i), "password": "wrong-pass-1"}, addr)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	for i := range 20 {
		if status := try(i, fmt.Sprintf("2001:db8:0:1::%x", i+1)); status != 401 {
			t.Fatalf("attempt %d of one /64: %d, want 401 (within the address's free attempts)", i+1, status)
		}
	}
	if status := try(20, "2001:db8:0:1:ffff:ffff:ffff:fffe"); status != 429 {
		t.Fatalf("the 21st attempt from the same /64, from an address not used before: %d, want 429", status)
	}
	if status := try(21, "2001:db8:0:2::1"); status != 401 {
		t.Fatalf("an attempt from another /64: %d, want 401", status)
	}
	if status := try(22, "192.0.2.7"); status != 401 {
		t.Fatalf("an attempt from an IPv4 address: %d, want 401", status)
	}
}
