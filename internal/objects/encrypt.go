package objects

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/sse"
)

// The kinds of encryption at rest, as catalog.Encryption.Kind records
// them (and, but for SSE-C, as x-amz-server-side-encryption names them).
const (
	KindS3   = "AES256"  // SSE-S3: under the tenant's own key
	KindKMS  = "aws:kms" // SSE-KMS: under a tenant key the client names
	KindSSEC = "SSE-C"   // SSE-C: under the key the client sends with every request
)

// EncryptRequest asks for a write to be encrypted at rest: filled by the
// S3 layer from the request's headers, else the bucket's, tenant's or
// provider's default.
type EncryptRequest struct {
	Kind      string // KindS3, KindKMS or KindSSEC
	KeyID     string // SSE-KMS: the tenant key; "" = the tenant's default key
	Context   string // SSE-KMS: x-amz-server-side-encryption-context as sent (base64 JSON)
	BucketKey bool   // x-amz-server-side-encryption-bucket-key-enabled, recorded as asked
	// CustomerKey is SSE-C's 256-bit key, decoded (and its MD5 checked)
	// by the S3 layer. It is never stored.
	CustomerKey []byte
}

// inlineIdentity is the format's identity of bytes kept in a catalog
// row, which have no blob id. Their data key is the object's own and
// encrypts nothing else, so no nonce repeats; what binds the bytes to
// their object is that key, wrapped under the object's key context.
const inlineIdentity = "inline"

// sealing is how one write is encrypted: the data key, and what the
// catalog records of it.
type sealing struct {
	key  []byte
	enc  *catalog.Encryption
	part int // the part number the format binds (0: a single PUT)
}

// KeyContext binds a wrapped data key to the object it encrypts (as AWS
// binds SSE-KMS keys to aws:s3:arn) and to SSE-KMS's encryption
// context: the key service refuses to unwrap it for any other. The key
// service's rotation re-wraps with the same context, from the same
// catalog row.
func KeyContext(bucket, key string, enc *catalog.Encryption) []byte {
	ctx := ""
	if enc != nil {
		ctx = enc.Context
	}
	return []byte("ostium object\x00" + bucket + "\x00" + key + "\x00" + ctx)
}

// newSealing makes the data key of a write of bucket b's key asked for
// by req (nil: none).
func (s *Service) newSealing(ctx context.Context, b catalog.Bucket, key string, req *EncryptRequest) (*sealing, error) {
	if req == nil {
		var err error
		if req, err = s.defaultRequest(ctx, b); err != nil || req == nil {
			return nil, err
		}
	}
	enc := &catalog.Encryption{Kind: req.Kind, BucketKey: req.BucketKey}
	switch req.Kind {
	case KindSSEC:
		if len(req.CustomerKey) != sse.KeySize {
			return nil, errorf(ErrInvalidArgument, "The secret key was invalid for the specified algorithm.")
		}
		dk := make([]byte, sse.KeySize)
		if _, err := rand.Read(dk); err != nil {
			return nil, fmt.Errorf("objects: data key: %w", err)
		}
		// No digest of the key is kept (an unsalted one would tell where
		// else the key is used): the wrapped data key, which opens under
		// this key alone, is what checks the key a read brings.
		w, err := wrapCustomer(req.CustomerKey, dk, KeyContext(b.Name, key, enc))
		if err != nil {
			return nil, err
		}
		enc.WrappedKey = w
		return &sealing{key: dk, enc: enc}, nil
	case KindS3, KindKMS:
		if s.keys == nil {
			return nil, errorf(ErrInvalidRequest, "Server-side encryption is not available on this server.")
		}
		if req.Kind == KindKMS {
			enc.Context = req.Context
		}
		keyID := req.KeyID
		if req.Kind == KindS3 || keyID == "" {
			var err error
			if keyID, err = s.keys.DefaultKey(ctx, b.Tenant); err != nil {
				return nil, fmt.Errorf("objects: tenant key of %q: %w", b.Tenant, err)
			}
		}
		dk, err := s.keys.NewDataKey(ctx, b.Tenant, keyID, KeyContext(b.Name, key, enc))
		if err != nil {
			return nil, fmt.Errorf("objects: data key under %s: %w", keyID, err)
		}
		enc.KeyID, enc.WrappedKey = dk.KeyID, dk.Wrapped
		return &sealing{key: dk.Plain, enc: enc}, nil
	}
	return nil, errorf(ErrInvalidArgument, fmt.Sprintf("The encryption method specified is not supported: %q", req.Kind))
}

