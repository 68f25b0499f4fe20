// Package target sends the benchmark's S3 requests: signed with SigV4 (the
// AWS SDK's signer), spread over one or many endpoints, path or
// virtual-hosted style. It is lean on purpose: the generator's own cost
// per request must stay small next to the server's.
package target

import (
	"context"
	"crypto/md5"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/s3/sigv4"
)

// Config describes the endpoints and how to reach them.
type Config struct {
	Endpoints []string // http(s)://host:port[/root]
	AccessKey string
	SecretKey string
	Region    string
	// VirtualHost addresses buckets as bucket.host instead of host/bucket.
	VirtualHost bool
	// Insecure skips TLS certificate checks.
	Insecure bool
	// LeastOutstanding sends each request to the endpoint with the fewest
	// requests in flight instead of round robin.
	LeastOutstanding bool
	// MaxConns bounds connections per endpoint (0: unbounded).
	MaxConns int
	// Dial, if set, opens connections instead of the default dialer (for
	// names a resolver does not know, such as bucket.localhost).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Transport, if set, carries the requests instead of the network (the
	// in-process mock storage).
	Transport http.RoundTripper
	// Timeout bounds each request (0: none).
	Timeout time.Duration
	// Proxy, if set, is the HTTP proxy every request goes through.
	Proxy *url.URL
	// SSE asks for encryption at rest of every object written: "" (none),
	// "sse-s3", "sse-kms" or "sse-kms:KEY-ID", or "sse-c:KEY" (KEY the
	// base64 of 32 bytes, sent again with every read and part).
	SSE string
	// Acked, if set, hears of every write ("write") and delete ("delete")
	// the endpoint acknowledged: the ledger a fault run checks afterwards.
	Acked func(op, bucket, key string, size int64)
}

// Target is a set of S3 endpoints.
type Target struct {
	cfg       Config
	endpoints []*endpoint
	next      atomic.Uint64
	client    *http.Client
	signer    *v4.Signer
	creds     aws.Credentials
	verified  struct{ objects, bytes, mismatches atomic.Int64 }
	// sseWrite and sseRead are the encryption headers of writes (PUT,
	// CreateMultipartUpload) and of reads and parts (SSE-C's key).
	sseWrite, sseRead http.Header
}

type endpoint struct {
	url         *url.URL
	outstanding atomic.Int64
}

// New checks the configuration and returns a target.
func New(cfg Config) (*Target, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("target: no endpoint")
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	t := &Target{cfg: cfg, signer: v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }),
		creds: aws.Credentials{AccessKeyID: cfg.AccessKey, SecretAccessKey: cfg.SecretKey}}
	var err error
	if t.sseWrite, t.sseRead, err = sseHeaders(cfg.SSE); err != nil {
		return nil, err
	}
	for _, e := range cfg.Endpoints {
		u, err := url.Parse(strings.TrimSuffix(e, "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("target: endpoint %q is not an http(s) URL", e)
		}
		t.endpoints = append(t.endpoints, &endpoint{url: u})
	}
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	proxy := http.ProxyFromEnvironment
	if cfg.Proxy != nil {
		proxy = http.ProxyURL(cfg.Proxy)
	}
	tr := &http.Transport{
		Proxy:               proxy,
		DialContext:         dial,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 4096,
		MaxConnsPerHost:     cfg.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: cfg.Insecure},
	}
	t.client = &http.Client{Transport: tr, Timeout: cfg.Timeout}
	if cfg.Transport != nil {
		t.client = &http.Client{Transport: cfg.Transport, Timeout: cfg.Timeout}
	}
	return t, nil
}

// sseHeaders are the headers Config.SSE asks for.
func sseHeaders(v string) (write, read http.Header, err error) {
	kind, arg, _ := strings.Cut(v, ":")
	switch kind {
	case "":
		return nil, nil, nil
	case "sse-s3":
		return http.Header{"X-Amz-Server-Side-Encryption": {"AES256"}}, nil, nil
	case "sse-kms":
		write = http.Header{"X-Amz-Server-Side-Encryption": {"aws:kms"}}
		if arg != "" {
			write.Set("X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", arg)
		}
		return write, nil, nil
	case "sse-c":
		key, err := base64.StdEncoding.DecodeString(arg)
		if err != nil || len(key) != 32 {
			return nil, nil, fmt.Errorf("target: sse-c:KEY needs the base64 of 32 bytes")
		}
		sum := md5.Sum(key)
		h := http.Header{"X-Amz-Server-Side-Encryption-Customer-Algorithm": {"AES256"},
			"X-Amz-Server-Side-Encryption-Customer-Key":     {arg},
			"X-Amz-Server-Side-Encryption-Customer-Key-Md5": {base64.StdEncoding.EncodeToString(sum[:])}}
		return h, h, nil
	}
	return nil, nil, fmt.Errorf("target: sse %q is not sse-s3, sse-kms[:KEY-ID] or sse-c:KEY", v)
}

// Request is one S3 request.
type Request struct {
	Method      string
	Bucket, Key string
	Query       url.Values
	Header      http.Header
	Body        io.ReadSeeker // nil for none
	Size        int64
}

// pick chooses the endpoint for a request.
func (t *Target) pick() *endpoint {
	if !t.cfg.LeastOutstanding || len(t.endpoints) == 1 {
		return t.endpoints[t.next.Add(1)%uint64(len(t.endpoints))]
	}
	best := t.endpoints[0]
	for _, e := range t.endpoints[1:] {
		if e.outstanding.Load() < best.outstanding.Load() {
			best = e
		}
	}
	return best
}

// Do signs and sends a request. The caller reads and closes the response
// body; done must be called when the request is over (it releases the
// endpoint's outstanding count).
func (t *Target) Do(ctx context.Context, r Request) (resp *http.Response, done func(), err error) {
	e := t.pick()
	u := *e.url
	path := u.Path
	if t.cfg.VirtualHost && r.Bucket != "" {
		u.Host = r.Bucket + "." + u.Host
	} else if r.Bucket != "" {
		path += "/" + r.Bucket
	}
	if r.Key != "" {
		path += "/" + r.Key
	}
	if path == "" {
		path = "/"
	}
	u.Path = path
	u.RawPath = sigv4.EscapePath(path)
	u.RawQuery = strings.ReplaceAll(r.Query.Encode(), "+", "%20")
	var body io.Reader
	switch {
	case r.Body != nil && r.Size == 0:
		body = http.NoBody // a non-nil body of length 0 would go chunked
	case r.Body != nil:
		body = r.Body
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, nil, err
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.Body != nil {
		req.ContentLength = r.Size
	}
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	if err := t.signer.SignHTTP(ctx, t.creds, req, "UNSIGNED-PAYLOAD", "s3", t.cfg.Region, time.Now()); err != nil {
		return nil, nil, fmt.Errorf("target: sign: %w", err)
	}
	e.outstanding.Add(1)
	resp, err = t.client.Do(req)
	release := func() { e.outstanding.Add(-1) }
	if err != nil {
		release()
		return nil, nil, err
	}
	return resp, release, nil
}

// Close releases idle connections.
func (t *Target) Close() { t.client.CloseIdleConnections() }
