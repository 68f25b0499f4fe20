package s3

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/accesslog"
	"github.com/ostiumio/ostium/internal/audit"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/metrics"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/ratelimit"
	"github.com/ostiumio/ostium/internal/s3/sigv4"
	"github.com/ostiumio/ostium/internal/sosapi"
)

// Server is the S3 endpoint as an http.Handler.
type Server struct {
	svc   *objects.Service
	keys  *iam.Keyring
	rates *ratelimit.Limiter
	// services serve the other AWS services on the endpoint, by the
	// name their signatures carry (serviceNames, for sigv4).
	services     map[string]http.Handler
	serviceNames []string
	meter        Meter
	domains      []string
	slots        *shares
	// docs is the memory of request documents (bytes), shared as slots
	// are.
	docs    *shares
	proxies []netip.Prefix
	// v2MaxAge bounds presigned Signature V2 URLs.
	v2MaxAge time.Duration
	// timing is what transfer holds each request to.
	timing timing
	// accessLog takes the records of logged buckets' requests; nil: none.
	accessLog *accesslog.Logger
	metrics   *metrics.S3
	logLevel  slog.Level // of the line logged per request
	auditLog  *audit.Log
	coldKeys  *coldKeys
	// sseCOverHTTP: Options.SSECOverHTTP.
	sseCOverHTTP bool
	// allowActive: Options.AllowActiveObjects (sandbox.go).
	allowActive bool
	// sosapi is what system.xml recommends; nil: SOSAPI is off (sosapi.go).
	sosapi *sosapi.Recommendations
}

// Options tune the endpoint.
type Options struct {
	// Domains are the names under which virtual-hosted style
	// (bucket.domain) is recognised.
	Domains []string
	// MaxRequests bounds the requests served at once; of them, anonymous
	// requests hold at most MaxAnonymous and one tenant at most
	// MaxPerTenant, and less as other tenants become active (0: a tenth
	// and a half of MaxRequests; see shares).
	MaxRequests, MaxAnonymous, MaxPerTenant int
	// DocumentMemory bounds the bytes of request documents held at once
	// (0: DefaultDocumentMemory), shared out in the same proportions as
	// the request slots.
	DocumentMemory int64
	// IdleTimeout cuts a request whose socket moves no byte for that long;
	// RequestTimeout cancels one that makes no progress for that long (0:
	// DefaultIdleTimeout, DefaultRequestTimeout). MinBodyRate is the
	// average rate (bytes a second) a request body must keep once it has
	// been read for IdleTimeout (0: DefaultMinBodyRate; negative: none).
	IdleTimeout, RequestTimeout time.Duration
	MinBodyRate                 int64
	// TrustedProxies are the balancers whose X-Forwarded-For names the
	// client (for aws:SourceIp); others' is ignored.
	TrustedProxies []netip.Prefix
	// PresignV2MaxAge bounds presigned Signature V2 URLs (0 = a week).
	PresignV2MaxAge time.Duration
	// AccessLog takes server access log records; nil: none are kept.
	AccessLog *accesslog.Logger
	// Metrics counts the requests (nil: none); RequestLog is the level of
	// the line logged per request (nil: debug).
	Metrics    *metrics.S3
	RequestLog slog.Leveler
	// Audit records changes to buckets' access settings (nil: none).
	Audit *audit.Log
	// SSECOverHTTP lets SSE-C requests arrive over plain HTTP, which AWS
	// refuses; for tests only.
	SSECOverHTTP bool
	// AllowActiveObjects lets objects a browser renders actively (HTML,
	// SVG, ...) run their scripts, as AWS does; the default sandboxes
	// them (sandbox.go). Only for a console on a host name of its own.
	AllowActiveObjects bool
	// SOSAPI serves Veeam's Smart Object Storage API documents in every
	// bucket and reserves their keys (sosapi.go).
	SOSAPI bool
	// Rates holds tenants to the request rates and bandwidths of their
	// quotas (nil: no rates).
	Rates *ratelimit.Limiter
}

// Meter counts each request on a bucket for billing (*metering.Meter).
type Meter interface {
	Record(bucket string, t catalog.Traffic)
}

