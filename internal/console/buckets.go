package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/cors"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
	"github.com/ostiumio/ostium/internal/lifecycle"
	"github.com/ostiumio/ostium/internal/objectlock"
	"github.com/ostiumio/ostium/internal/objects"
	"github.com/ostiumio/ostium/internal/s3"
)

func listBuckets(h *Handler, c *call) (any, int, error) {
	bs, err := h.o.Objects.ListBuckets(c.ctx(), c.id())
	if err != nil {
		return nil, 0, err
	}
	out := make([]Bucket, len(bs))
	for i, b := range bs {
		// ListAllMyBuckets names a bucket; its versioning and lock are
		// shown only to whom GET /buckets/{bucket} would show them.
		switch _, err := h.o.Objects.HeadBucket(c.ctx(), c.id(), b.Name); {
		case err == nil:
			out[i] = bucketOut(b)
		case errors.Is(err, objects.ErrAccessDenied):
			out[i] = Bucket{Name: b.Name, Created: b.CreatedAt, Region: b.Region, Tenant: b.Tenant, SettingsHidden: true}
		default:
			return nil, 0, err
		}
	}
	return map[string]any{"buckets": out}, http.StatusOK, nil
}

// createBucket creates a bucket and then sets what it was asked to have
// (versioning, a default retention, a default encryption), each call
// decided by the object service as the S3 calls would be. What can be
// checked before is checked before; a setting refused after the bucket
// was made undoes it (undoCreate).
func createBucket(h *Handler, c *call) (any, int, error) {
	var in struct {
		Name       string          `json:"name"`
		Region     string          `json:"region"`
		Versioning bool            `json:"versioning"`
		ObjectLock json.RawMessage `json:"object_lock"`
		Encryption *Encryption     `json:"encryption"` // null: none of its own
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	var lock *objectlock.Config
	switch v := strings.TrimSpace(string(in.ObjectLock)); {
	case v == "" || v == "null" || v == "false":
	case v == "true":
		lock = &objectlock.Config{Enabled: true}
	default:
		lock = &objectlock.Config{}
		if err := json.Unmarshal(in.ObjectLock, lock); err != nil {
			return nil, 0, apiError(http.StatusBadRequest, "MalformedJSON", "object_lock is true or {mode, days or years}: %v", err)
		}
		lock.Enabled = true
		if err := lock.Validate(); err != nil {
			return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "%s", err.Error())
		}
	}
	var enc *objects.EncryptionRule
	if in.Encryption != nil {
		r, err := in.Encryption.rule()
		if err != nil {
			return nil, 0, err
		}
		enc = &r
	}
	ctx, id := c.ctx(), c.id()
	err := h.o.Objects.CreateBucket(ctx, id, objects.BucketInput{Name: in.Name, Region: in.Region, ObjectLock: lock != nil})
	h.recordS3(c, "CreateBucket", http.StatusOK, err, in.Name)
	if err != nil {
		return nil, 0, err
	}
	if in.Versioning && lock == nil {
		err := h.o.Objects.PutBucketVersioning(ctx, id, in.Name, objects.VersioningEnabled)
		h.recordS3(c, "PutBucketVersioning", http.StatusOK, err, in.Name)
		if err != nil {
			return nil, 0, h.undoCreate(c, in.Name, "versioning", err)
		}
	}
	if lock != nil && lock.HasDefault() {
		err := h.o.Objects.PutObjectLockConfiguration(ctx, id, in.Name, *lock)
		h.recordS3(c, "PutObjectLockConfiguration", http.StatusOK, err, in.Name)
		if err != nil {
			return nil, 0, h.undoCreate(c, in.Name, "default retention", err)
		}
	}
	if enc != nil {
		err := h.o.Objects.PutBucketEncryption(ctx, id, in.Name, *enc)
		h.recordS3(c, "PutBucketEncryption", http.StatusOK, err, in.Name)
		if err != nil {
			return nil, 0, h.undoCreate(c, in.Name, "default encryption", err)
		}
	}
	b, err := h.o.Objects.HeadBucket(ctx, id, in.Name)
	return bucketOut(b), http.StatusCreated, err
}

