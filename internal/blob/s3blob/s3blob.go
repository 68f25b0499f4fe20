// Package s3blob is the blob driver for S3-compatible platforms (Ceph RGW,
// MinIO, Dell ECS, Cloudian HyperStore, AWS S3, another Ostium, ...).
//
// A blob is one platform object. Blobs of a namespace (a tenant) go to
// their own platform bucket ("<bucket>-<tenant>", created on first use or
// by Prepare at onboarding) or under a prefix of one shared bucket, as the
// platform's layout says. Large blobs use the platform's multipart upload.
// Requests carry UNSIGNED-PAYLOAD and no checksum trailers unless asked
// for, which older platforms accept; the transport (TLS on a real
// deployment) protects the bytes.
package s3blob

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/blob"
)

// Layouts: how namespaces map onto platform buckets.
const (
	LayoutShared          = "shared"            // one bucket, a prefix per namespace
	LayoutBucketPerTenant = "bucket-per-tenant" // a bucket per namespace
)

// Config is how to reach a platform and use it.
type Config struct {
	Endpoint  string `yaml:"endpoint,omitempty"` // URL; "" = AWS S3
	Region    string `yaml:"region,omitempty"`   // "" = us-east-1
	AccessKey string `yaml:"access_key,omitempty"`
	SecretKey string `yaml:"secret_key,omitempty"`
	PathStyle bool   `yaml:"path_style,omitempty"` // path-style addressing instead of virtual-hosted
	CAFile    string `yaml:"ca_file,omitempty"`    // PEM bundle trusted besides the system's
	Proxy     string `yaml:"proxy,omitempty"`      // HTTP proxy URL
	// Timeout bounds connecting and waiting for response headers (not
	// the transfer of a body); 0 = 30 s.
	Timeout  time.Duration `yaml:"timeout,omitempty"`
	MaxConns int           `yaml:"max_connections,omitempty"` // connections to the platform; 0 = 1000
	// Retries on throttling, 5xx and network errors such as a reset
	// connection, with exponential backoff and jitter; 0 = 5, <0 = none.
	// A platform that cannot be reached (connection refused, DNS, no
	// route) or that did not answer within Timeout is not retried.
	Retries int `yaml:"retries,omitempty"`
	// Blobs of MultipartThreshold bytes or more are written in parts of
	// PartSize; 0 = 1 GiB each.
	MultipartThreshold int64 `yaml:"multipart_threshold,omitempty"`
	PartSize           int64 `yaml:"part_size,omitempty"`
	// TrailingChecksums lets the SDK send CRC trailers, for platforms
	// that support them.
	TrailingChecksums bool `yaml:"trailing_checksums,omitempty"`
	// ETagIsMD5 says the platform answers a single PUT with the body's
	// MD5 as ETag (AWS S3 without SSE-KMS, Ceph RGW and MinIO without
	// encryption, Ostium): the gateway then takes the ETag from it
	// instead of hashing every byte a second time.
	ETagIsMD5 bool   `yaml:"etag_is_md5,omitempty"`
	Layout    string `yaml:"layout,omitempty"` // LayoutShared (default) or LayoutBucketPerTenant
	Bucket    string `yaml:"bucket,omitempty"` // the shared bucket, or the per-tenant buckets' prefix
}

// streamPart is the part size for blobs of unknown length: each part is
// buffered so that it can be retried, and must be at least 5 MiB.
const streamPart = 8 << 20

// bufferedMax is the largest blob of known length read into memory before
// it is sent, so that a throttled or failed request can be sent again;
// larger ones stream from the client and a failure fails the write.
const bufferedMax = 1 << 20

var bufs = sync.Pool{New: func() any { b := make([]byte, bufferedMax); return &b }}

var _ blob.Store = (*Store)(nil)

// Store keeps blobs on an S3-compatible platform.
type Store struct {
	c     *s3.Client
	cfg   Config
	ready sync.Map // buckets known to exist
}

