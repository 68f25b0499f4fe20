package s3

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// This file is the one table of what the endpoint honours: every request
// header and query parameter AWS defines for the operations Ostium
// routes (after the SDKs' serializers and the S3 API reference), and
// what Ostium does with it. A request that asks for something Ostium
// does not do gets AWS's answer for an unavailable feature before any
// handler runs and before a byte of its body is read, so nothing is
// stored; only what AWS itself ignores is ignored. Implementing a feature
// moves its rows from refused to honoured.
//
// A row is refused only if no current AWS SDK sends it by default:
// docs/s3-compatibility.md lists what the SDKs' default flows send, and
// test/e2e/test_sdks.py runs the Java v2 and JavaScript v3 ones against
// a node.

// disposition is what the endpoint does with a field.
type disposition uint8

const (
	honoured disposition = iota + 1
	refused
	ignored
)

func (d disposition) String() string {
	return [...]string{"", "honoured", "refused", "ignored"}[d]
}

// opSet is a set of operations: a bit for each, in as many words as
// there are operations.
type opSet [(opCount + 63) / 64]uint64

func ops(list ...Op) opSet {
	var s opSet
	for _, o := range list {
		s[o/64] |= 1 << (o % 64)
	}
	return s
}

func (s opSet) has(o Op) bool { return s[o/64]&(1<<(o%64)) != 0 }

// union is every operation of any of the sets.
func union(sets ...opSet) opSet {
	var u opSet
	for _, t := range sets {
		for i := range u {
			u[i] |= t[i]
		}
	}
	return u
}

// without is s less the operations of t.
func (s opSet) without(t opSet) opSet {
	for i := range s {
		s[i] &^= t[i]
	}
	return s
}

// documentOps are the operations whose body is a document (xmlio.go).
func documentOps() opSet {
	var s opSet
	for o := range documents {
		s = union(s, ops(o))
	}
	return s
}

// everyOp is every operation but OpUnknown.
func everyOp() opSet {
	var s opSet
	for o := Op(1); o < opCount; o++ {
		s = union(s, ops(o))
	}
	return s
}

// field is one row: a header (or, with query, a query parameter) on some
// operations, optionally only with some values.
type field struct {
	name  string // header or parameter; a trailing "*" makes a prefix
	query bool
	ops   opSet
	// values, when set, limits the row to these values (any of a
	// comma-separated list, case-folded); a row without values covers
	// the rest.
	values []string
	how    disposition
	// err is a refused row's answer (errNotImplemented if nil).
	err *apiError
	// check validates an honoured row's value before any handler runs.
	check func(r *http.Request, c *call, v string) error
	// note says why (refused, ignored) or where the behaviour is pinned
	// by a test (honoured).
	note string
}

// Operation groups.
var (
	allOps = everyOp()

	objectWrites = ops(OpPutObject, OpCopyObject, OpCreateMultipartUpload)
	objectReads  = ops(OpGetObject, OpHeadObject)
	// bucketOps are the operations on a bucket, where AWS defines
	// x-amz-expected-bucket-owner.
	bucketOps = allOps.without(ops(OpListBuckets, OpCreateBucket, OpQueryAPI))
	// payerOps are those where AWS defines x-amz-request-payer.
	payerOps = ops(OpPutObject, OpCopyObject, OpCreateMultipartUpload, OpUploadPart, OpUploadPartCopy,
		OpCompleteMultipartUpload, OpAbortMultipartUpload, OpListParts, OpListMultipartUploads,
		OpGetObject, OpHeadObject, OpDeleteObject, OpDeleteObjects, OpListObjects, OpListObjectsV2,
		OpListObjectVersions, OpGetObjectAcl, OpPutObjectAcl, OpGetObjectAttributes)
	// bodyChecksums are the writes whose payload may carry checksums.
	bodyChecksums = ops(OpPutObject, OpUploadPart)
	// xmlWrites are the operations whose body is a document.
	xmlWrites = documentOps()
	// sseCReaders take SSE-C keys to read or extend an encrypted object
	// or upload.
	sseCReaders = union(objectReads, ops(OpUploadPart, OpUploadPartCopy, OpListParts, OpCompleteMultipartUpload, OpGetObjectAttributes))
	copies      = ops(OpCopyObject, OpUploadPartCopy)
	lists       = ops(OpListObjects, OpListObjectsV2, OpListObjectVersions)
)