func getBucket(h *Handler, c *call) (any, int, error) {
	b, err := h.o.Objects.HeadBucket(c.ctx(), c.id(), c.path("bucket"))
	if err != nil {
		return nil, 0, err
	}
	out := struct {
		Bucket
		Ownership    string `json:"ownership"`
		HasPolicy    bool   `json:"has_policy"`
		HasCORS      bool   `json:"has_cors"`
		HasLifecycle bool   `json:"has_lifecycle"`
		HasTags      bool   `json:"has_tags"`
	}{Bucket: bucketOut(b), Ownership: b.Ownership, HasPolicy: b.Policy != "", HasCORS: b.CORS != "",
		HasLifecycle: b.Lifecycle != "", HasTags: b.Tagging != ""}
	return out, http.StatusOK, nil
}

func deleteBucket(h *Handler, c *call) (any, int, error) {
	err := h.o.Objects.DeleteBucket(c.ctx(), c.id(), c.path("bucket"))
	h.recordS3(c, "DeleteBucket", http.StatusNoContent, err, c.path("bucket"))
	return nil, http.StatusNoContent, err
}

// setting is one bucket setting's GET, PUT and DELETE.
type setting struct {
	// audit names the S3 operations of put and del the audit log
	// records, as the S3 endpoint records them ("" = not recorded).
	audit [2]string
	get   func(h *Handler, c *call, bucket string) (any, error)
	put   func(h *Handler, c *call, bucket string) error
	del   func(h *Handler, c *call, bucket string) error
}

