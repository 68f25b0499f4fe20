"""Pure-Python S3 checksums (base64 of the big-endian digest), so the suite
needs no awscrt for CRC32C and CRC64NVME."""

import base64
import hashlib
import zlib


def _table(poly, bits):
    mask = (1 << bits) - 1
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c & mask)
    return table


_CRC32C = _table(0x82F63B78, 32)
_CRC64NVME = _table(0x9A6C9329AC4BC9B5, 64)


def _reflected_crc(data, table, bits):
    mask = (1 << bits) - 1
    c = mask
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ mask


def crc32(data):
    return zlib.crc32(data) & 0xFFFFFFFF


def crc32c(data):
    return _reflected_crc(data, _CRC32C, 32)


def crc64nvme(data):
    return _reflected_crc(data, _CRC64NVME, 64)


assert crc32c(b"123456789") == 0xE3069283
assert crc64nvme(b"123456789") == 0xAE8B14860A799888


def b64(n, nbytes):
    return base64.b64encode(n.to_bytes(nbytes, "big")).decode()


def s3_checksum(algorithm, data):
    """The x-amz-checksum-* value of data for an S3 algorithm name."""
    a = algorithm.upper()
    if a == "CRC32":
        return b64(crc32(data), 4)
    if a == "CRC32C":
        return b64(crc32c(data), 4)
    if a == "CRC64NVME":
        return b64(crc64nvme(data), 8)
    if a == "SHA1":
        return base64.b64encode(hashlib.sha1(data).digest()).decode()
    if a == "SHA256":
        return base64.b64encode(hashlib.sha256(data).digest()).decode()
    raise ValueError(algorithm)


def multipart_etag(parts):
    """The ETag S3 gives an object completed from these part bodies."""
    digest = hashlib.md5(b"".join(hashlib.md5(p).digest() for p in parts)).hexdigest()
    return f'"{digest}-{len(parts)}"'
