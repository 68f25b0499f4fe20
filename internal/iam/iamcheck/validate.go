package iamcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// Problem is one thing wrong with a policy document, placed where it
// is: Line and Column count from 1 (0: the document as a whole).
type Problem struct {
	// Severity is "error" (the document is refused) or "warning" (it is
	// stored, as IAM stores it, but cannot do what it seems to say).
	Severity string `json:"severity"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
}

// Validate reads a policy document of kind as the evaluation's parser
// does and reports what is wrong with it, each problem placed at its
// line and column: JSON that does not parse, what the parser refuses
// (an unknown condition operator, a resource that is no ARN, a missing
// field), and, as warnings, actions that no service served here
// defines (a misspelt s3: action is stored by IAM, and never matches).
// No problem: the document would be stored.
func Validate(kind Kind, doc string) []Problem {
	parse, err := kind.Parser()
	if err != nil {
		return []Problem{{Severity: "error", Message: err.Error()}}
	}
	b := []byte(doc)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		p := Problem{Severity: "error", Message: "The document is not valid JSON: " + err.Error()}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			p.Line, p.Column = position(b, int(se.Offset)-1) // Offset is just past the bad byte
		}
		return []Problem{p}
	}
	toks := stringTokens(b)
	pol, err := parse(b)
	if err != nil {
		p := Problem{Severity: "error", Message: err.Error()}
		var perr *bucketpolicy.Error
		if errors.As(err, &perr) {
			p.Message = perr.Reason
		}
		if t, ok := named(toks, p.Message); ok {
			p.Line, p.Column = position(b, t.offset)
		}
		return []Problem{p}
	}
	var out []Problem
	for _, st := range pol.Statements {
		for _, a := range append(append([]string(nil), st.Action...), st.NotAction...) {
			if msg := unknownAction(a); msg != "" {
				p := Problem{Severity: "warning", Message: msg}
				if off, ok := find(toks, a); ok {
					p.Line, p.Column = position(b, off)
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// token is a JSON string of the document (a key or a value) and where
// its opening quote is.
type token struct {
	value  string
	offset int
}

// stringTokens lists the document's strings in order.
func stringTokens(b []byte) []token {
	var out []token
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		t, err := dec.Token()
		if err == io.EOF || err != nil {
			return out
		}
		s, ok := t.(string)
		if !ok {
			continue
		}
		// The decoder is just past the closing quote: the opening one is
		// the last unescaped quote before it.
		end := int(dec.InputOffset()) - 1
		start := end - 1
		for ; start >= 0; start-- {
			if b[start] == '"' && !escaped(b, start) {
				break
			}
		}
		out = append(out, token{s, max(start, 0)})
	}
}

func escaped(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// named returns the string the parser's message names: the longest one
// that the message contains, first in the document.
func named(toks []token, msg string) (token, bool) {
	var best token
	for _, t := range toks {
		if len(t.value) >= 2 && len(t.value) > len(best.value) && strings.Contains(msg, t.value) {
			best = t
		}
	}
	return best, best.value != ""
}

func find(toks []token, v string) (int, bool) {
	for _, t := range toks {
		if t.value == v {
			return t.offset, true
		}
	}
	return 0, false
}

// position turns a byte offset into a line and a column, from 1.
func position(b []byte, off int) (line, col int) {
	off = min(max(off, 0), len(b))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// unknownAction says why action a can never match a request here, or
// "" if it can: an S3 or STS action that the service does not define
// (a pattern matching none of them), or an action of another service.
// IAM's actions are not listed: its policies reach all of them.
func unknownAction(a string) string {
	if a == "*" {
		return ""
	}
	service, name, _ := strings.Cut(strings.ToLower(a), ":")
	var known []string
	switch service {
	case "s3":
		known = s3Actions
	case "sts":
		known = stsActions
	case "iam":
		return ""
	default:
		return "Action " + a + ": the service " + service + " is not served here; the action never applies"
	}
	for _, k := range known {
		if bucketpolicy.MatchAction(name, strings.ToLower(k)) {
			return ""
		}
	}
	return "Action " + a + " is not an action of " + strings.ToUpper(service) + "; it never applies"
}

// The actions AWS defines for S3 and STS (the Service Authorization
// Reference), which policies may name.
var (
	s3Actions = strings.Fields(`AbortMultipartUpload BypassGovernanceRetention CreateAccessPoint CreateBucket CreateJob
	  CreateMultiRegionAccessPoint DeleteAccessPoint DeleteAccessPointPolicy DeleteBucket DeleteBucketOwnershipControls
	  DeleteBucketPolicy DeleteBucketWebsite DeleteJobTagging DeleteObject DeleteObjectTagging DeleteObjectVersion
	  DeleteObjectVersionTagging DeleteStorageLensConfiguration DescribeJob GetAccelerateConfiguration GetAccessPoint
	  GetAccessPointPolicy GetAccountPublicAccessBlock GetAnalyticsConfiguration GetBucketAcl GetBucketCORS
	  GetBucketLocation GetBucketLogging GetBucketNotification GetBucketObjectLockConfiguration GetBucketOwnershipControls
	  GetBucketPolicy GetBucketPolicyStatus GetBucketPublicAccessBlock GetBucketRequestPayment GetBucketTagging
	  GetBucketVersioning GetBucketWebsite GetEncryptionConfiguration GetIntelligentTieringConfiguration
	  GetInventoryConfiguration GetLifecycleConfiguration GetMetricsConfiguration GetObject GetObjectAcl
	  GetObjectAttributes GetObjectLegalHold GetObjectRetention GetObjectTagging GetObjectTorrent GetObjectVersion
	  GetObjectVersionAcl GetObjectVersionAttributes GetObjectVersionForReplication GetObjectVersionTagging
	  GetObjectVersionTorrent GetReplicationConfiguration GetStorageLensConfiguration InitiateReplication
	  ListAccessPoints ListAllMyBuckets ListBucket ListBucketMultipartUploads ListBucketVersions ListJobs
	  ListMultipartUploadParts ListStorageLensConfigurations ListTagsForResource ObjectOwnerOverrideToBucketOwner
	  PutAccelerateConfiguration PutAccessPointPolicy PutAccountPublicAccessBlock PutAnalyticsConfiguration
	  PutBucketAcl PutBucketCORS PutBucketLogging PutBucketNotification PutBucketObjectLockConfiguration
	  PutBucketOwnershipControls PutBucketPolicy PutBucketPublicAccessBlock PutBucketRequestPayment PutBucketTagging
	  PutBucketVersioning PutBucketWebsite PutEncryptionConfiguration PutIntelligentTieringConfiguration
	  PutInventoryConfiguration PutLifecycleConfiguration PutMetricsConfiguration PutObject PutObjectAcl
	  PutObjectLegalHold PutObjectRetention PutObjectTagging PutObjectVersionAcl PutObjectVersionTagging
	  PutReplicationConfiguration PutStorageLensConfiguration ReplicateDelete ReplicateObject ReplicateTags
	  RestoreObject TagResource UntagResource UpdateJobPriority UpdateJobStatus`)
	stsActions = strings.Fields(`AssumeRole AssumeRoleWithSAML AssumeRoleWithWebIdentity DecodeAuthorizationMessage
	  GetAccessKeyInfo GetCallerIdentity GetFederationToken GetServiceBearerToken GetSessionToken SetSourceIdentity TagSession
	  AssumeRoleWithLDAPIdentity`)  // the last is MinIO's, served here too
)
