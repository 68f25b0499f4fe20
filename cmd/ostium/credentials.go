package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// checkCredentials reports a missing or half-given key pair before any
// request is sent: without it the node answers a request signed with
// nothing by a confusing signature error. from says where the keys are
// looked for.
func checkCredentials(accessKey, secretKey, from string) error {
	switch {
	case accessKey == "" && secretKey == "":
		return fmt.Errorf("no credentials: give %s", from)
	case secretKey == "":
		return fmt.Errorf("incomplete credentials: an access key but no secret key; give %s", from)
	case accessKey == "":
		return fmt.Errorf("incomplete credentials: a secret key but no access key; give %s", from)
	}
	return nil
}

// defaultEndpoint is where `ostium serve` listens when told nothing.
const defaultEndpoint = "http://localhost:9000"

// rootCredentialsFrom says where rootAccess looks for the keys.
const rootCredentialsFrom = "--access-key and --secret-key, or OSTIUM_ROOT_ACCESS_KEY and OSTIUM_ROOT_SECRET_KEY"

// rootAccess is how the commands that talk to a node as the provider
// (`ostium admin`, `ostium support bundle`) find it and sign for it, so
// that both take the same flags, environment and defaults.
type rootAccess struct {
	Endpoint, AccessKey, SecretKey string
}

// addFlags adds --endpoint, --access-key and --secret-key to fs.
func (r *rootAccess) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&r.Endpoint, "endpoint", env("OSTIUM_ENDPOINT", defaultEndpoint), "node URL (OSTIUM_ENDPOINT)")
	// The environment's keys are read after parsing (resolve), so that
	// --help prints no secret as a default.
	fs.StringVar(&r.AccessKey, "access-key", "", "root access key (default OSTIUM_ROOT_ACCESS_KEY)")
	fs.StringVar(&r.SecretKey, "secret-key", "", "root secret key (default OSTIUM_ROOT_SECRET_KEY)")
}

// fromEnv takes the environment's pair unless a key was given as a flag
// of fs: a pair is never half flag, half environment.
func (r *rootAccess) fromEnv(fs *pflag.FlagSet) {
	if !fs.Changed("access-key") && !fs.Changed("secret-key") {
		r.AccessKey, r.SecretKey = os.Getenv("OSTIUM_ROOT_ACCESS_KEY"), os.Getenv("OSTIUM_ROOT_SECRET_KEY")
	}
}

// resolve is fromEnv, then a check that the pair is whole.
func (r *rootAccess) resolve(fs *pflag.FlagSet) error {
	r.fromEnv(fs)
	return checkCredentials(r.AccessKey, r.SecretKey, rootCredentialsFrom)
}