// Open returns a store for the platform cfg names. It does not contact
// the platform: a node starts while its platforms are down, and reports
// them through Check.
func Open(cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("s3blob: a bucket is required")
	}
	switch cfg.Layout {
	case "":
		cfg.Layout = LayoutShared
	case LayoutShared, LayoutBucketPerTenant:
	default:
		return nil, fmt.Errorf("s3blob: layout %q is neither %s nor %s", cfg.Layout, LayoutShared, LayoutBucketPerTenant)
	}
	cfg.Region = or(cfg.Region, "us-east-1")
	cfg.Timeout = or(cfg.Timeout, 30*time.Second)
	cfg.MaxConns = or(cfg.MaxConns, 1000)
	cfg.Retries = or(cfg.Retries, 5)
	cfg.MultipartThreshold = or(cfg.MultipartThreshold, 1<<30)
	cfg.PartSize = or(cfg.PartSize, 1<<30)
	if cfg.PartSize < 5<<20 {
		return nil, errors.New("s3blob: part size below the 5 MiB S3 allows")
	}
	hc, err := httpClient(cfg)
	if err != nil {
		return nil, err
	}
	acfg := aws.Config{
		Region:      cfg.Region,
		Credentials: credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, ""),
		HTTPClient:  hc,
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = max(cfg.Retries, 0) + 1
				o.MaxBackoff = 20 * time.Second
				// First: a platform that cannot be reached is not retried.
				o.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(noRetryUnreachable)}, o.Retryables...)
			})
		},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if cfg.TrailingChecksums {
		acfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenSupported
		acfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenSupported
	}
	c := s3.NewFromConfig(acfg, func(o *s3.Options) {
		o.UsePathStyle = cfg.PathStyle
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})
	return &Store{c: c, cfg: cfg}, nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func httpClient(cfg Config) (*http.Client, error) {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxConnsPerHost:       cfg.MaxConns,
		MaxIdleConns:          cfg.MaxConns,
		MaxIdleConnsPerHost:   cfg.MaxConns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		ExpectContinueTimeout: time.Second,
		// Bodies are large: the default 4 KiB buffers would move them in
		// a system call per 4 KiB.
		WriteBufferSize: 256 << 10,
		ReadBufferSize:  256 << 10,
	}
	if cfg.Proxy != "" {
		u, err := url.Parse(cfg.Proxy)
		if err != nil {
			return nil, fmt.Errorf("s3blob: proxy: %w", err)
		}
		tr.Proxy = http.ProxyURL(u)
	}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("s3blob: CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("s3blob: CA file %s holds no PEM certificate", cfg.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}, nil
}

// unsigned sends UNSIGNED-PAYLOAD: bodies stream from the client without
// being read twice to hash them.
var unsigned = s3.WithAPIOptions(v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)

// locate maps a blob id to its platform bucket and key.
func (s *Store) locate(id string) (bucket, key string, err error) {
	if !blob.ValidID(id) {
		return "", "", fmt.Errorf("s3blob: invalid blob id %q", id)
	}
	ns, hex := blob.SplitID(id)
	if s.cfg.Layout == LayoutBucketPerTenant {
		if ns == "" {
			return s.cfg.Bucket, hex, nil
		}
		return s.cfg.Bucket + "-" + ns, hex, nil
	}
	return s.cfg.Bucket, id, nil
}

// Prepare creates the platform bucket of a namespace ahead of its first
// blob, as onboarding a tenant does.
func (s *Store) Prepare(ctx context.Context, ns string) error {
	if !blob.ValidNamespace(ns) {
		return fmt.Errorf("s3blob: invalid namespace %q", ns)
	}
	bucket, _, _ := s.locate(ns + "/" + blob.NewID())
	return s.ensureBucket(ctx, bucket)
}

func (s *Store) ensureBucket(ctx context.Context, bucket string) error {
	if _, ok := s.ready.Load(bucket); ok {
		return nil
	}
	in := &s3.CreateBucketInput{Bucket: aws.String(bucket)}
	if s.cfg.Region != "us-east-1" {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{LocationConstraint: types.BucketLocationConstraint(s.cfg.Region)}
	}
	_, err := s.c.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) && apiCode(err) != "BucketAlreadyOwnedByYou" {
		return s.wrap("create bucket "+bucket, err)
	}
	s.ready.Store(bucket, true)
	return nil
}

