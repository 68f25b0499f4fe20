package objects

import (
	"encoding/base64"
	"encoding/binary"

	"github.com/ostiumio/ostium/internal/catalog"
)

// crcSpec is a reflected CRC with all-ones initial value and final xor, the
// kind whose checksum of a concatenation follows from the checksums and
// lengths of the pieces (zlib's crc32_combine, generalised). That is what
// lets a multipart upload carry a FULL_OBJECT checksum without reading its
// parts again.
type crcSpec struct {
	poly  uint64 // reversed polynomial
	width uint
}

var combinable = map[string]crcSpec{
	"CRC32":     {0xedb88320, 32},
	"CRC32C":    {0x82f63b78, 32},
	"CRC64NVME": {0x9a6c9329ac4bc9b5, 64},
}

// Combinable reports whether algo's checksum of a whole object can be made
// from its parts' (the FULL_OBJECT checksum type).
func Combinable(algo string) bool {
	_, ok := combinable[algo]
	return ok
}

func (c crcSpec) top() uint64 { return 1 << (c.width - 1) } // x^0

// mulmod multiplies a and b modulo the polynomial, in reflected form.
func (c crcSpec) mulmod(a, b uint64) uint64 {
	var prod uint64
	for m := c.top(); ; m >>= 1 {
		if a&m != 0 {
			prod ^= b
			if a&(m-1) == 0 {
				return prod
			}
		}
		if b&1 != 0 {
			b = b>>1 ^ c.poly
		} else {
			b >>= 1
		}
	}
}

// shift is x^(8n) mod the polynomial: what appending n bytes does to a CRC.
func (c crcSpec) shift(n int64) uint64 {
	p, sq := c.top(), c.top()>>8 // x^0, x^8
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			p = c.mulmod(sq, p)
		}
		sq = c.mulmod(sq, sq)
	}
	return p
}

// combine is the CRC of A followed by B, from crc(A), crc(B) and len(B).
func (c crcSpec) combine(crcA, crcB uint64, lenB int64) uint64 {
	if lenB == 0 {
		return crcA
	}
	return c.mulmod(c.shift(lenB), crcA) ^ crcB
}

func (c crcSpec) decode(s string) (uint64, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != int(c.width/8) {
		return 0, false
	}
	if c.width == 32 {
		return uint64(binary.BigEndian.Uint32(b)), true
	}
	return binary.BigEndian.Uint64(b), true
}

func (c crcSpec) encode(v uint64) string {
	b := binary.BigEndian.AppendUint64(nil, v)
	return base64.StdEncoding.EncodeToString(b[8-c.width/8:])
}

// fullObjectChecksum combines the parts' checksums into the checksum of the
// whole object, for the CRC algorithms.
func fullObjectChecksum(algo string, parts []catalog.Part) (string, bool) {
	c, ok := combinable[algo]
	if !ok {
		return "", false
	}
	var acc uint64
	for i, p := range parts {
		v, ok := c.decode(p.Checksums[algo])
		if !ok {
			return "", false
		}
		if i == 0 {
			acc = v
		} else {
			acc = c.combine(acc, v, p.Size)
		}
	}
	return c.encode(acc), true
}
