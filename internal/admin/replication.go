package admin

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"regexp"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/replication"
)

func init() {
	routes = append(routes,
		route{"GET", "/replication-targets", "ListReplicationTargets", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return ok(s.ListReplicationTargets(r.Context(), id, ""))
		}},
		route{"POST", "/replication-targets", "AddReplicationTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			var in ReplicationTargetInput
			if err := decode(r, &in); err != nil {
				return nil, 0, err
			}
			return created(s.AddReplicationTarget(r.Context(), id, "", in))
		}},
		route{"DELETE", "/replication-targets/{name}", "DeleteReplicationTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return nil, http.StatusNoContent, s.DeleteReplicationTarget(r.Context(), id, "", r.PathValue("name"))
		}},
		route{"GET", "/tenants/{tenant}/replication-targets", "ListTenantReplicationTargets", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return ok(s.ListReplicationTargets(r.Context(), id, r.PathValue("tenant")))
		}},
		route{"POST", "/tenants/{tenant}/replication-targets", "AddTenantReplicationTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			var in ReplicationTargetInput
			if err := decode(r, &in); err != nil {
				return nil, 0, err
			}
			return created(s.AddReplicationTarget(r.Context(), id, r.PathValue("tenant"), in))
		}},
		route{"DELETE", "/tenants/{tenant}/replication-targets/{name}", "DeleteTenantReplicationTarget", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return nil, http.StatusNoContent, s.DeleteReplicationTarget(r.Context(), id, r.PathValue("tenant"), r.PathValue("name"))
		}},
		route{"GET", "/buckets/{bucket}/replication", "GetBucketReplicationStatus", func(s *Service, r *http.Request, id *iam.Identity) (any, int, error) {
			return ok(s.BucketReplication(r.Context(), id, r.PathValue("bucket")))
		}},
	)
}

// ReplicationTargetInput registers a remote S3 endpoint that replicas
// may go to; the secret is sealed by the node key and never shown again.
type ReplicationTargetInput struct {
	Name      string `json:"name"`
	Endpoint  string `json:"endpoint"`
	Region    string `json:"region,omitempty"`
	AccessKey string `json:"access_key"`
	SecretKey string `json:"secret_key"`
	// Shared lets every tenant's buckets use a provider's target.
	Shared    bool `json:"shared,omitempty"`
	PathStyle bool `json:"path_style,omitempty"`
}

// ReplicationTarget is a registered target as the API shows it: no
// secret.
type ReplicationTarget struct {
	Tenant    string    `json:"tenant,omitempty"`
	Name      string    `json:"name"`
	Endpoint  string    `json:"endpoint"`
	Region    string    `json:"region,omitempty"`
	AccessKey string    `json:"access_key"`
	Shared    bool      `json:"shared,omitempty"`
	PathStyle bool      `json:"path_style,omitempty"`
	Created   time.Time `json:"created"`
	// ARN is what a replication rule's Destination names, with the
	// remote bucket in place of BUCKET.
	ARN string `json:"arn"`
}

var targetName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// SetReplicationPlainHTTP sets the networks where a target's endpoint
// may be plain http.
func (s *Service) SetReplicationPlainHTTP(p []netip.Prefix) { s.plainHTTP = p }

func targetOut(t catalog.ReplicationTarget) ReplicationTarget {
	return ReplicationTarget{Tenant: t.Tenant, Name: t.Name, Endpoint: t.Endpoint, Region: t.Region, AccessKey: t.AccessKey,
		Shared: t.Shared, PathStyle: t.PathStyle, Created: t.Created,
		ARN: replication.ARN{Target: t.Name, Bucket: "BUCKET"}.String()}
}