var settings = map[string]setting{
	"versioning": {
		audit: [2]string{"PutBucketVersioning", ""},
		get: func(h *Handler, c *call, b string) (any, error) {
			st, err := h.o.Objects.GetBucketVersioning(c.ctx(), c.id(), b)
			return map[string]string{"status": st}, err
		},
		put: func(h *Handler, c *call, b string) error {
			var in struct {
				Status string `json:"status"`
			}
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutBucketVersioning(c.ctx(), c.id(), b, in.Status)
		},
	},
	"object-lock": {
		audit: [2]string{"PutObjectLockConfiguration", ""},
		get: func(h *Handler, c *call, b string) (any, error) {
			return h.o.Objects.GetObjectLockConfiguration(c.ctx(), c.id(), b)
		},
		put: func(h *Handler, c *call, b string) error {
			var in objectlock.Config
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutObjectLockConfiguration(c.ctx(), c.id(), b, in)
		},
	},
	"tags": {
		audit: [2]string{"PutBucketTagging", "DeleteBucketTagging"},
		get: func(h *Handler, c *call, b string) (any, error) {
			ts, err := h.o.Objects.GetBucketTagging(c.ctx(), c.id(), b)
			out := Tags{Tags: []TagKV{}}
			for _, t := range ts {
				out.Tags = append(out.Tags, TagKV{t.Key, t.Value})
			}
			return out, err
		},
		put: func(h *Handler, c *call, b string) error {
			var in Tags
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutBucketTagging(c.ctx(), c.id(), b, in.list())
		},
		del: func(h *Handler, c *call, b string) error {
			return h.o.Objects.DeleteBucketTagging(c.ctx(), c.id(), b)
		},
	},
	"policy": {
		audit: [2]string{"PutBucketPolicy", "DeleteBucketPolicy"},
		get: func(h *Handler, c *call, b string) (any, error) {
			doc, err := h.o.Objects.GetBucketPolicy(c.ctx(), c.id(), b)
			return jsonRaw(doc), err
		},
		put: func(h *Handler, c *call, b string) error {
			doc, err := io.ReadAll(io.LimitReader(c.r.Body, maxJSON+1))
			if err != nil {
				return err
			}
			if len(doc) > maxJSON {
				return apiError(http.StatusRequestEntityTooLarge, "EntityTooLarge", "The request body is over 1 MiB")
			}
			return h.o.Objects.PutBucketPolicy(c.ctx(), c.id(), b, doc)
		},
		del: func(h *Handler, c *call, b string) error {
			return h.o.Objects.DeleteBucketPolicy(c.ctx(), c.id(), b)
		},
	},
	"cors": {
		audit: [2]string{"PutBucketCors", "DeleteBucketCors"},
		get: func(h *Handler, c *call, b string) (any, error) {
			return h.o.Objects.GetBucketCors(c.ctx(), c.id(), b)
		},
		put: func(h *Handler, c *call, b string) error {
			var in cors.Config
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutBucketCors(c.ctx(), c.id(), b, in)
		},
		del: func(h *Handler, c *call, b string) error {
			return h.o.Objects.DeleteBucketCors(c.ctx(), c.id(), b)
		},
	},
	"lifecycle": {
		audit: [2]string{"PutBucketLifecycleConfiguration", "DeleteBucketLifecycle"},
		get: func(h *Handler, c *call, b string) (any, error) {
			return h.o.Objects.GetBucketLifecycle(c.ctx(), c.id(), b)
		},
		put: func(h *Handler, c *call, b string) error {
			lc := &lifecycle.Configuration{}
			if err := decode(c.r, lc); err != nil {
				return err
			}
			return h.o.Objects.PutBucketLifecycle(c.ctx(), c.id(), b, lc)
		},
		del: func(h *Handler, c *call, b string) error {
			return h.o.Objects.DeleteBucketLifecycle(c.ctx(), c.id(), b)
		},
	},
	"acl": {
		audit: [2]string{"PutBucketAcl", ""},
		get: func(h *Handler, c *call, b string) (any, error) {
			return h.o.Objects.GetBucketACL(c.ctx(), c.id(), b)
		},
		put: func(h *Handler, c *call, b string) error {
			var in struct {
				Canned string `json:"canned"`
				Grants []struct {
					Type       string `json:"type"`
					ID         string `json:"id"`
					URI        string `json:"uri"`
					Email      string `json:"email"`
					Permission string `json:"perm"`
				} `json:"grants"`
			}
			if err := decode(c.r, &in); err != nil {
				return err
			}
			spec := iam.ACLSpec{Canned: in.Canned}
			if in.Grants != nil {
				spec.Grants = []iam.Grant{}
				for _, g := range in.Grants {
					spec.Grants = append(spec.Grants, iam.Grant{Type: g.Type, ID: g.ID, URI: g.URI, Email: g.Email, Permission: g.Permission})
				}
			}
			// The S3 layer's checks of a stated ACL, which the object
			// service leaves to the protocol.
			if err := s3.ValidACL(spec); err != nil {
				return err
			}
			return h.o.Objects.PutBucketACL(c.ctx(), c.id(), b, spec)
		},
	},
	"ownership": {
		audit: [2]string{"PutBucketOwnershipControls", ""},
		get: func(h *Handler, c *call, b string) (any, error) {
			o, err := h.o.Objects.GetBucketOwnership(c.ctx(), c.id(), b)
			return map[string]string{"ownership": o}, err
		},
		put: func(h *Handler, c *call, b string) error {
			var in struct {
				Ownership string `json:"ownership"`
			}
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutBucketOwnership(c.ctx(), c.id(), b, in.Ownership)
		},
	},
	"encryption": encryptionSetting,
	"public-access-block": {
		audit: [2]string{"PutPublicAccessBlock", "DeletePublicAccessBlock"},
		get: func(h *Handler, c *call, b string) (any, error) {
			return h.o.Objects.GetPublicAccessBlock(c.ctx(), c.id(), b)
		},
		put: func(h *Handler, c *call, b string) error {
			var in iam.PublicAccessBlock
			if err := decode(c.r, &in); err != nil {
				return err
			}
			return h.o.Objects.PutPublicAccessBlock(c.ctx(), c.id(), b, &in)
		},
		del: func(h *Handler, c *call, b string) error {
			return h.o.Objects.PutPublicAccessBlock(c.ctx(), c.id(), b, nil)
		},
	},
}