// Answers for what is not available.
var (
	errArchiveClass = &apiError{400, "InvalidStorageClass", "The storage class you specified is not valid"}
	errChecksumAlgo = &apiError{400, "InvalidRequest", "Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]"}
)

// fields is the table. Rows with values come before the row of the
// same name without, which covers the other values.
var fields = []field{
	// Authentication and framing, every operation: package sigv4.
	{name: "Authorization", ops: allOps, how: honoured, note: "TestHeaderSignedBySDK, TestSignatureV2, TestAuthErrors"},
	{name: "X-Amz-Date", ops: allOps, how: honoured, note: "TestHeaderSignedBySDK"},
	{name: "Date", ops: allOps, how: honoured, note: "TestSignatureV2"},
	{name: "X-Amz-Content-Sha256", ops: allOps, how: honoured, note: "TestHeaderSignedBySDK"},
	{name: "X-Amz-Decoded-Content-Length", ops: allOps, how: honoured, note: "TestChunkedFraming, TestAWSChunkedExample"},
	{name: "X-Amz-Trailer", ops: union(bodyChecksums, xmlWrites), values: []string{"x-amz-checksum-md5", "x-amz-checksum-sha512", "x-amz-checksum-xxhash64", "x-amz-checksum-xxhash3", "x-amz-checksum-xxhash128"}, how: refused, err: errChecksumAlgo, note: "algorithms not computed yet"},
	{name: "X-Amz-Trailer", ops: union(bodyChecksums, xmlWrites), how: honoured, note: "TestTrailers, TestPutGetMetadata (the SDK's CRC32 trailer over TLS)"},
	{name: "Content-Length", ops: allOps, how: honoured, note: "TestClientDropsMidUpload, TestTruncatedXMLBody"},
	{name: "Expect", ops: allOps, how: honoured, note: "TestExpectContinueEmptyBody"},
	{name: "X-Amz-Algorithm", query: true, ops: allOps, how: honoured, note: "TestPresigned, TestPresignedBySDK"},
	{name: "X-Amz-Credential", query: true, ops: allOps, how: honoured, note: "TestPresignedBySDK"},
	{name: "X-Amz-Date", query: true, ops: allOps, how: honoured, note: "TestPresignedBySDK"},
	{name: "X-Amz-Expires", query: true, ops: allOps, how: honoured, note: "TestPresignedBySDK"},
	{name: "X-Amz-SignedHeaders", query: true, ops: allOps, how: honoured, note: "TestPresignedBySDK"},
	{name: "X-Amz-Signature", query: true, ops: allOps, how: honoured, note: "TestPresignedBySDK"},
	{name: "AWSAccessKeyId", query: true, ops: allOps, how: honoured, note: "TestSignatureV2"},
	{name: "Signature", query: true, ops: allOps, how: honoured, note: "TestSignatureV2"},
	{name: "Expires", query: true, ops: allOps, how: honoured, note: "TestSignatureV2"},
	{name: "x-id", query: true, ops: allOps, how: ignored, note: "the SDKs' operation label; AWS ignores it"},

	// Integrity.
	{name: "Content-MD5", ops: union(bodyChecksums, xmlWrites), how: honoured, check: checkContentMD5, note: "TestBadBodies, TestEmptyContentMD5, TestXMLBodyDigests"},
	{name: "X-Amz-Sdk-Checksum-Algorithm", ops: union(bodyChecksums, xmlWrites), values: []string{"MD5", "SHA512", "XXHASH64", "XXHASH3", "XXHASH128"}, how: refused, err: errChecksumAlgo, note: "algorithms not computed yet"},
	{name: "X-Amz-Sdk-Checksum-Algorithm", ops: union(bodyChecksums, xmlWrites), how: honoured, note: "TestChecksumAlgorithms, TestXMLBodyDigests"},
	{name: "X-Amz-Checksum-Crc32", ops: union(bodyChecksums, xmlWrites, ops(OpCompleteMultipartUpload)), how: honoured, note: "TestChecksumAlgorithms, TestMultipartFullObjectChecksum, TestXMLBodyDigests"},
	{name: "X-Amz-Checksum-Crc32c", ops: union(bodyChecksums, xmlWrites, ops(OpCompleteMultipartUpload)), how: honoured, note: "TestChecksumAlgorithms, TestMultipartFullObjectChecksum"},
	{name: "X-Amz-Checksum-Crc64nvme", ops: union(bodyChecksums, xmlWrites, ops(OpCompleteMultipartUpload)), how: honoured, note: "TestChecksumAlgorithms, TestMultipartFullObjectChecksum"},
	{name: "X-Amz-Checksum-Sha1", ops: union(bodyChecksums, xmlWrites, ops(OpCompleteMultipartUpload)), how: honoured, note: "TestChecksumAlgorithms, TestPutGetMetadata"},
	{name: "X-Amz-Checksum-Sha256", ops: union(bodyChecksums, xmlWrites, ops(OpCompleteMultipartUpload)), how: honoured, note: "TestChecksumAlgorithms, TestPutGetMetadata"},
	{name: "X-Amz-Checksum-Md5", ops: union(bodyChecksums, ops(OpCompleteMultipartUpload)), how: refused, err: errChecksumAlgo, note: "algorithm not computed yet"},
	{name: "X-Amz-Checksum-Sha512", ops: union(bodyChecksums, ops(OpCompleteMultipartUpload)), how: refused, err: errChecksumAlgo, note: "algorithm not computed yet"},
	{name: "X-Amz-Checksum-Xxhash64", ops: union(bodyChecksums, ops(OpCompleteMultipartUpload)), how: refused, err: errChecksumAlgo, note: "algorithm not computed yet"},
	{name: "X-Amz-Checksum-Xxhash3", ops: union(bodyChecksums, ops(OpCompleteMultipartUpload)), how: refused, err: errChecksumAlgo, note: "algorithm not computed yet"},
	{name: "X-Amz-Checksum-Xxhash128", ops: union(bodyChecksums, ops(OpCompleteMultipartUpload)), how: refused, err: errChecksumAlgo, note: "algorithm not computed yet"},
	{name: "X-Amz-Checksum-Algorithm", ops: ops(OpCreateMultipartUpload), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "X-Amz-Checksum-Algorithm", ops: ops(OpCopyObject), how: refused, note: "a copy does not compute new checksums yet"},
	{name: "X-Amz-Checksum-Type", ops: ops(OpCreateMultipartUpload, OpCompleteMultipartUpload), how: honoured, note: "TestMultipartFullObjectChecksum, TestCompleteChecksumType"},
	{name: "X-Amz-Checksum-Mode", ops: objectReads, how: honoured, note: "TestChecksumAlgorithms, TestPutGetMetadata"},

	// What an object is stored with.
	{name: "Cache-Control", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "Content-Disposition", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "Content-Encoding", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "Content-Language", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "Content-Type", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "Expires", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "X-Amz-Meta-*", ops: objectWrites, how: honoured, note: "TestPutGetMetadata"},
	{name: "X-Amz-Metadata-Directive", ops: ops(OpCopyObject), how: honoured, note: "TestCopyObject"},
	{name: "X-Amz-Storage-Class", ops: objectWrites, values: []string{"GLACIER", "DEEP_ARCHIVE"}, how: refused, err: errArchiveClass, note: "archive classes: AWS refuses reads until restored, and nothing here restores"},
	{name: "X-Amz-Storage-Class", ops: objectWrites, values: []string{"OUTPOSTS", "SNOW", "EXPRESS_ONEZONE"}, how: refused, err: errArchiveClass, note: "as AWS on a general purpose bucket"},
	{name: "X-Amz-Storage-Class", ops: objectWrites, how: honoured, note: "recorded and returned: TestStorageClassesHonoured"},
	{name: "X-Amz-Tagging", ops: objectWrites, how: honoured, note: "TestObjectTaggingHeader, TestCopyTaggingDirective, TestMultipartTagging, TestTagConditions"},
	{name: "X-Amz-Tagging-Directive", ops: ops(OpCopyObject), how: honoured, note: "TestCopyTaggingDirective"},
	{name: "x-amz-tagging", query: true, ops: objectWrites, how: honoured, note: "where presigners hoist the header: TestPresignedTagging"},
	{name: "X-Amz-Website-Redirect-Location", ops: objectWrites, how: refused, note: "website hosting"},
	{name: "X-Amz-Object-Annotation-Directive", ops: ops(OpCopyObject), how: refused, note: "object annotations"},
	{name: "X-Amz-Write-Offset-Bytes", ops: ops(OpPutObject), how: refused, note: "appends: AWS's directory buckets only"},

	// Encryption at rest (sse.go, package objects' encrypt.go): checked
	// as AWS checks them before a byte of the body is read.
	{name: "X-Amz-Server-Side-Encryption", ops: objectWrites, values: []string{"aws:kms:dsse"}, how: refused, note: "dual-layer SSE-KMS is not offered"},
	{name: "X-Amz-Server-Side-Encryption", ops: objectWrites, how: honoured, note: "TestSSEKinds, TestSSEHeaderErrors, TestSSEPolicyRequiresEncryption, TestSSEFormUpload"},
	{name: "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", ops: objectWrites, how: honoured, note: "TestSSEKinds, TestSSEHeaderErrors"},
	{name: "X-Amz-Server-Side-Encryption-Context", ops: objectWrites, how: honoured, note: "TestSSEKinds, TestSSEHeaderErrors"},
	{name: "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled", ops: objectWrites, how: honoured, note: "accepted and echoed, as AWS: TestSSEKinds"},
	{name: "X-Amz-Server-Side-Encryption-Customer-Algorithm", ops: union(objectWrites, sseCReaders), how: honoured, note: "TestSSEKinds, TestSSECErrors, TestSSECOverHTTP, TestSSECCatalogKeepsNoPlaintextDigest"},
	{name: "X-Amz-Server-Side-Encryption-Customer-Key", ops: union(objectWrites, sseCReaders), how: honoured, note: "TestSSEKinds, TestSSECErrors"},
	{name: "X-Amz-Server-Side-Encryption-Customer-Key-Md5", ops: union(objectWrites, sseCReaders), how: honoured, note: "TestSSECErrors"},
	{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Algorithm", ops: copies, how: honoured, note: "TestSSECopyMatrix"},
	{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key", ops: copies, how: honoured, note: "TestSSECopyMatrix"},
	{name: "X-Amz-Copy-Source-Server-Side-Encryption-Customer-Key-Md5", ops: copies, how: honoured, note: "TestSSECopyMatrix"},

	// Object lock.
	{name: "X-Amz-Object-Lock-Mode", ops: objectWrites, how: honoured, note: "TestObjectLockHeaders, TestObjectLockDefaults"},
	{name: "X-Amz-Object-Lock-Retain-Until-Date", ops: objectWrites, how: honoured, note: "TestObjectLockHeaders, TestObjectLockDefaults"},
	{name: "X-Amz-Object-Lock-Legal-Hold", ops: objectWrites, how: honoured, note: "TestObjectLockHeaders, TestLegalHold"},
	{name: "X-Amz-Object-Lock-Event-Hold", ops: objectWrites, how: refused, note: "object lock event holds"},
	{name: "X-Amz-Object-Lock-Event-Hold-Duration-Days", ops: objectWrites, how: refused, note: "object lock event holds"},
	{name: "X-Amz-Object-Lock-Event-Hold-Duration-Years", ops: objectWrites, how: refused, note: "object lock event holds"},
	{name: "X-Amz-Bucket-Object-Lock-Enabled", ops: ops(OpCreateBucket), how: honoured, note: "TestObjectLockBucket; false: TestIgnoredAndValueRows"},
	{name: "X-Amz-Bypass-Governance-Retention", ops: ops(OpDeleteObject, OpDeleteObjects, OpPutObjectRetention), how: honoured, note: "TestGovernanceBypass, TestRetentionChanges"},

	// Access.
	{name: "X-Amz-Acl", ops: union(objectWrites, ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Grant-Read", ops: union(objectWrites, ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Grant-Read-Acp", ops: union(objectWrites, ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Grant-Write-Acp", ops: union(objectWrites, ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Grant-Full-Control", ops: union(objectWrites, ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl)), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Grant-Write", ops: ops(OpCreateBucket, OpPutBucketAcl, OpPutObjectAcl), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Object-Ownership", ops: ops(OpCreateBucket), how: honoured, note: "TestACLGrants, TestNewBucketDisablesACLs"},
	{name: "X-Amz-Bucket-Namespace", ops: ops(OpCreateBucket), how: refused, note: "account-regional bucket namespaces"},
	{name: "X-Amz-Expected-Bucket-Owner", ops: bucketOps, how: honoured, note: "TestExpectedBucketOwner"},
	{name: "X-Amz-Source-Expected-Bucket-Owner", ops: copies, how: honoured, note: "TestExpectedBucketOwner"},
	{name: "X-Amz-Request-Payer", ops: payerOps, how: ignored, note: "no bucket is Requester Pays; AWS ignores it then"},
	{name: "X-Amz-Mfa", ops: ops(OpDeleteObject, OpDeleteObjects, OpPutBucketVersioning), how: ignored, note: "no bucket has MFA delete (PutBucketVersioning refuses to turn it on: TestBucketVersioningConfiguration); AWS ignores it then"},
	{name: "X-Amz-Confirm-Remove-Self-Bucket-Access", ops: ops(OpPutBucketPolicy), how: ignored, note: "no policy can lock its owner out here"},

	// Conditions.
	{name: "If-Match", ops: union(objectReads, ops(OpPutObject, OpCopyObject, OpCompleteMultipartUpload)), how: honoured, note: "TestRangeAndConditions; writes: TestConditionalOverwrite"},
	{name: "If-None-Match", ops: union(objectReads, ops(OpPutObject, OpCopyObject, OpCompleteMultipartUpload)), how: honoured, note: "TestRangeAndConditions; writes: \"*\" or entity tags, TestConditionalWriteETag"},
	{name: "If-Modified-Since", ops: objectReads, how: honoured, note: "TestRangeAndConditions"},
	{name: "If-Unmodified-Since", ops: objectReads, how: honoured, note: "TestRangeAndConditions"},
	{name: "If-Match", ops: ops(OpDeleteObject), how: refused, note: "conditional deletes"},
	{name: "X-Amz-If-Match-Last-Modified-Time", ops: ops(OpDeleteObject), how: refused, note: "AWS's directory buckets only"},
	{name: "X-Amz-If-Match-Size", ops: ops(OpDeleteObject), how: refused, note: "AWS's directory buckets only"},
	{name: "X-Amz-If-Match-Initiated-Time", ops: ops(OpAbortMultipartUpload), how: refused, note: "AWS's directory buckets only"},
	{name: "X-Amz-Mp-Object-Size", ops: ops(OpCompleteMultipartUpload), how: honoured, check: checkObjectSize, note: "the parts must add up to it (the Java v2 TransferManager sends it): TestCompleteObjectSize; e2e test_sdks.py"},
	{name: "X-Amz-Copy-Source", ops: copies, how: honoured, note: "TestCopyObject, TestUploadPartCopy; ?versionId= in it: TestCopyFromVersion"},
	{name: "X-Amz-Copy-Source-If-Match", ops: copies, how: honoured, note: "TestCopyObject"},
	{name: "X-Amz-Copy-Source-If-None-Match", ops: copies, how: honoured, note: "TestCopyObject"},
	{name: "X-Amz-Copy-Source-If-Modified-Since", ops: copies, how: honoured, note: "TestCopyObject"},
	{name: "X-Amz-Copy-Source-If-Unmodified-Since", ops: copies, how: honoured, note: "TestCopyObject"},
	{name: "X-Amz-Copy-Source-Range", ops: ops(OpUploadPartCopy), how: honoured, note: "TestUploadPartCopy"},
	{name: "Range", ops: objectReads, how: honoured, note: "TestRangeAndConditions"},

	// Query parameters.
	{name: "versionId", query: true, ops: ops(OpGetObject, OpHeadObject, OpDeleteObject, OpGetObjectAcl, OpPutObjectAcl), how: honoured, check: checkVersionID, note: "any version or delete marker: TestVersionedWrites, TestDeleteMarkers, TestVersionACLs, TestBadVersionID"},
	{name: "versionId", query: true, ops: ops(OpGetObjectTagging, OpPutObjectTagging, OpDeleteObjectTagging), how: honoured, check: checkVersionID, note: "TestObjectTagging"},
	{name: "versionId", query: true, ops: ops(OpGetObjectRetention, OpPutObjectRetention, OpGetObjectLegalHold, OpPutObjectLegalHold), how: honoured, check: checkVersionID, note: "TestRetentionChanges, TestLegalHold"},
	{name: "versionId", query: true, ops: ops(OpGetObjectAttributes), how: honoured, check: checkVersionID, note: "TestGetObjectAttributes"},
	{name: "partNumber", query: true, ops: union(objectReads, ops(OpUploadPart, OpUploadPartCopy)), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "uploadId", query: true, ops: ops(OpUploadPart, OpUploadPartCopy, OpCompleteMultipartUpload, OpAbortMultipartUpload, OpListParts), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "response-*", query: true, ops: objectReads, how: honoured, check: checkResponseOverrides, note: "TestAnonymousResponseOverrides; e2e test_presigned_response_overrides"},
	{name: "prefix", query: true, ops: union(lists, ops(OpListMultipartUploads, OpListBuckets)), how: honoured, note: "TestListObjectsV2, TestListBucketsPaging"},
	{name: "delimiter", query: true, ops: union(lists, ops(OpListMultipartUploads)), how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "encoding-type", query: true, ops: union(lists, ops(OpListMultipartUploads)), how: honoured, note: "TestListEncodingURL, TestListObjectsV2; e2e test_list_objects_v1_prefix_roundtrip"},
	{name: "max-keys", query: true, ops: lists, how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "marker", query: true, ops: ops(OpListObjects), how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "list-type", query: true, ops: ops(OpListObjectsV2), how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "continuation-token", query: true, ops: ops(OpListObjectsV2, OpListBuckets), how: honoured, note: "TestListObjectsV2, TestListBucketsPaging"},
	{name: "start-after", query: true, ops: ops(OpListObjectsV2), how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "fetch-owner", query: true, ops: ops(OpListObjectsV2), how: honoured, note: "TestListObjectsV1, TestListObjectsV2, TestListObjectVersions"},
	{name: "key-marker", query: true, ops: ops(OpListObjectVersions, OpListMultipartUploads), how: honoured, note: "TestListObjectVersions, TestListObjectVersionsComplete, TestMultipart"},
	{name: "version-id-marker", query: true, ops: ops(OpListObjectVersions), how: honoured, note: "TestListObjectVersions, TestListObjectVersionsComplete"},
	{name: "upload-id-marker", query: true, ops: ops(OpListMultipartUploads), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "max-uploads", query: true, ops: ops(OpListMultipartUploads), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "max-parts", query: true, ops: ops(OpListParts), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "part-number-marker", query: true, ops: ops(OpListParts), how: honoured, note: "TestMultipart, TestMultipartFullObjectChecksum"},
	{name: "max-buckets", query: true, ops: ops(OpListBuckets), how: honoured, note: "TestListBucketsPaging"},
	{name: "bucket-region", query: true, ops: ops(OpListBuckets), how: honoured, note: "TestListBucketsPaging"},
	{name: "X-Amz-Object-Attributes", ops: ops(OpGetObjectAttributes), how: honoured, note: "TestGetObjectAttributes"},
	{name: "X-Amz-Max-Parts", ops: ops(OpGetObjectAttributes), how: honoured, note: "TestGetObjectAttributes"},
	{name: "X-Amz-Part-Number-Marker", ops: ops(OpGetObjectAttributes), how: honoured, note: "TestGetObjectAttributes"},
	{name: "X-Amz-Transition-Default-Minimum-Object-Size", ops: ops(OpPutBucketLifecycleConfiguration), how: ignored, note: "both values mean the same here: every class a transition may reach keeps AWS's 128 KiB minimum (they differ only for the archive classes, which are refused)"},
	{name: "X-Amz-Skip-Destination-Validation", ops: ops(OpPutBucketNotificationConfiguration), values: []string{"false"}, how: honoured, note: "destinations are checked, as without it: TestNotificationTargetsRefused"},
	{name: "X-Amz-Skip-Destination-Validation", ops: ops(OpPutBucketNotificationConfiguration), how: refused, note: "a destination is always checked against the targets the provider opened to the tenant"},
	{name: "X-Amz-Optional-Object-Attributes", ops: lists, how: ignored, note: "RestoreStatus: no object is ever archived, so AWS's answer would carry nothing more"},

	// Browsers: CORS and form uploads.
	{name: "Origin", ops: allOps, how: honoured, note: "TestCorsPreflight, TestCorsActualRequests"},
	{name: "Access-Control-Request-Method", ops: allOps, how: honoured, note: "TestCorsPreflight, TestCorsActualRequests"},
	{name: "Access-Control-Request-Headers", ops: allOps, how: honoured, note: "TestCorsPreflight"},
	{name: "Content-Type", ops: ops(OpPostObject), how: honoured, note: "multipart/form-data and its boundary; the form's fields are held to this table as PutObject's headers: TestPostObjectSigV4BySDK, TestPostObjectBadForms, TestPostObjectChecksumFields"},
}

// byOp holds, for each operation, the rows that apply to it.
var byOp [opCount][]*field

func init() {
	for i := range fields {
		f := &fields[i]
		if !f.query {
			f.name = textproto.CanonicalMIMEHeaderKey(f.name)
		}
		for op := Op(1); op < opCount; op++ {
			if f.ops.has(op) {
				byOp[op] = append(byOp[op], f)
			}
		}
	}
}

// prefix returns the prefix of a prefix row, "" for an exact one.
func (f *field) prefix() string {
	if p, ok := strings.CutSuffix(f.name, "*"); ok {
		return p
	}
	return ""
}

// matches reports whether a value falls in the row's values.
func (f *field) matches(v string) bool {
	if f.values == nil {
		return true
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		for _, want := range f.values {
			if strings.EqualFold(part, want) {
				return true
			}
		}
	}
	return false
}

// present returns the values of the row's field the request carries
// (each of a prefix row's names), and whether it carries any.
func (f *field) present(r *http.Request, q map[string][]string) ([]string, bool) {
	src := map[string][]string(r.Header)
	if f.query {
		src = q
	}
	p := f.prefix()
	if p == "" {
		vs, ok := src[f.name]
		return vs, ok
	}
	var out []string
	found := false
	for k, vs := range src {
		if len(k) >= len(p) && strings.EqualFold(k[:len(p)], p) {
			out, found = append(out, vs...), true
		}
	}
	return out, found
}

// honour applies the table to a routed request: the first refused field
// it carries, or a failed check of an honoured one, is its answer.
func honour(r *http.Request, c *call) error {
	// A value row is taken before the row of its name that covers the
	// rest; the table lists them together, in that order.
	var decided *field
	for _, f := range byOp[c.Op] {
		if decided != nil && decided.name == f.name && decided.query == f.query {
			continue
		}
		vs, ok := f.present(r, c.Query)
		if !ok {
			continue
		}
		v := strings.Join(vs, ",")
		if !f.matches(v) {
			continue
		}
		decided = f
		switch f.how {
		case refused:
			if f.err != nil {
				return f.err
			}
			return errNotImplemented
		case honoured:
			if f.check != nil {
				if err := f.check(r, c, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	errEmptyMD5      = &apiError{400, "InvalidDigest", "The Content-MD5 you specified was invalid."}
	errBadVersionID  = &apiError{400, "InvalidArgument", "Invalid version id specified"}
	errAnonOverrides = &apiError{400, "InvalidRequest", "Request specific response headers cannot be used for anonymous GET requests."}
)

// checkObjectSize holds x-amz-mp-object-size to what it can be, with
// AWS's answers: a decimal integer, not below zero. Whether the parts add
// up to it is the object service's to say (CompleteUpload).
func checkObjectSize(_ *http.Request, _ *call, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		return &apiError{400, "InvalidRequest", "Value for x-amz-mp-object-size header is invalid: '" + v + "'"}
	case n < 0:
		return &apiError{400, "InvalidRequest", "Value for x-amz-mp-object-size header is less than zero: '" + v + "'"}
	}
	return nil
}

// checkContentMD5 refuses an empty Content-MD5, as AWS: the client asked
// for a check it gave nothing to check against.
func checkContentMD5(_ *http.Request, _ *call, v string) error {
	if strings.TrimSpace(v) == "" {
		return errEmptyMD5
	}
	return nil
}

// checkVersionID accepts "null" and what a version id can be: URL-safe
// ASCII, at most 1024 bytes (AWS's ids are of that alphabet).
func checkVersionID(_ *http.Request, _ *call, v string) error {
	if !validVersionID(v) {
		return errBadVersionID
	}
	return nil
}

func validVersionID(v string) bool {
	if v == "null" {
		return true
	}
	if v == "" || len(v) > 1024 {
		return false
	}
	for i := 0; i < len(v); i++ {
		switch b := v[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == '-', b == '_', b == '.':
		default:
			return false
		}
	}
	return true
}

// checkResponseOverrides refuses response-* overrides from anonymous
// callers, as AWS: only a signed request may choose how a response
// describes the object.
func checkResponseOverrides(_ *http.Request, c *call, _ string) error {
	if c.id == nil {
		return errAnonOverrides
	}
	return nil
}
