package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ostiumio/ostium/internal/admin"
)

// The commands of bucket replication: remote targets (the provider's,
// or a tenant's with --tenant) and a bucket's backlog.
func init() {
	maps.Copy(adminCmds, replicationAdminCmds)
	adminGroups["replication"] = "bucket replication: remote S3 targets, and a bucket's backlog and lag"
	adminGroups["replication target"] = "remote S3 endpoints (another Ostium site, AWS, MinIO, Ceph) replicas may go to"
}

// targetPath is the targets of the provider, or of --tenant.
func targetPath(f *adminFlags, name ...string) string {
	p := []string{"replication-targets"}
	if f.tenant != "" {
		p = append([]string{"tenants", f.tenant}, p...)
	}
	return path(append(p, name...)...)
}

func tenantFlag(fs *pflag.FlagSet, f *adminFlags) {
	fs.StringVar(&f.tenant, "tenant", "", "a tenant's targets (default: the provider's)")
}

// readSecret reads a target's secret key from OSTIUM_TARGET_SECRET_KEY,
// else one line of stdin, so that it is never an argument others could
// see in the process list.
func readSecret(in io.Reader) (string, error) {
	if s := os.Getenv("OSTIUM_TARGET_SECRET_KEY"); s != "" {
		return s, nil
	}
	line, err := bufio.NewReader(io.LimitReader(in, 4096)).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("read the secret key from stdin (or set OSTIUM_TARGET_SECRET_KEY): %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

var replicationAdminCmds = map[string]adminCmd{
	"replication target add": {args: []string{"NAME", "ENDPOINT"}, short: "register a remote S3 endpoint (its secret key read from stdin or OSTIUM_TARGET_SECRET_KEY)",
		example: "  printf '%s\\n' \"$SECRET\" | ostium admin replication target add site2 https://s3.site2.example --target-access-key AKIA... --region eu-west-1 --shared\n" +
			"  ostium admin replication target add backup https://minio.example:9000 --target-access-key k --path-style --tenant acme",
		flags: func(fs *pflag.FlagSet, f *adminFlags) {
			tenantFlag(fs, f)
			fs.StringVar(&f.targetAccessKey, "target-access-key", "", "the target's access key (its secret key is read from stdin)")
			fs.StringVar(&f.targetRegion, "region", "", "the target's region (default us-east-1)")
			fs.BoolVar(&f.targetShared, "shared", false, "every tenant's buckets may use it (provider's targets only)")
			fs.BoolVar(&f.targetPathStyle, "path-style", false, "address buckets in the path (MinIO, Ceph, another Ostium)")
		}, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
			secret, err := readSecret(passwordInput)
			if err != nil {
				return nil, err
			}
			return call[admin.ReplicationTarget](c, "POST", targetPath(f), admin.ReplicationTargetInput{Name: a[0], Endpoint: a[1],
				Region: f.targetRegion, AccessKey: f.targetAccessKey, SecretKey: secret, Shared: f.targetShared, PathStyle: f.targetPathStyle})
		}},
	"replication target list": {short: "list remote targets (a tenant's, then the provider's shared ones)", example: "  ostium admin replication target list\n  ostium admin replication target list --tenant acme", flags: tenantFlag, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[[]admin.ReplicationTarget](c, "GET", targetPath(f), nil)
	}},
	"replication target remove": {args: []string{"NAME"}, short: "remove a remote target (rules naming it then fail)", example: "  ostium admin replication target remove site2", flags: tenantFlag, run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return deleted(c.Do(context.Background(), "DELETE", targetPath(f, a[0]), nil, nil))
	}},
	"replication status": {args: []string{"BUCKET"}, short: "a bucket's replication: destinations, backlog and lag", example: "  ostium admin replication status photos", run: func(c *admin.Client, a []string, f *adminFlags) (any, error) {
		return call[admin.BucketReplication](c, "GET", path("buckets", a[0], "replication"), nil)
	}},
}
