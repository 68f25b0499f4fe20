package main

import "fmt"

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
