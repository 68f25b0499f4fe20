package sigv4

import (
	"net/http"
	"strings"
)

// ServiceOf names the service a V4 signed request's credential scope
// names (header or presigned), "" when it names none: for answering a
// request refused before its signature was verified in that service's
// format.
func ServiceOf(r *http.Request) string {
	cred := r.URL.Query().Get("X-Amz-Credential")
	if authz := r.Header.Get("Authorization"); strings.HasPrefix(authz, algorithm+" ") {
		for _, f := range strings.Split(strings.TrimPrefix(authz, algorithm+" "), ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(f), "Credential="); ok {
				cred = v
			}
		}
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[3]
}