// New returns the S3 handler.
func New(svc *objects.Service, keys *iam.Keyring, meter Meter, o Options) *Server {
	ds := make([]string, len(o.Domains))
	for i, d := range o.Domains {
		ds[i] = strings.ToLower(strings.TrimPrefix(d, "."))
	}
	level := slog.LevelDebug
	if o.RequestLog != nil {
		level = o.RequestLog.Level()
	}
	orInt := func(v, def int) int {
		if v > 0 {
			return v
		}
		return max(def, 1)
	}
	orDur := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	anon := orInt(o.MaxAnonymous, o.MaxRequests/10)
	tenant := orInt(o.MaxPerTenant, o.MaxRequests/2)
	total := orInt(o.MaxRequests, 1)
	mem := o.DocumentMemory
	if mem <= 0 {
		mem = DefaultDocumentMemory
	}
	// The document memory is shared in the slots' proportions.
	docs := newShares(mem, mem*int64(anon)/int64(total), mem*int64(tenant)/int64(total))
	rate := o.MinBodyRate
	switch {
	case rate == 0:
		rate = DefaultMinBodyRate
	case rate < 0:
		rate = 0
	}
	var rec *sosapi.Recommendations
	if o.SOSAPI {
		r := sosapi.Recommend(tenant)
		rec = &r
	}
	return &Server{sosapi: rec, svc: svc, keys: keys, meter: meter, domains: ds, proxies: o.TrustedProxies,
		v2MaxAge: o.PresignV2MaxAge,
		coldKeys: newColdKeys(anon),
		slots:    newShares(int64(total), int64(anon), int64(tenant)),
		docs:     docs,
		timing: timing{idle: orDur(o.IdleTimeout, DefaultIdleTimeout), limit: orDur(o.RequestTimeout, DefaultRequestTimeout),
			minRate: rate},
		accessLog: o.AccessLog, auditLog: o.Audit, metrics: o.Metrics, logLevel: level, sseCOverHTTP: o.SSECOverHTTP,
		allowActive: o.AllowActiveObjects, rates: o.Rates}
}

// clientIP is the address of the client: the peer, or behind trusted
// balancers the last address in X-Forwarded-For that is not one of them.
func (s *Server) clientIP(r *http.Request) string {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if len(s.proxies) == 0 {
		return host
	}
	trusted := func(ip string) bool {
		a, err := netip.ParseAddr(strings.TrimSpace(ip))
		return err == nil && slices.ContainsFunc(s.proxies, func(p netip.Prefix) bool { return p.Contains(a.Unmap()) })
	}
	if !trusted(host) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		if h := strings.TrimSpace(hops[i]); h != "" && !trusted(h) {
			return h
		}
	}
	return host
}

// secure tells whether the client's request came over TLS: to this node,
// or to a trusted balancer that says so in X-Forwarded-Proto (its last
// value, the one the nearest balancer set). Anyone else's header is
// ignored, so a plain-HTTP client cannot claim aws:SecureTransport.
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	a, err := netip.ParseAddr(host)
	if err != nil || !slices.ContainsFunc(s.proxies, func(p netip.Prefix) bool { return p.Contains(a.Unmap()) }) {
		return false
	}
	vs := strings.Split(strings.Join(r.Header.Values("X-Forwarded-Proto"), ","), ",")
	return strings.EqualFold(strings.TrimSpace(vs[len(vs)-1]), "https")
}

// WithOrigin returns r carrying where it came from, as the S3 endpoint
// computes it, so that other front ends on its listener (the admin API)
// record the same address.
func (s *Server) WithOrigin(r *http.Request) *http.Request {
	return r.WithContext(iam.WithOrigin(r.Context(), iam.Origin{SourceIP: s.clientIP(r), Secure: s.secure(r)}))
}

// call is one request on its way through the chain.
type call struct {
	Route
	id    *iam.Identity
	auth  *sigv4.Auth
	body  *countingReader // the payload as read, for metering
	reqID string
	err   error // what the request was answered with, if not success
	// corsDone: the Access-Control-* headers of a browser's request were
	// decided (corsHeaders).
	corsDone bool
	// slot is the request's slot while it holds one, taken from its
	// caller's budget (a form upload moves to its signer's: takeSlot).
	slot *claim
	// t watches the request's progress and ends it if it is preempted.
	t *transfer
	// refused is the error code of the first key a DeleteObjects answered
	// 200 for refused, for the audit log's outcome.
	refused string
	// serveWith, when set, serves the request instead of its Op's
	// handler (a SOSAPI document: sosapiRoute).
	serveWith handler
}

// handler serves one operation; it writes a success response itself and
// returns any error for the one error writer.
type handler func(s *Server, w http.ResponseWriter, r *http.Request, c *call) error

var handlers [opCount]handler