// wrapCustomer seals an SSE-C object's data key under the customer's key
// (AES-256-GCM, a random nonce in front), so that only that key opens it.
func wrapCustomer(customer, dk, context []byte) ([]byte, error) {
	aead, err := customerAEAD(customer)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(dk)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("objects: nonce: %w", err)
	}
	return aead.Seal(nonce, nonce, dk, context), nil
}

func unwrapCustomer(customer, wrapped, context []byte) ([]byte, error) {
	aead, err := customerAEAD(customer)
	if err != nil {
		return nil, err
	}
	if len(wrapped) < aead.NonceSize() {
		return nil, errors.New("objects: wrapped key too short")
	}
	return aead.Open(nil, wrapped[:aead.NonceSize()], wrapped[aead.NonceSize():], context)
}

func customerAEAD(customer []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(customer)
	if err != nil {
		return nil, errorf(ErrInvalidArgument, "The secret key was invalid for the specified algorithm.")
	}
	return cipher.NewGCM(block)
}

// S3's answers to a read with the wrong SSE-C parameters.
// ErrCustomerKeyRequired (a read of an SSE-C object without its key) is
// exported so that the console can tell the user why it cannot show the
// object, rather than show S3's message.
var (
	ErrCustomerKeyRequired = errorf(ErrInvalidRequest, "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.")
	errNotCustomerKey      = errorf(ErrInvalidRequest, "The encryption parameters are not applicable to this object.")
	errWrongCustomerKey    = errorf(ErrAccessDenied, "Access Denied")
)

// dataKey opens the data key of bytes of bucket b's key encrypted as enc
// (nil: plaintext, and a nil key), with the customer's key for SSE-C.
// unwrap false only checks what can be checked without the key service
// (a HEAD of an SSE-S3 object needs no key).
func (s *Service) dataKey(ctx context.Context, b catalog.Bucket, key string, enc *catalog.Encryption, customer []byte, unwrap bool) ([]byte, error) {
	switch {
	case enc == nil:
		if customer != nil {
			return nil, errNotCustomerKey
		}
		return nil, nil
	case enc.Kind == KindSSEC:
		if customer == nil {
			return nil, ErrCustomerKeyRequired
		}
		if enc.CustomerKeyMD5 != "" { // a version written when the digest was kept
			sum := md5.Sum(customer)
			want, _ := base64.StdEncoding.DecodeString(enc.CustomerKeyMD5)
			if subtle.ConstantTimeCompare(sum[:], want) != 1 {
				return nil, errWrongCustomerKey
			}
		}
		dk, err := unwrapCustomer(customer, enc.WrappedKey, KeyContext(b.Name, key, enc))
		if err != nil {
			return nil, errWrongCustomerKey
		}
		return dk, nil
	case customer != nil:
		return nil, errNotCustomerKey
	case !unwrap:
		return nil, nil
	case s.keys == nil:
		return nil, fmt.Errorf("objects: %s/%s is encrypted (%s) and this server has no key service", b.Name, key, enc.Kind)
	}
	dk, err := s.keys.Unwrap(ctx, b.Tenant, enc.KeyID, enc.WrappedKey, KeyContext(b.Name, key, enc))
	if err != nil {
		return nil, fmt.Errorf("objects: data key of %s/%s: %w", b.Name, key, err)
	}
	return dk, nil
}

// etag is the ETag of bytes whose MD5 is plainMD5 written under sl.
// SSE-S3's is the plaintext's MD5, as AWS; SSE-KMS's and SSE-C's is not
// (as AWS), and confirms no guess of the plaintext, to the client or to
// whoever reads the catalog: an HMAC of the MD5 under the data key,
// which the catalog holds only wrapped, cut to an MD5's length.
func (sl *sealing) etag(plainMD5 []byte, identity string) string {
	if sl.enc.Kind == KindS3 {
		return `"` + hex.EncodeToString(plainMD5) + `"`
	}
	m := hmac.New(sha256.New, sl.key)
	io.WriteString(m, "ostium etag v1\x00")
	m.Write(plainMD5)
	io.WriteString(m, identity)
	return `"` + hex.EncodeToString(m.Sum(nil)[:md5.Size]) + `"`
}

// SSE-C checksums. A checksum of the plaintext kept in the clear would
// confirm a guess of an SSE-C object's bytes to whoever reads the
// catalog, so the catalog keeps them sealed under the object's data key
// (AES-256-GCM, under a key derived from it), bound to the object (and
// part); they are opened for a request that brings the customer's key.

// checksumAEAD is the cipher of checksums sealed under data key dk.
func checksumAEAD(dk []byte) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, dk)
	io.WriteString(m, "ostium checksums v1")
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("objects: checksum key: %w", err)
	}
	return cipher.NewGCM(block)
}