var errNoSuchSetting = apiError(http.StatusNotFound, "NoSuchRoute", "No such bucket setting")

func getSetting(h *Handler, c *call) (any, int, error) {
	st, ok := settings[c.path("setting")]
	if !ok {
		return nil, 0, errNoSuchSetting
	}
	v, err := st.get(h, c, c.path("bucket"))
	return v, http.StatusOK, err
}

func putSetting(h *Handler, c *call) (any, int, error) {
	st, ok := settings[c.path("setting")]
	if !ok || st.put == nil {
		return nil, 0, errNoSuchSetting
	}
	var err error
	if strings.Contains(c.r.Header.Get("Content-Type"), "xml") {
		err = putXML(h, c)
	} else {
		err = st.put(h, c, c.path("bucket"))
	}
	h.recordS3(c, st.audit[0], http.StatusOK, err, c.path("bucket"))
	if err != nil {
		return nil, 0, err
	}
	v, err := st.get(h, c, c.path("bucket"))
	return v, http.StatusOK, err
}

// recordS3 puts a change to a bucket's configuration or existence in the
// audit log as the S3 endpoint records its own (the operation S3 would
// have run, its target, the outcome).
func (h *Handler) recordS3(c *call, op string, status int, err error, bucket string) {
	h.recordS3Object(c, op, status, err, "", bucket, "", "")
}

// recordS3Object is recordS3 for a change to an object's protection (key
// "" = the bucket); refused is the outcome of a call answered with
// status that did not do all it was asked (a batch delete's first
// refused key).
func (h *Handler) recordS3Object(c *call, op string, status int, err error, refused, bucket, key, version string) {
	if op == "" {
		return
	}
	e := catalog.AuditEntry{Action: "s3:" + op, Target: s3.AuditTarget(bucket, key, version), Status: status, Outcome: refused}
	if err != nil {
		e.Status, e.Outcome, _ = s3.ErrorOf(err)
	}
	h.o.Audit.Record(c.ctx(), c.id(), e)
}

func deleteSetting(h *Handler, c *call) (any, int, error) {
	st, ok := settings[c.path("setting")]
	if !ok || st.del == nil {
		return nil, 0, errNoSuchSetting
	}
	err := st.del(h, c, c.path("bucket"))
	h.recordS3(c, st.audit[1], http.StatusNoContent, err, c.path("bucket"))
	return nil, http.StatusNoContent, err
}

// validatePolicy checks a policy document with the parser
// PutBucketPolicy uses, without storing it. Principals are bound (and an
// unknown one refused) only when it is put.
func validatePolicy(h *Handler, c *call) (any, int, error) {
	doc, err := io.ReadAll(io.LimitReader(c.r.Body, maxJSON+1))
	if err != nil {
		return nil, 0, err
	}
	if _, err := h.o.Objects.HeadBucket(c.ctx(), c.id(), c.path("bucket")); err != nil {
		return nil, 0, err
	}
	var pe *bucketpolicy.Error
	if _, err := bucketpolicy.Parse(doc, c.path("bucket")); errors.As(err, &pe) {
		return nil, 0, apiError(http.StatusBadRequest, "MalformedPolicy", "%s", pe.Reason)
	} else if err != nil {
		return nil, 0, err
	}
	return map[string]bool{"valid": true}, http.StatusOK, nil
}