// Put writes r as one object, or in parts from MultipartThreshold on;
// bodies of unknown length go in buffered parts of 8 MiB.
func (s *Store) Put(ctx context.Context, id string, r io.Reader, size int64) (int64, error) {
	n, _, err := s.put(ctx, id, r, size)
	return n, err
}

// ReportsMD5: single PUTs, when the platform's ETag is the body's MD5.
func (s *Store) ReportsMD5(id string, size int64) bool {
	return s.cfg.ETagIsMD5 && size >= 0 && size < s.cfg.MultipartThreshold
}

// PutMD5 is Put returning the platform's MD5 of the blob (from its ETag)
// when ReportsMD5 said it would.
func (s *Store) PutMD5(ctx context.Context, id string, r io.Reader, size int64) (int64, []byte, error) {
	n, etag, err := s.put(ctx, id, r, size)
	if err != nil || !s.ReportsMD5(id, size) {
		return n, nil, err
	}
	sum, err := hex.DecodeString(strings.Trim(etag, `"`))
	if err != nil || len(sum) != md5.Size {
		s.Delete(context.WithoutCancel(ctx), id)
		return 0, nil, fmt.Errorf("s3blob: etag_is_md5 is set but the platform answered ETag %s", etag)
	}
	return n, sum, nil
}

// put writes a blob and returns the ETag of a single PUT ("" otherwise).
func (s *Store) put(ctx context.Context, id string, r io.Reader, size int64) (int64, string, error) {
	bucket, key, err := s.locate(id)
	if err != nil {
		return 0, "", err
	}
	if err := s.ensureBucket(ctx, bucket); err != nil {
		return 0, "", err
	}
	// Ids are fresh and random; this only keeps the contract that a taken
	// id is refused, without the conditional writes older platforms lack.
	if _, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key}); err == nil {
		return 0, "", blob.ErrExists
	} else if !notFound(err) {
		return 0, "", s.wrap("head "+key, err)
	}
	switch {
	case size < 0:
		n, err := s.putStream(ctx, bucket, key, r)
		return n, "", err
	case size >= s.cfg.MultipartThreshold:
		n, err := s.putParts(ctx, bucket, key, &exactReader{r: r, left: size}, size, s.cfg.PartSize)
		return n, "", err
	case size <= bufferedMax:
		buf := bufs.Get().(*[]byte)
		defer bufs.Put(buf)
		b := (*buf)[:size]
		if _, err := io.ReadFull(&exactReader{r: r, left: size}, b); err != nil {
			return 0, "", fmt.Errorf("s3blob: read body: %w", err)
		}
		if _, err := (&exactReader{r: r}).Read(nil); err != nil && !errors.Is(err, io.EOF) {
			return 0, "", err
		}
		etag, err := s.putOne(ctx, bucket, key, bytes.NewReader(b), size)
		return size, etag, err
	}
	etag, err := s.putOne(ctx, bucket, key, &exactReader{r: r, left: size}, size)
	return size, etag, err
}

func (s *Store) putOne(ctx context.Context, bucket, key string, body io.Reader, size int64) (etag string, err error) {
	out, err := s.c.PutObject(ctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: body, ContentLength: aws.Int64(size)}, unsigned)
	if err != nil {
		return "", s.wrap("put "+key, err)
	}
	return aws.ToString(out.ETag), nil
}

// putStream reads a body of unknown length: one PUT if it ends within the
// first buffer, else a multipart upload of buffered parts.
func (s *Store) putStream(ctx context.Context, bucket, key string, r io.Reader) (int64, error) {
	buf := make([]byte, streamPart)
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		_, err := s.putOne(ctx, bucket, key, bytes.NewReader(buf[:n]), int64(n))
		return int64(n), err
	}
	if err != nil {
		return 0, fmt.Errorf("s3blob: read body: %w", err)
	}
	return s.putParts(ctx, bucket, key, io.MultiReader(bytes.NewReader(buf), r), -1, streamPart)
}

