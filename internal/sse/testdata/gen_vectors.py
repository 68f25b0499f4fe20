#!/usr/bin/env python3
"""Known-answer vectors of Ostium's encryption format (docs/encryption.md),
computed by an implementation independent of package sse: Python's
cryptography (OpenSSL's HKDF and AES-GCM). Run it to regenerate vectors.json.
"""
import hashlib, json, struct
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SEG = 64 * 1024
VERSION = 1

def encrypt(key, identity, part, plain):
    info = b"ostium sse segment key" + bytes([VERSION]) + struct.pack(">I", part) + identity.encode()
    seg_key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key)
    g = AESGCM(seg_key)
    nseg = max(1, (len(plain) + SEG - 1) // SEG)
    out = b""
    for i in range(nseg):
        last = i == nseg - 1
        nonce = struct.pack(">IQ", part, i)
        ad = bytes([VERSION]) + struct.pack(">IQ", part, i) + bytes([1 if last else 0]) + identity.encode()
        out += g.encrypt(nonce, plain[i * SEG:(i + 1) * SEG], ad)
    return seg_key, out

def pattern(n):
    return bytes(i % 251 for i in range(n))

cases = [
    ("empty", bytes(range(32)), "00000000000000000000000000000000", 0, b""),
    ("hello", bytes(range(32)), "0123456789abcdef0123456789abcdef", 0, b"hello, world"),
    ("part 7", bytes(range(1, 33)), "acme/0123456789abcdef0123456789abcdef", 7, pattern(1000)),
    ("one full segment", bytes([0x42] * 32), "id", 0, pattern(SEG)),
    ("two segments and a byte", bytes([0x42] * 32), "id", 10000, pattern(2 * SEG + 1)),
]
vectors = []
for name, key, identity, part, plain in cases:
    seg_key, ct = encrypt(key, identity, part, plain)
    v = {"name": name, "key": key.hex(), "identity": identity, "part": part,
         "plain_size": len(plain), "plain_pattern": len(plain) > 64,
         "segment_key": seg_key.hex(), "cipher_size": len(ct),
         "cipher_sha256": hashlib.sha256(ct).hexdigest()}
    if len(plain) <= 64:
        v["plain"] = plain.hex()
    if len(ct) <= 2048:
        v["cipher"] = ct.hex()
    vectors.append(v)
with open("vectors.json", "w") as f:
    json.dump(vectors, f, indent=1)
    f.write("\n")
