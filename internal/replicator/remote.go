package replicator

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/replication"
)

// MetaSourceVersion is the user metadata a remote replica carries
// (replication.MetaSourceVersion).
const MetaSourceVersion = replication.MetaSourceVersion

// remoteClient is an S3 client of one registered target.
type remoteClient struct {
	c      *s3.Client
	secure bool
}

// remoteClients caches a client per target, keyed by what makes it.
type remoteClients struct {
	mu sync.Mutex
	m  map[string]*remoteClient
}

// maxClients bounds the cache; past it, it starts again.
const maxClients = 256

func (w *Worker) client(ctx context.Context, t catalog.ReplicationTarget) (*remoteClient, error) {
	secure, err := replication.CheckEndpoint(ctx, t.Endpoint, w.o.PlainHTTP)
	if err != nil {
		return nil, permanent{err}
	}
	secret, err := w.sealer.Open(t.SecretSealed, replication.TargetSealContext(t.Tenant, t.Name))
	if err != nil {
		return nil, permanent{err}
	}
	key := t.Tenant + "\x00" + t.Name + "\x00" + t.Endpoint + "\x00" + t.Region + "\x00" + t.AccessKey + "\x00" + secret
	rc := &w.remote
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if c, ok := rc.m[key]; ok {
		return c, nil
	}
	region := t.Region
	if region == "" {
		region = "us-east-1"
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: time.Minute, IdleConnTimeout: time.Minute}
	if t.Tenant != "" { // a tenant's target: public addresses only, and no proxy to bypass that
		tr.Proxy = nil
		tr.DialContext = (&net.Dialer{Timeout: 30 * time.Second, Control: replication.ReachableControl(w.o.PlainHTTP)}).DialContext
	}
	c := s3.NewFromConfig(aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(t.AccessKey, secret, ""),
		// A redirect would carry a signed request somewhere the target
		// did not name: it is the target's answer, not followed.
		HTTPClient:                 &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		RetryMaxAttempts:           1, // the worker's own back-off retries
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}, func(o *s3.Options) {
		o.UsePathStyle = t.PathStyle
		o.BaseEndpoint = aws.String(t.Endpoint)
	})
	if len(rc.m) >= maxClients {
		rc.m = map[string]*remoteClient{}
	}
	rc.m[key] = &remoteClient{c: c, secure: secure}
	return rc.m[key], nil
}

// unsigned streams bodies as UNSIGNED-PAYLOAD, so that they are read once.
var unsigned = s3.WithAPIOptions(v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)

// toRemote sends a version to a bucket of a registered remote endpoint:
// PUT of its plaintext with its metadata, tags, lock and an encryption
// the target applies (never over plain http for an encrypted version),
// or DELETE for a delete marker (the target writes its own). What the
// target already holds is not sent again.
func (w *Worker) toRemote(ctx context.Context, b catalog.Bucket, arn replication.ARN, d Destination, obj catalog.Object, open func() (catalog.Object, io.ReadCloser, error)) error {
	t, err := replication.ResolveTarget(ctx, w.cat, b.Tenant, arn.Target)
	if err != nil {
		return err
	}
	rc, err := w.client(ctx, t)
	if err != nil {
		return err
	}
	if obj.Meta.Encryption != nil && !rc.secure {
		return permanentf("an encrypted version is never sent over plain http")
	}
	head, herr := rc.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &arn.Bucket, Key: &obj.Key})
	if herr != nil && !notFound(herr) {
		return classify(herr)
	}
	if obj.DeleteMarker {
		if herr != nil {
			return nil // no current version there: nothing to hide
		}
		_, err := rc.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &arn.Bucket, Key: &obj.Key})
		return classify(err)
	}
	if herr == nil && head.Metadata[MetaSourceVersion] == obj.VersionID {
		return nil
	}
	src, body, err := open()
	if errors.Is(err, catalog.ErrNoSuchObject) {
		return nil
	}
	if err != nil {
		return err
	}
	defer body.Close()
	m := src.Meta
	user := map[string]string{MetaSourceVersion: src.VersionID}
	for k, v := range m.User {
		user[k] = v
	}
	in := &s3.PutObjectInput{
		Bucket: &arn.Bucket, Key: &src.Key, Body: body, ContentLength: aws.Int64(src.Size),
		Metadata: user,
	}
	set := func(p **string, v string) {
		if v != "" {
			*p = aws.String(v)
		}
	}
	set(&in.ContentType, m.ContentType)
	set(&in.ContentEncoding, m.ContentEncoding)
	set(&in.ContentDisposition, m.ContentDisposition)
	set(&in.ContentLanguage, m.ContentLanguage)
	set(&in.CacheControl, m.CacheControl)
	if m.Expires != "" {
		if at, err := http.ParseTime(m.Expires); err == nil {
			in.Expires = &at
		}
	}
	if len(m.Tags) > 0 {
		q := url.Values{}
		for k, v := range m.Tags {
			q.Set(k, v)
		}
		in.Tagging = aws.String(q.Encode())
	}
	class := d.StorageClass
	if class == "" && src.StorageClass != "" && src.StorageClass != "STANDARD" {
		class = src.StorageClass
	}
	if class != "" {
		in.StorageClass = types.StorageClass(class)
	}
	if l := src.Lock; l.Mode != "" {
		in.ObjectLockMode = types.ObjectLockMode(l.Mode)
		in.ObjectLockRetainUntilDate = aws.Time(l.RetainUntil)
	}
	if src.Lock.LegalHold {
		in.ObjectLockLegalHoldStatus = types.ObjectLockLegalHoldStatusOn
	}
	if enc := m.Encryption; enc != nil {
		in.ServerSideEncryption = types.ServerSideEncryptionAes256
		if enc.Kind == objects.KindKMS {
			in.ServerSideEncryption = types.ServerSideEncryptionAwsKms
			set(&in.SSEKMSKeyId, d.KMSKeyID)
		}
	}
	_, err = rc.c.PutObject(ctx, in, unsigned)
	return classify(err)
}

func notFound(err error) bool {
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// classify makes a target's refusal (a 4xx other than a timeout or
// throttling) permanent; network errors and 5xx are tried again.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		switch s := re.HTTPStatusCode(); {
		case s == http.StatusRequestTimeout || s == http.StatusTooManyRequests:
		case s >= 400 && s < 500:
			return permanent{err}
		}
	}
	return err
}