// checksumAAD binds sealed checksums to their object and part (0: the
// object's own).
func checksumAAD(bucket, key string, enc *catalog.Encryption, part int) []byte {
	return fmt.Appendf(KeyContext(bucket, key, enc), "\x00checksums\x00%d", part)
}

func sealSums(dk []byte, sums map[string]string, aad []byte) ([]byte, error) {
	aead, err := checksumAEAD(dk)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(sums)
	if err != nil {
		return nil, fmt.Errorf("objects: seal checksums: %w", err)
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("objects: nonce: %w", err)
	}
	return aead.Seal(nonce, nonce, plain, aad), nil
}

func openSums(dk, sealed, aad []byte) (map[string]string, error) {
	aead, err := checksumAEAD(dk)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("objects: sealed checksums too short")
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("objects: open sealed checksums: %w", err)
	}
	var sums map[string]string
	if err := json.Unmarshal(plain, &sums); err != nil {
		return nil, fmt.Errorf("objects: open sealed checksums: %w", err)
	}
	return sums, nil
}

// sealPart is part p of bucket's key, encrypted as enc under dk, as the
// catalog keeps it: an SSE-C part's checksums sealed.
func sealPart(bucket, key string, enc *catalog.Encryption, dk []byte, p catalog.Part) (catalog.Part, error) {
	if enc == nil || enc.Kind != KindSSEC || len(p.Checksums) == 0 || p.Checksums[catalog.SealedChecksums] != "" {
		return p, nil
	}
	sealed, err := sealSums(dk, p.Checksums, checksumAAD(bucket, key, enc, p.Number))
	if err != nil {
		return p, err
	}
	p.Checksums = map[string]string{catalog.SealedChecksums: base64.StdEncoding.EncodeToString(sealed)}
	return p, nil
}

// openPart reverses sealPart; without the data key (nil) a sealed part
// shows no checksums.
func openPart(bucket, key string, enc *catalog.Encryption, dk []byte, p catalog.Part) (catalog.Part, error) {
	v, ok := p.Checksums[catalog.SealedChecksums]
	if !ok {
		return p, nil
	}
	p.Checksums = nil
	if dk == nil || enc == nil {
		return p, nil
	}
	sealed, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return p, fmt.Errorf("objects: sealed checksums of part %d: %w", p.Number, err)
	}
	p.Checksums, err = openSums(dk, sealed, checksumAAD(bucket, key, enc, p.Number))
	return p, err
}

// sealChecksums is obj, written under dk, as the catalog keeps it: for
// SSE-C, its checksums and its parts' sealed into its encryption record
// and parts, none in the clear. obj itself (what the response reports)
// is not changed.
func sealChecksums(obj catalog.Object, dk []byte) (catalog.Object, error) {
	enc := obj.Meta.Encryption
	if enc == nil || enc.Kind != KindSSEC {
		return obj, nil
	}
	e := *enc
	if len(obj.Meta.Checksums) > 0 {
		sealed, err := sealSums(dk, obj.Meta.Checksums, checksumAAD(obj.Bucket, obj.Key, enc, 0))
		if err != nil {
			return obj, err
		}
		e.SealedChecksums, e.ChecksumAlgorithms = sealed, nil
		for _, a := range ChecksumAlgorithms() {
			if _, ok := obj.Meta.Checksums[a]; ok {
				e.ChecksumAlgorithms = append(e.ChecksumAlgorithms, a)
			}
		}
	}
	obj.Meta.Encryption, obj.Meta.Checksums = &e, nil
	parts := make([]catalog.Part, len(obj.Parts))
	for i, p := range obj.Parts {
		var err error
		if parts[i], err = sealPart(obj.Bucket, obj.Key, enc, dk, p); err != nil {
			return obj, err
		}
	}
	obj.Parts = parts
	return obj, nil
}

// openChecksums fills an SSE-C obj's checksums (and its parts') from
// their sealed form with its data key dk; without it (nil) they stay
// empty. A version written before checksums were sealed has them in the
// clear and is returned as it is.
func openChecksums(obj catalog.Object, dk []byte) (catalog.Object, error) {
	enc := obj.Meta.Encryption
	if enc == nil || enc.Kind != KindSSEC {
		return obj, nil
	}
	if enc.SealedChecksums != nil && dk != nil {
		sums, err := openSums(dk, enc.SealedChecksums, checksumAAD(obj.Bucket, obj.Key, enc, 0))
		if err != nil {
			return obj, err
		}
		obj.Meta.Checksums = sums
	}
	if len(obj.Parts) > 0 {
		parts := make([]catalog.Part, len(obj.Parts))
		for i, p := range obj.Parts {
			var err error
			if parts[i], err = openPart(obj.Bucket, obj.Key, enc, dk, p); err != nil {
				return obj, err
			}
		}
		obj.Parts = parts
	}
	return obj, nil
}

