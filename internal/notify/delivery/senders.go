package delivery

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Webhook headers: the signature covers the timestamp and the body, so a
// receiver that checks it and refuses old timestamps cannot be replayed
// to; the event id lets it drop a repeat (delivery is at least once).
const (
	HeaderSignature = "X-Ostium-Signature"
	HeaderTimestamp = "X-Ostium-Timestamp"
	HeaderEventID   = "X-Ostium-Event-Id"
	HeaderEventName = "X-Ostium-Event-Name"
)

// Sign returns the X-Ostium-Signature value of a body sent at ts:
// "sha256=" and the hex HMAC-SHA256, under the target's secret, of the
// timestamp (Unix seconds, as in X-Ostium-Timestamp), a ".", and the body.
func Sign(secret string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(ts, 10)))
	m.Write([]byte("."))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// maxAnswer bounds what is read of a webhook's answer: only its status
// counts, and the connection is kept only if the rest is short.
const maxAnswer = 4 << 10

// postWebhook sends one event; any answer but 2xx is a failure.
func postWebhook(ctx context.Context, c *http.Client, url, secret string, id int64, name string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	ts := time.Now().Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(HeaderEventID, strconv.FormatInt(id, 10))
	req.Header.Set(HeaderEventName, name)
	if secret != "" {
		req.Header.Set(HeaderSignature, Sign(secret, ts, body))
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// natsConns keeps one connection per NATS server URL, made on first use
// and dropped when it fails, so that a dead server costs a dial per
// attempt rather than a connection kept retrying in the background.
type natsConns struct {
	mu      sync.Mutex
	conns   map[string]*nats.Conn
	timeout time.Duration
}

func (n *natsConns) get(url string) (*nats.Conn, error) {
	n.mu.Lock()
	c := n.conns[url]
	if c != nil && !c.IsConnected() {
		c.Close()
		delete(n.conns, url)
		c = nil
	}
	n.mu.Unlock()
	if c != nil {
		return c, nil
	}
	// Dialled outside the lock: a server that does not answer holds back
	// its own target's sends, not those to other servers.
	c, err := nats.Connect(url, nats.Timeout(n.timeout), nats.NoReconnect(), nats.Name("ostium-notifications"))
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if have := n.conns[url]; have != nil && have.IsConnected() {
		c.Close() // another send connected meanwhile
		return have, nil
	}
	if n.conns == nil {
		n.conns = map[string]*nats.Conn{}
	}
	n.conns[url] = c
	return c, nil
}

// publish sends one event and waits for the server to have it (a flush:
// the server has read everything sent before it), so that an event is
// acknowledged only once a subscriber could see it.
func (n *natsConns) publish(ctx context.Context, url, subject string, id int64, name string, body []byte) error {
	c, err := n.get(url)
	if err != nil {
		return err
	}
	msg := nats.NewMsg(subject)
	msg.Data = body
	msg.Header.Set(HeaderEventID, strconv.FormatInt(id, 10))
	msg.Header.Set(HeaderEventName, name)
	if err := c.PublishMsg(msg); err != nil {
		return err
	}
	return c.FlushWithContext(ctx)
}

func (n *natsConns) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for url, c := range n.conns {
		c.Close()
		delete(n.conns, url)
	}
}