func init() {
	handlers = [opCount]handler{
		OpListBuckets:             listBuckets,
		OpCreateBucket:            createBucket,
		OpDeleteBucket:            deleteBucket,
		OpHeadBucket:              headBucket,
		OpGetBucketLocation:       getBucketLocation,
		OpGetBucketVersioning:     getBucketVersioning,
		OpListObjects:             listObjectsV1,
		OpListObjectsV2:           listObjectsV2,
		OpListObjectVersions:      listObjectVersions,
		OpListMultipartUploads:    listUploads,
		OpDeleteObjects:           deleteObjects,
		OpPutObject:               putObject,
		OpCopyObject:              copyObject,
		OpGetObject:               getObject,
		OpHeadObject:              getObject,
		OpDeleteObject:            deleteObject,
		OpCreateMultipartUpload:   createUpload,
		OpUploadPart:              uploadPart,
		OpUploadPartCopy:          uploadPart,
		OpCompleteMultipartUpload: completeUpload,
		OpAbortMultipartUpload:    abortUpload,
		OpListParts:               listParts,
		OpGetBucketPolicy:         getBucketPolicy,
		OpPutBucketPolicy:         putBucketPolicy,
		OpDeleteBucketPolicy:      deleteBucketPolicy,
		OpGetBucketPolicyStatus:   getBucketPolicyStatus,
		OpGetBucketAcl:            getBucketACL,
		OpPutBucketAcl:            putBucketACL,
		OpGetObjectAcl:            getObjectACL,
		OpPutObjectAcl:            putObjectACL,

		OpGetBucketOwnershipControls:         getOwnershipControls,
		OpPutBucketOwnershipControls:         putOwnershipControls,
		OpDeleteBucketOwnershipControls:      deleteOwnershipControls,
		OpGetPublicAccessBlock:               getPublicAccessBlock,
		OpPutPublicAccessBlock:               putPublicAccessBlock,
		OpDeletePublicAccessBlock:            deletePublicAccessBlock,
		OpGetBucketLogging:                   getBucketLogging,
		OpPutBucketLogging:                   putBucketLogging,
		OpPutBucketVersioning:                putBucketVersioning,
		OpGetObjectTagging:                   getObjectTagging,
		OpPutObjectTagging:                   putObjectTagging,
		OpDeleteObjectTagging:                deleteObjectTagging,
		OpGetBucketTagging:                   getBucketTagging,
		OpPutBucketTagging:                   putBucketTagging,
		OpDeleteBucketTagging:                deleteBucketTagging,
		OpGetObjectLockConfiguration:         getObjectLockConfiguration,
		OpPutObjectLockConfiguration:         putObjectLockConfiguration,
		OpGetObjectRetention:                 getObjectRetention,
		OpPutObjectRetention:                 putObjectRetention,
		OpGetObjectLegalHold:                 getObjectLegalHold,
		OpPutObjectLegalHold:                 putObjectLegalHold,
		OpGetBucketCors:                      getBucketCors,
		OpPutBucketCors:                      putBucketCors,
		OpDeleteBucketCors:                   deleteBucketCors,
		OpGetBucketEncryption:                getBucketEncryption,
		OpPutBucketEncryption:                putBucketEncryption,
		OpDeleteBucketEncryption:             deleteBucketEncryption,
		OpGetBucketNotificationConfiguration: getBucketNotification,
		OpPutBucketNotificationConfiguration: putBucketNotification,
		OpGetBucketReplication:               getBucketReplication,
		OpPutBucketReplication:               putBucketReplication,
		OpDeleteBucketReplication:            deleteBucketReplication,
		OpOptionsPreflight:                   preflight,
		OpPostObject:                         postObject,
		OpGetBucketLifecycleConfiguration:    getBucketLifecycle,
		OpPutBucketLifecycleConfiguration:    putBucketLifecycle,
		OpDeleteBucketLifecycle:              deleteBucketLifecycle,
		OpGetObjectAttributes:                getObjectAttributes,
		OpQueryAPI:                           queryAPI,
	}
}

