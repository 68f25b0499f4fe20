package workload

import (
	"fmt"
	"net"
	"strings"
)

// checkContainers refuses, before anything runs, container names an S3
// endpoint would refuse at the init stage: cprefix + N + csuffix for the
// lowest and highest N (the names differ only in N, so these are the
// shortest and the longest).
func checkContainers(n naming) error {
	for _, i := range []int64{n.containers.Lo, n.containers.Hi} {
		name := n.container(i)
		if err := validBucket(name); err != nil {
			return fmt.Errorf("container %q (cprefix %q, csuffix %q) is not a valid S3 bucket name: %v", name, n.cprefix, n.csuffix, err)
		}
	}
	return nil
}

// validBucket applies S3's rules for general purpose bucket names, as AWS
// documents them ("Bucket naming rules").
func validBucket(name string) error {
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("%d characters, S3 wants 3 to 63", len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return fmt.Errorf("%q: only lower-case letters, digits, '.' and '-' are allowed", c)
		}
	}
	if first, last := name[0], name[len(name)-1]; first == '.' || first == '-' || last == '.' || last == '-' {
		return fmt.Errorf("it must begin and end with a letter or digit")
	}
	if strings.Contains(name, "..") || strings.Contains(name, ".-") || strings.Contains(name, "-.") {
		return fmt.Errorf("no two periods, or a period and a hyphen, may be adjacent")
	}
	if net.ParseIP(name) != nil {
		return fmt.Errorf("it must not look like an IP address")
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(name, p) {
			return fmt.Errorf("it must not begin with %s", p)
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(name, s) {
			return fmt.Errorf("it must not end with %s", s)
		}
	}
	return nil
}
