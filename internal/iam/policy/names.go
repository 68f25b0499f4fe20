package policy

import "strings"

// resKind is the kind of resource an S3 action acts on. AWS refuses a
// statement whose actions cannot apply to any of its resources, so the
// parser needs to know which is which.
type resKind uint8

const (
	resAccount resKind = iota // no resource in a bucket: never fits a bucket policy
	resBucket
	resObject
)

// actions are the S3 actions a bucket policy may name, lower-cased, with the
// resource kind each applies to. Patterns must match at least one of them:
// AWS refuses unknown actions ("s3:GetObjekt") rather than ignoring them.
var actions = func() map[string]resKind {
	m := map[string]resKind{}
	add := func(k resKind, names string) {
		for _, n := range strings.Fields(names) {
			m["s3:"+strings.ToLower(n)] = k
		}
	}
	add(resAccount, `ListAllMyBuckets CreateJob ListJobs ListAccessPoints
		GetAccountPublicAccessBlock PutAccountPublicAccessBlock ListStorageLensConfigurations`)
	add(resBucket, `CreateBucket DeleteBucket ListBucket ListBucketVersions
		ListBucketMultipartUploads GetBucketLocation
		GetBucketAcl PutBucketAcl GetBucketPolicy PutBucketPolicy DeleteBucketPolicy
		GetBucketPolicyStatus GetBucketCORS PutBucketCORS GetBucketVersioning
		PutBucketVersioning GetBucketTagging PutBucketTagging GetBucketWebsite
		PutBucketWebsite DeleteBucketWebsite GetBucketLogging PutBucketLogging
		GetBucketNotification PutBucketNotification GetLifecycleConfiguration
		PutLifecycleConfiguration GetReplicationConfiguration PutReplicationConfiguration
		GetEncryptionConfiguration PutEncryptionConfiguration
		GetBucketObjectLockConfiguration PutBucketObjectLockConfiguration
		GetBucketOwnershipControls PutBucketOwnershipControls
		GetBucketPublicAccessBlock PutBucketPublicAccessBlock
		GetBucketRequestPayment PutBucketRequestPayment
		GetAccelerateConfiguration PutAccelerateConfiguration
		GetAnalyticsConfiguration PutAnalyticsConfiguration
		GetInventoryConfiguration PutInventoryConfiguration
		GetMetricsConfiguration PutMetricsConfiguration
		GetIntelligentTieringConfiguration PutIntelligentTieringConfiguration`)
	add(resObject, `GetObject GetObjectVersion PutObject DeleteObject DeleteObjectVersion
		GetObjectAcl GetObjectVersionAcl PutObjectAcl PutObjectVersionAcl
		GetObjectTagging GetObjectVersionTagging PutObjectTagging PutObjectVersionTagging
		DeleteObjectTagging DeleteObjectVersionTagging
		AbortMultipartUpload ListMultipartUploadParts RestoreObject
		GetObjectAttributes GetObjectVersionAttributes
		GetObjectRetention PutObjectRetention GetObjectLegalHold PutObjectLegalHold
		BypassGovernanceRetention GetObjectTorrent GetObjectVersionTorrent
		ReplicateObject ReplicateDelete ReplicateTags GetObjectVersionForReplication
		ObjectOwnerOverrideToBucketOwner`)
	return m
}()

// conditionKeys are the condition keys (lower-cased) a bucket policy may
// test; keyFamilies are the prefixes of keys that carry a name after them.
var conditionKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`
		aws:currenttime aws:epochtime aws:securetransport aws:sourceip
		aws:username aws:userid aws:principaltype aws:principalarn
		aws:principalaccount aws:principalorgid aws:principalorgpaths
		aws:principalisawsservice aws:principalservicename
		aws:referer aws:useragent aws:sourcevpc aws:sourcevpce aws:vpcsourceip
		aws:sourcearn aws:sourceaccount aws:sourceowner aws:sourceorgid aws:sourceorgpaths
		aws:multifactorauthpresent aws:multifactorauthage aws:tokenissuetime
		aws:tagkeys aws:calledvia aws:calledviafirst aws:calledvialast
		aws:viaawsservice aws:requestedregion aws:resourceaccount
		aws:resourceorgid aws:resourceorgpaths aws:federatedprovider
		s3:prefix s3:delimiter s3:max-keys s3:versionid s3:locationconstraint
		s3:x-amz-acl s3:x-amz-copy-source s3:x-amz-metadata-directive
		s3:x-amz-server-side-encryption s3:x-amz-server-side-encryption-aws-kms-key-id
		s3:x-amz-server-side-encryption-customer-algorithm
		s3:x-amz-storage-class s3:x-amz-website-redirect-location
		s3:x-amz-content-sha256 s3:x-amz-object-ownership
		s3:x-amz-grant-read s3:x-amz-grant-write s3:x-amz-grant-read-acp
		s3:x-amz-grant-write-acp s3:x-amz-grant-full-control
		s3:requestobjecttagkeys s3:object-lock-mode s3:object-lock-retain-until-date
		s3:object-lock-legal-hold s3:object-lock-remaining-retention-days
		s3:authtype s3:signatureversion s3:signatureage s3:tlsversion
		s3:resourceaccount s3:accesspointnetworkorigin s3:dataaccesspointarn
		s3:dataaccesspointaccount s3:if-match s3:if-none-match
		s3:objectcreationoperation`) {
		m[k] = true
	}
	return m
}()

var keyFamilies = []string{
	"aws:principaltag/", "aws:requesttag/", "aws:resourcetag/",
	"s3:existingobjecttag/", "s3:requestobjecttag/", "s3:buckettag/",
}

// validKey reports whether key (lower-cased) is a condition key.
func validKey(key string) bool {
	if conditionKeys[key] {
		return true
	}
	for _, f := range keyFamilies {
		if len(key) > len(f) && strings.EqualFold(key[:len(f)], f) {
			return true
		}
	}
	return false
}

// validAction reports whether pattern (lower-cased) is "*" or an s3:
// pattern that names at least one known action; kinds receives the resource
// kinds of the actions it names.
func validAction(pattern string) (kinds [3]bool, ok bool) {
	if pattern == "*" {
		return [3]bool{true, true, true}, true
	}
	name, found := strings.CutPrefix(pattern, "s3:")
	if !found || name == "" {
		return kinds, false
	}
	g := compileGlob(pattern)
	for a, k := range actions {
		if g.match(a) {
			kinds[k], ok = true, true
		}
	}
	return kinds, ok
}