// AddReplicationTarget registers a target of tenant ("" = the
// provider's): the provider for any, a tenant admin for its own tenant.
// Its endpoint must be https, or http in a network the node allows.
func (s *Service) AddReplicationTarget(ctx context.Context, id *iam.Identity, tenant string, in ReplicationTargetInput) (ReplicationTarget, error) {
	if err := allow(id, tenant); err != nil {
		return ReplicationTarget{}, err
	}
	switch {
	case !targetName.MatchString(in.Name):
		return ReplicationTarget{}, newErr(http.StatusBadRequest, "InvalidArgument", "name: lower-case letters, digits and hyphens, at most 63")
	case in.AccessKey == "" || in.SecretKey == "":
		return ReplicationTarget{}, newErr(http.StatusBadRequest, "InvalidArgument", "access_key and secret_key are required")
	case in.Shared && tenant != "":
		return ReplicationTarget{}, newErr(http.StatusBadRequest, "InvalidArgument", "shared: only the provider's targets are shared")
	}
	if _, err := replication.CheckEndpoint(ctx, in.Endpoint, s.plainHTTP); err != nil {
		return ReplicationTarget{}, newErr(http.StatusBadRequest, "InvalidArgument", "%v", err)
	}
	if tenant != "" {
		if err := replication.CheckReachable(ctx, in.Endpoint, s.plainHTTP); err != nil {
			return ReplicationTarget{}, newErr(http.StatusBadRequest, "InvalidArgument", "%v", err)
		}
	}
	t := catalog.ReplicationTarget{Tenant: tenant, Name: in.Name, Endpoint: in.Endpoint, Region: in.Region, AccessKey: in.AccessKey,
		SecretSealed: s.sealer.Seal(in.SecretKey, replication.TargetSealContext(tenant, in.Name)),
		Shared:       in.Shared, PathStyle: in.PathStyle, Created: time.Now().UTC()}
	err := s.cat.AddReplicationTarget(ctx, t)
	if errors.Is(err, catalog.ErrReplicationTargetExists) {
		return ReplicationTarget{}, newErr(http.StatusConflict, "TargetAlreadyExists", "A replication target of that name exists")
	}
	if err != nil {
		return ReplicationTarget{}, apiErr(err)
	}
	return targetOut(t), nil
}

// ListReplicationTargets lists tenant's targets ("" = the provider's);
// a tenant's list ends with the provider's shared targets, which its
// buckets may use too.
func (s *Service) ListReplicationTargets(ctx context.Context, id *iam.Identity, tenant string) ([]ReplicationTarget, error) {
	if err := allow(id, tenant); err != nil {
		return nil, err
	}
	ts, err := s.cat.ListReplicationTargets(ctx, tenant)
	if err != nil {
		return nil, apiErr(err)
	}
	out := []ReplicationTarget{}
	for _, t := range ts {
		out = append(out, targetOut(t))
	}
	if tenant != "" {
		shared, err := s.cat.ListReplicationTargets(ctx, "")
		if err != nil {
			return nil, apiErr(err)
		}
		for _, t := range shared {
			if t.Shared {
				out = append(out, targetOut(t))
			}
		}
	}
	return out, nil
}

// DeleteReplicationTarget removes a target; rules naming it then fail
// their deliveries (FAILED) until they name another.
func (s *Service) DeleteReplicationTarget(ctx context.Context, id *iam.Identity, tenant, name string) error {
	if err := allow(id, tenant); err != nil {
		return err
	}
	err := s.cat.DeleteReplicationTarget(ctx, tenant, name)
	if errors.Is(err, catalog.ErrNoSuchReplicationTarget) {
		return newErr(http.StatusNotFound, "NoSuchTarget", "The replication target does not exist")
	}
	return apiErr(err)
}

// BucketReplication is a bucket's replication as a provider watches it.
type BucketReplication struct {
	Bucket       string   `json:"bucket"`
	Configured   bool     `json:"configured"`
	Destinations []string `json:"destinations"`
	// Backlog is how many versions wait to be replicated; LagSeconds the
	// age of the oldest (0 when none waits).
	Backlog    int64      `json:"backlog"`
	Oldest     *time.Time `json:"oldest,omitempty"`
	LagSeconds float64    `json:"lag_seconds"`
}

// BucketReplication tells a bucket's replication backlog and lag: the
// provider for any bucket, a tenant admin for its tenant's.
func (s *Service) BucketReplication(ctx context.Context, id *iam.Identity, bucket string) (BucketReplication, error) {
	b, err := s.cat.GetBucket(ctx, bucket)
	if errors.Is(err, catalog.ErrNoSuchBucket) {
		return BucketReplication{}, newErr(http.StatusNotFound, "NoSuchBucket", "The bucket does not exist")
	}
	if err != nil {
		return BucketReplication{}, apiErr(err)
	}
	if err := allow(id, b.Tenant); err != nil {
		return BucketReplication{}, err
	}
	out := BucketReplication{Bucket: bucket, Destinations: []string{}}
	cfg, err := replication.Decode(b.Replication)
	if err != nil {
		return out, apiErr(err)
	}
	if cfg != nil {
		out.Configured = true
		for _, d := range cfg.Destinations() {
			out.Destinations = append(out.Destinations, d.String())
		}
	}
	n, oldest, err := s.cat.Backlog(ctx, replication.Sink, bucket)
	if err != nil {
		return out, apiErr(err)
	}
	out.Backlog = n
	if n > 0 && !oldest.IsZero() {
		o := oldest.UTC()
		out.Oldest, out.LagSeconds = &o, time.Since(oldest).Seconds()
	}
	return out, nil
}
