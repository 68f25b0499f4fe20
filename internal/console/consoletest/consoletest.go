// Package consoletest is a client of the console's JSON API for tests:
// a browser's cookie jar, the session's CSRF token on every changing
// call, and the API's errors as values.
package consoletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"
)

// Client is one browser of the console.
type Client struct {
	t    testing.TB
	Base string // the node's URL
	HTTP *http.Client
	// CSRF is the session's token, sent as X-CSRF-Token on every call
	// but GET and HEAD ("" = none sent).
	CSRF string
	// Origin, when set, is sent as the Origin header.
	Origin string
}

// New returns a client of the node at base, over hc's transport (its
// TLS trust) with a cookie jar of its own.
func New(t testing.TB, base string, hc *http.Client) *Client {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if hc != nil {
		c.Transport, c.Timeout = hc.Transport, hc.Timeout
	}
	return &Client{t: t, Base: strings.TrimSuffix(base, "/"), HTTP: c}
}

// Response is an answer: status, headers, body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Code is the API error's code, "" for a success.
func (r *Response) Code() string {
	if r.Status < 300 {
		return ""
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	json.Unmarshal(r.Body, &e)
	if e.Error.Code == "" {
		return fmt.Sprintf("HTTP%d", r.Status)
	}
	return e.Error.Code
}

// JSON decodes the body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Do calls method on path (under /console/api) with body: nil, []byte
// or io.Reader as they are, anything else as JSON.
func (c *Client) Do(method, path string, body any, header ...string) *Response {
	c.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case io.Reader:
		rd = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd, ct = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, c.Base+"/console/api"+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if c.CSRF != "" && method != "GET" && method != "HEAD" {
		req.Header.Set("X-CSRF-Token", c.CSRF)
	}
	if c.Origin != "" {
		req.Header.Set("Origin", c.Origin)
	}
	if n, ok := rd.(interface{ Len() int }); ok {
		req.ContentLength = int64(n.Len())
	}
	for i := 0; i+1 < len(header); i += 2 {
		if http.CanonicalHeaderKey(header[i]) == "Content-Length" {
			// A streamed body's length, which the client sends as given.
			n, _ := strconv.ParseInt(header[i+1], 10, 64)
			req.ContentLength = n
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Must calls Do and fails the test unless the answer has status want.
func (c *Client) Must(want int, method, path string, body any, header ...string) *Response {
	c.t.Helper()
	r := c.Do(method, path, body, header...)
	if r.Status != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	return r
}

// SignIn signs in with the fields given (tenant, user, password or
// access_key, secret_key) and keeps the session's CSRF token.
func (c *Client) SignIn(fields map[string]string) *Response {
	c.t.Helper()
	r := c.Do("POST", "/session", fields)
	if r.Status == http.StatusOK {
		var s struct {
			CSRF string `json:"csrf_token"`
		}
		r.JSON(c.t, &s)
		c.CSRF = s.CSRF
	}
	return r
}

// MustSignIn signs in or fails the test.
func (c *Client) MustSignIn(fields map[string]string) *Response {
	c.t.Helper()
	r := c.SignIn(fields)
	if r.Status != http.StatusOK {
		c.t.Fatalf("sign in %v: %d %s", fields["user"]+fields["access_key"], r.Status, r.Body)
	}
	return r
}

// Key signs in with an access key.
func (c *Client) Key(accessKey, secret string) *Response {
	c.t.Helper()
	return c.MustSignIn(map[string]string{"access_key": accessKey, "secret_key": secret})
}