// share presigns a GET of one object with a fresh application
// credential of the signed-in user, read-only on that bucket, expiring
// with the link (see docs/console.md).
func share(h *Handler, c *call) (any, int, error) {
	var in struct {
		Key            string `json:"key"`
		Version        string `json:"version"`
		ExpiresSeconds int64  `json:"expires_seconds"`
	}
	if err := decode(c.r, &in); err != nil {
		return nil, 0, err
	}
	if in.Key == "" {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "A share link names a key")
	}
	ttl := time.Duration(in.ExpiresSeconds) * time.Second
	if ttl < time.Minute || ttl > admin.MaxShareExpiry {
		return nil, 0, apiError(http.StatusBadRequest, "InvalidArgument", "A share link expires in 60 seconds to 7 days")
	}
	ctx, id, b := c.ctx(), c.id(), c.path("bucket")
	// Only what the user may read is shared: the link would fail anyway,
	// but the user learns it now.
	if _, err := h.o.Objects.GetObject(ctx, id, objects.GetInput{Bucket: b, Key: in.Key, VersionID: in.Version}, true); err != nil {
		return nil, 0, err
	}
	now := time.Now()
	k, err := h.o.Admin.CreateShareCred(ctx, id, b, now.Add(ttl))
	if err != nil {
		return nil, 0, err
	}
	// The link is the S3 endpoint's, never the console's origin.
	scheme, host := "http", c.r.Host
	if iam.OriginOf(ctx).Secure {
		scheme = "https"
	}
	if h.o.S3Endpoint != nil {
		scheme, host = h.o.S3Endpoint(c.r)
	}
	u := &url.URL{Scheme: scheme, Host: host, Path: "/" + b + "/" + in.Key, RawPath: "/" + b + "/" + s3Escape(in.Key)}
	q := url.Values{"X-Amz-Expires": {strconv.FormatInt(in.ExpiresSeconds, 10)}}
	if in.Version != "" {
		q.Set("versionId", in.Version)
	}
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, 0, err
	}
	signed, _, err := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }).PresignHTTP(ctx,
		aws.Credentials{AccessKeyID: k.AccessKey, SecretAccessKey: k.SecretKey}, req, "UNSIGNED-PAYLOAD", "s3", h.o.Objects.Region(), now)
	if err != nil {
		return nil, 0, err
	}
	return map[string]any{"url": signed, "expires": now.Add(ttl).UTC(), "access_key": k.AccessKey}, http.StatusCreated, nil
}

// s3Escape escapes a key as S3 signs its path: every byte but the
// unreserved characters and '/'.
func s3Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatInt(int64(c)>>4, 16)+strconv.FormatInt(int64(c)&15, 16)))
	}
	return b.String()
}

// putXML puts a setting from S3's own XML document, read by the S3
// layer's decoder, through the same service call as its JSON.
func putXML(h *Handler, c *call) error {
	doc, err := io.ReadAll(io.LimitReader(c.r.Body, maxJSON+1))
	if err != nil {
		return err
	}
	if len(doc) > maxJSON {
		return apiError(http.StatusRequestEntityTooLarge, "EntityTooLarge", "The request body is over 1 MiB")
	}
	v, ok, err := s3.DecodeSetting(c.path("setting"), doc)
	switch {
	case !ok:
		return apiError(http.StatusUnsupportedMediaType, "UnsupportedMediaType", "This setting takes JSON only")
	case err != nil:
		return err
	}
	ctx, id, b := c.ctx(), c.id(), c.path("bucket")
	switch v := v.(type) {
	case *lifecycle.Configuration:
		return h.o.Objects.PutBucketLifecycle(ctx, id, b, v)
	case []objects.Tag:
		return h.o.Objects.PutBucketTagging(ctx, id, b, v)
	case cors.Config:
		return h.o.Objects.PutBucketCors(ctx, id, b, v)
	case iam.PublicAccessBlock:
		return h.o.Objects.PutPublicAccessBlock(ctx, id, b, &v)
	case objects.EncryptionRule:
		return h.o.Objects.PutBucketEncryption(ctx, id, b, v)
	case string:
		if c.path("setting") == "ownership" {
			return h.o.Objects.PutBucketOwnership(ctx, id, b, v)
		}
		return h.o.Objects.PutBucketVersioning(ctx, id, b, v)
	}
	return fmt.Errorf("console: setting %s decoded to %T", c.path("setting"), v)
}
