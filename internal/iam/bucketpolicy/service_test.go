package bucketpolicy

import "testing"

// The logging service writes access logs as the service principal AWS
// names in the policy it recommends for target buckets; only a Service
// principal matches it, and it matches no user.
func TestServicePrincipal(t *testing.T) {
	p, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject",
		"Resource":"arn:aws:s3:::logs/*","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::src"}}}]}`), "logs")
	if err != nil {
		t.Fatal(err)
	}
	req := func(service, source string, principals ...string) Request {
		return Request{Service: service, Principals: principals, Action: "s3:PutObject", Resource: "arn:aws:s3:::logs/x",
			Context: map[string][]string{"aws:sourcearn": {"arn:aws:s3:::" + source}}}
	}
	for _, tc := range []struct {
		r    Request
		want Decision
	}{
		{req("logging.s3.amazonaws.com", "src"), Allow},
		{req("logging.s3.amazonaws.com", "other"), NoMatch},
		{req("other.amazonaws.com", "src"), NoMatch},
		{req("", "src", "logging.s3.amazonaws.com"), NoMatch},
	} {
		if got := p.Evaluate(tc.r); got != tc.want {
			t.Errorf("Evaluate(%+v) = %v, want %v", tc.r, got, tc.want)
		}
	}
	everyone, _ := Parse([]byte(`{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/*"}]}`), "logs")
	if got := everyone.Evaluate(req("logging.s3.amazonaws.com", "src")); got != NoMatch {
		t.Errorf("Principal * matched the logging service: %v", got)
	}
}
