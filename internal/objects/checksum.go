package objects

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"strconv"
	"strings"
)

// Checksum algorithms S3 accepts, by their canonical upper-case names.
var checksumAlgorithms = map[string]func() hash.Hash{
	"CRC32":     func() hash.Hash { return crc32.NewIEEE() },
	"CRC32C":    func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) },
	"CRC64NVME": func() hash.Hash { return crc64.New(crc64NVME) },
	"SHA1":      sha1.New,
	"SHA256":    sha256.New,
}

// crc64NVME is the CRC-64/NVME polynomial in the reversed form hash/crc64
// expects (0xAD93D23594C93659 bit-reversed).
var crc64NVME = crc64.MakeTable(0x9a6c9329ac4bc9b5)

// ChecksumAlgorithm normalises an algorithm name and reports whether S3
// knows it.
func ChecksumAlgorithm(name string) (string, bool) {
	n := strings.ToUpper(name)
	_, ok := checksumAlgorithms[n]
	return n, ok
}

// ChecksumAlgorithms lists the algorithm names.
func ChecksumAlgorithms() []string {
	return []string{"CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"}
}

// digester computes the MD5 (for the ETag) and any requested checksums of a
// stream in one pass, as an io.Writer. Its MD5 may instead come from the
// platform that stored the stream (knownMD5).
type digester struct {
	md5      hash.Hash // nil when the platform reports it
	knownMD5 []byte
	algos    []string
	sums     []hash.Hash
	n        int64
}

func newDigester(algos []string, withMD5 bool) *digester {
	d := &digester{}
	if withMD5 {
		d.md5 = md5.New()
	}
	for _, a := range algos {
		if f, ok := checksumAlgorithms[a]; ok {
			d.algos = append(d.algos, a)
			d.sums = append(d.sums, f())
		}
	}
	return d
}

func (d *digester) Write(p []byte) (int, error) {
	if d.md5 != nil {
		d.md5.Write(p)
	}
	for _, h := range d.sums {
		h.Write(p)
	}
	d.n += int64(len(p))
	return len(p), nil
}

func (d *digester) md5Sum() []byte {
	if d.md5 == nil {
		return d.knownMD5
	}
	return d.md5.Sum(nil)
}

// etag is the quoted hex MD5, S3's ETag of a single PUT.
func (d *digester) etag() string { return `"` + hex.EncodeToString(d.md5Sum()) + `"` }

// checksums returns the requested checksums, base64 as S3 shows them.
func (d *digester) checksums() map[string]string {
	if len(d.algos) == 0 {
		return nil
	}
	m := make(map[string]string, len(d.algos))
	for i, a := range d.algos {
		m[a] = base64.StdEncoding.EncodeToString(d.sums[i].Sum(nil))
	}
	return m
}

// compositeChecksum is S3's checksum of a multipart object: the checksum of
// the parts' binary checksums concatenated, suffixed with the part count.
func compositeChecksum(algo string, partSums []string) (string, bool) {
	f, ok := checksumAlgorithms[algo]
	if !ok {
		return "", false
	}
	h := f()
	for _, s := range partSums {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || s == "" {
			return "", false
		}
		h.Write(b)
	}
	return base64.StdEncoding.EncodeToString(h.Sum(nil)) + "-" + strconv.Itoa(len(partSums)), true
}