// putParts writes r in parts of partSize (size < 0: until r ends, each
// part buffered) and completes the upload, or aborts it on failure.
func (s *Store) putParts(ctx context.Context, bucket, key string, r io.Reader, size, partSize int64) (int64, error) {
	up, err := s.c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return 0, s.wrap("create upload "+key, err)
	}
	abort := func(err error) (int64, error) {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.Timeout)
		defer cancel()
		s.c.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId})
		return 0, err
	}
	var parts []types.CompletedPart
	var total int64
	buf := make([]byte, 0)
	for n := int32(1); ; n++ {
		var body io.Reader
		var length int64
		if size >= 0 {
			length = min(partSize, size-total)
			body = io.LimitReader(r, length)
		} else {
			buf = buf[:cap(buf)]
			if int64(len(buf)) < partSize {
				buf = make([]byte, partSize)
			}
			m, err := io.ReadFull(r, buf)
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return abort(fmt.Errorf("s3blob: read body: %w", err))
			}
			length, body = int64(m), bytes.NewReader(buf[:m])
		}
		if length == 0 && n > 1 {
			break
		}
		out, err := s.c.UploadPart(ctx, &s3.UploadPartInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: body, ContentLength: aws.Int64(length)}, unsigned)
		if err != nil {
			return abort(s.wrap(fmt.Sprintf("upload part %d of %s", n, key), err))
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
		total += length
		if size >= 0 && total == size || size < 0 && length < partSize {
			break
		}
	}
	if size >= 0 {
		// exactReader refuses a body longer than declared once it is read
		// past its end.
		if _, err := r.Read(make([]byte, 1)); err != nil && !errors.Is(err, io.EOF) {
			return abort(err)
		}
	}
	_, err = s.c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &bucket, Key: &key, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		return abort(s.wrap("complete upload "+key, err))
	}
	return total, nil
}

// exactReader yields exactly left bytes of r and fails if r ends early or
// holds more.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left == 0 {
		var one [1]byte
		if n, _ := e.r.Read(one[:]); n > 0 {
			return 0, errors.New("s3blob: body longer than its declared size")
		}
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), e.left)]
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if errors.Is(err, io.EOF) && e.left > 0 {
		return n, io.ErrUnexpectedEOF
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// Get opens length bytes at off (length < 0: to the end).
func (s *Store) Get(ctx context.Context, id string, off, length int64) (io.ReadCloser, error) {
	bucket, key, err := s.locate(id)
	if err != nil {
		return nil, err
	}
	if length == 0 {
		if _, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key}); err != nil {
			return nil, s.notFoundOr("head "+key, err)
		}
		return io.NopCloser(strings.NewReader("")), nil
	}
	in := &s3.GetObjectInput{Bucket: &bucket, Key: &key}
	switch {
	case length > 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", off, off+length-1))
	case off > 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", off))
	}
	out, err := s.c.GetObject(ctx, in)
	if apiCode(err) == "InvalidRange" { // off at or past the end
		return io.NopCloser(strings.NewReader("")), nil
	}
	if err != nil {
		return nil, s.notFoundOr("get "+key, err)
	}
	return out.Body, nil
}

// Delete removes a blob; a missing one (or bucket) is no error.
func (s *Store) Delete(ctx context.Context, id string) error {
	bucket, key, err := s.locate(id)
	if err != nil {
		return err
	}
	_, err = s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: &key})
	if err != nil && !notFound(err) {
		return s.wrap("delete "+key, err)
	}
	return nil
}