// sealInline encrypts an object's bytes for its catalog row.
func (sl *sealing) sealInline(plain []byte) ([]byte, error) {
	return sse.Encrypt(plain, sse.Params{Key: sl.key, Identity: inlineIdentity, Part: sl.part})
}

// sealStream is r's plaintext encrypted for blob id.
func (sl *sealing) sealStream(r io.Reader, id string) (*sse.EncryptReader, error) {
	return sse.NewEncryptReader(r, sse.Params{Key: sl.key, Identity: id, Part: sl.part})
}

// openSealed reads length plaintext bytes from offset off of a part
// encrypted under key (a blob, or inline bytes when p.BlobID is ""),
// fetching only the segments that hold them.
func (s *Service) openSealed(ctx context.Context, p catalog.Part, inline []byte, key []byte, off, length int64) (io.ReadCloser, error) {
	rng, err := sse.CipherRange(p.Size, off, length)
	if err != nil {
		return nil, fmt.Errorf("objects: %w", err)
	}
	params := sse.Params{Key: key, Identity: p.BlobID, Part: p.Number}
	if p.Identity != "" {
		params.Identity = p.Identity // sealed under another id, then moved
	}
	var src io.ReadCloser
	if p.BlobID == "" {
		params.Identity = inlineIdentity
		if rng.CipherOff > int64(len(inline)) {
			return nil, fmt.Errorf("objects: inline bytes shorter than their size: %w", sse.ErrAuth)
		}
		src = io.NopCloser(bytes.NewReader(inline[rng.CipherOff:]))
	} else if src, err = s.blobs.Get(ctx, p.BlobID, rng.CipherOff, rng.BlobLength()); err != nil {
		return nil, fmt.Errorf("objects: open blob %s: %w", p.BlobID, err)
	}
	d, err := sse.NewDecryptReader(src, params, rng)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("objects: %w", err)
	}
	return sealedReader{d, src}, nil
}

// sealedReader is an open encrypted range: its DecryptReader's Read and
// WriteTo (which io.Copy, hence copyBlob and the S3 layer, take to write
// each opened segment to the response once), and the blob's Close.
type sealedReader struct {
	*sse.DecryptReader
	src io.Closer
}

func (r sealedReader) Close() error { return r.src.Close() }

var _ io.WriterTo = sealedReader{}

// row is obj, written under sl (nil: plaintext), as the catalog keeps
// it (sealChecksums).
func (sl *sealing) row(obj catalog.Object) (catalog.Object, error) {
	if sl == nil {
		return obj, nil
	}
	return sealChecksums(obj, sl.key)
}

// dataKey is sl's data key (nil: plaintext).
func (sl *sealing) dataKey() []byte {
	if sl == nil {
		return nil
	}
	return sl.key
}

// record is what the catalog keeps of sl (nil: plaintext).
func (sl *sealing) record() *catalog.Encryption {
	if sl == nil {
		return nil
	}
	return sl.enc
}

// putSealed is putBlob for a payload encrypted under p.seal: the digests
// are of the plaintext (a platform's MD5 would be of the ciphertext, so
// none is asked for), and the count returned is of plaintext bytes.
func (s *Service) putSealed(ctx context.Context, id string, body io.Reader, p Payload) (int64, *digester, error) {
	d := newDigester(p.Algorithms, true)
	er, err := p.seal.sealStream(io.TeeReader(body, d), id)
	if err != nil {
		return 0, d, err
	}
	size := int64(-1)
	if p.Size >= 0 {
		size = sse.CiphertextSize(p.Size)
	}
	if _, err := s.blobs.Put(ctx, id, er, size); err != nil {
		return er.PlainBytes(), d, err
	}
	return er.PlainBytes(), d, nil
}

// partSealing is how part n of upload u is encrypted: under the upload's
// data key (opened with the customer's key for SSE-C), n bound in its
// segments; nil for a plaintext upload.
func (s *Service) partSealing(ctx context.Context, b catalog.Bucket, u catalog.Upload, customer []byte, n int) (*sealing, error) {
	enc := u.Meta.Encryption
	if enc != nil && enc.Kind == KindSSEC && customer == nil {
		return nil, errorf(ErrInvalidRequest, "The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.")
	}
	dk, err := s.dataKey(ctx, b, u.Key, enc, customer, true)
	if err != nil || enc == nil {
		return nil, err
	}
	return &sealing{key: dk, enc: enc, part: n}, nil
}