// ServeHTTP is the one middleware chain of every route: request id,
// timeouts, recover, route, authenticate, slot, dispatch, log.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t, r := watch(w, r, s.timing)
	defer t.stop()
	// Go says "100 Continue" when a handler first reads a body, so an
	// empty one was answered without it. The aws cli's botocore then keeps
	// that answer's status line on the connection and misreads the next
	// response there; say it for empty bodies too.
	if r.ContentLength == 0 && r.ProtoAtLeast(1, 1) && strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		w.WriteHeader(http.StatusContinue)
	}
	c := &call{reqID: newRequestID(), t: t}
	mw := &meteredWriter{ResponseWriter: &idleWriter{ResponseWriter: w, t: t}}
	s.metrics.Start()
	defer s.observe(r, c, mw, start) // after the recover's answer, too
	h := w.Header()
	h.Set("x-amz-request-id", c.reqID)
	h.Set("x-amz-id-2", c.reqID)
	h.Set("Server", "Ostium")
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			slog.Error("panic serving request", "request_id", c.reqID, "panic", v, "stack", string(debug.Stack()))
			c.err = fmt.Errorf("panic: %v", v)
			writeError(mw, r, c.Route, c.reqID, c.err)
		}
	}()
	// Policy conditions see where the request came from, and event
	// notifications of its changes tell that and its request id.
	r = r.WithContext(iam.WithOrigin(r.Context(), iam.Origin{SourceIP: s.clientIP(r), Secure: s.secure(r), RequestID: c.reqID}))
	err := t.outcome(c, s.serve(mw, r, c))
	// A preempted response already under way is cut short, never
	// finished with an error document.
	if err != nil && !(t.isCut() && mw.status != 0) {
		writeError(mw, r, c.Route, c.reqID, err)
	}
	c.err = err
	s.record(c, mw)
	s.logAccess(r, c, mw, start, err)
	s.audit(r, c, mw.status, err)
}

func (s *Server) serve(w *meteredWriter, r *http.Request, c *call) (err error) {
	body := &clientBody{r: r.Body}
	r.Body = body
	// Refused, or answered, before its body was read: the response closes
	// the connection rather than read (net/http would, up to 256 KiB)
	// what nobody needs.
	w.unread = func() bool { return r.ContentLength != 0 && !body.done }
	rt, err := parseRoute(r, s.domains)
	c.Route = rt
	if err != nil {
		return err
	}
	// A browser's request gets its bucket's CORS headers on any answer,
	// a refusal of its signature included.
	s.corsHeaders(w, r, c, true)
	if c.Op == OpOptionsPreflight {
		// Browsers send preflights unsigned, and AWS answers them for
		// anyone: no signature is looked at, no body read.
		return s.dispatch(w, r, c)
	}
	if err := s.authenticate(r, c); err != nil {
		return err
	}
	if err := s.sosapiRoute(c); err != nil {
		return err
	}
	// What the request asks for and whether it may be asked are decided
	// before its body is read: a refused request stores nothing and
	// costs no more than its headers.
	if err := honour(r, c); err != nil {
		return err
	}
	if err := s.throttle(w, r, c); err != nil {
		return err
	}
	if err := s.admit(r, c); err != nil {
		return err
	}
	return s.dispatch(w, r, c)
}

// authenticate verifies the request's signature and swaps in the verifying
// body. Anonymous requests go on with no identity: the object service
// refuses them unless an ACL or a bucket policy opens the resource.
func (s *Server) authenticate(r *http.Request, c *call) error {
	// Signature V2 signs "/bucket/key", whatever the path it travels under.
	resource := strings.TrimPrefix(r.URL.EscapedPath(), c.Root)
	if c.VirtualHost {
		resource = "/" + c.Bucket + resource
	}
	token, err := requestToken(r)
	if err != nil {
		return err
	}
	a, err := sigv4.Verify(r.Context(), r, s.lookup, sigv4.Options{V2Resource: resource, PresignV2MaxAge: s.v2MaxAge,
		Services: s.serviceNames})
	if errors.Is(err, sigv4.ErrNoAuth) {
		return nil
	}
	if err != nil {
		return err
	}
	_, id, err := s.keys.LookupToken(r.Context(), a.AccessKey, token)
	if err != nil {
		return tokenError(err)
	}
	c.id, c.auth = id, a
	c.body = &countingReader{r: a.Body}
	r.Body = c.body
	return nil
}

// lookup gives sigv4 the secret of an access key (temporary credentials'
// too: their token is checked once the signature holds). A key the node
// has not met lately costs catalog reads before anyone is known: such
// lookups have a budget of their own (coldKeys), so that a flood of
// made-up keys gets SlowDown rather than the catalog's connections.
func (s *Server) lookup(ctx context.Context, accessKey string) (string, error) {
	if !s.keys.Cached(accessKey) {
		err := s.coldKeys.load(ctx, accessKey, func() { _, _ = s.keys.SigningSecret(ctx, accessKey) })
		if err != nil {
			return "", err
		}
	}
	secret, err := s.keys.SigningSecret(ctx, accessKey)
	if errors.Is(err, iam.ErrUnknownKey) {
		return "", fmt.Errorf("%w: %s", sigv4.ErrUnknownKey, accessKey)
	}
	return secret, err
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}