// Walk lists every blob of the platform: the shared bucket, or the
// prefix bucket and each namespace's.
func (s *Store) Walk(ctx context.Context, fn func(blob.Info) error) error {
	buckets := map[string]string{s.cfg.Bucket: ""} // bucket -> namespace
	if s.cfg.Layout == LayoutBucketPerTenant {
		out, err := s.c.ListBuckets(ctx, &s3.ListBucketsInput{})
		if err != nil {
			return s.wrap("list buckets", err)
		}
		for _, b := range out.Buckets {
			if ns, ok := strings.CutPrefix(aws.ToString(b.Name), s.cfg.Bucket+"-"); ok && blob.ValidNamespace(ns) {
				buckets[*b.Name] = ns
			}
		}
	}
	for bucket, ns := range buckets {
		p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if notFound(err) {
				break
			}
			if err != nil {
				return s.wrap("list "+bucket, err)
			}
			for _, o := range page.Contents {
				id := aws.ToString(o.Key)
				if ns != "" {
					id = ns + "/" + id
				}
				if !blob.ValidID(id) {
					continue
				}
				if err := fn(blob.Info{ID: id, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Check tells whether the platform answers: its bucket may be missing
// (it is made on first use), but the platform must respond.
func (s *Store) Check(ctx context.Context) error {
	_, err := s.c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.cfg.Bucket)})
	if err != nil && !notFound(err) {
		return s.wrap("head bucket "+s.cfg.Bucket, err)
	}
	return nil
}

func (s *Store) Close() error { return nil }

func apiCode(err error) string {
	var ae interface{ ErrorCode() string }
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func notFound(err error) bool {
	if err == nil {
		return false
	}
	switch apiCode(err) {
	case "NoSuchKey", "NotFound", "NoSuchBucket":
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

func (s *Store) notFoundOr(what string, err error) error {
	if notFound(err) {
		return blob.ErrNotFound
	}
	return s.wrap(what, err)
}

// unreachable tells, in a few words, a failure that will not heal within
// a request: nothing listens at the endpoint, its name does not resolve,
// there is no route to it, or it did not answer within the timeout
// (timeout true). The SDK's retryer would try again with backoff (half a
// minute with the default 5 retries, and each timeout over again); the
// request fails at once instead and its client, answered 503 with
// Retry-After, tries again when the platform may be back. A request
// cancelled or out of time on the caller's side is not the platform's
// failure ("").
func unreachable(err error) (cause string, timeout bool) {
	var dns *net.DNSError
	// The transport's own timeouts (dialing, TLS, response headers) count
	// as context.DeadlineExceeded too; the caller's is that error itself,
	// at the end of the chain.
	last := err
	for u := errors.Unwrap(last); u != nil; u = errors.Unwrap(last) {
		last = u
	}
	t, isTimeout := last.(interface{ Timeout() bool })
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return "", false
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", false
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to host", false
	case errors.Is(err, syscall.ENETUNREACH):
		return "network is unreachable", false
	case errors.As(err, &dns):
		return dns.Error(), false
	case isTimeout && t.Timeout() && last != context.DeadlineExceeded:
		return "no answer", true
	}
	return "", false
}

// noRetryUnreachable is the retryer's first rule: a platform that cannot
// be reached is not asked again.
func noRetryUnreachable(err error) aws.Ternary {
	if cause, _ := unreachable(err); cause != "" {
		return aws.FalseTernary
	}
	return aws.UnknownTernary
}

// unreachableError is a platform that could not be reached: its message
// is what failed ("connection refused"), not the SDK's long chain, which
// it still wraps.
type unreachableError struct {
	msg string
	err error
}

func (e *unreachableError) Error() string   { return e.msg }
func (e *unreachableError) Unwrap() []error { return []error{blob.ErrUnavailable, e.err} }

// wrap names the failing operation and marks failures the platform may
// recover from (5xx, throttling, network) as blob.ErrUnavailable.
func (s *Store) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	if cause, timeout := unreachable(err); cause != "" {
		if timeout {
			cause = fmt.Sprintf("%s within %v (timeout)", cause, s.cfg.Timeout)
		}
		return &unreachableError{msg: "s3blob: " + what + ": " + cause, err: err}
	}
	var re *smithyhttp.ResponseError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
	case errors.As(err, &re) && (re.HTTPStatusCode() >= 500 || re.HTTPStatusCode() == http.StatusTooManyRequests),
		errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("s3blob: %s: %w: %w", what, blob.ErrUnavailable, err)
	}
	return fmt.Errorf("s3blob: %s: %w", what, err)
}
