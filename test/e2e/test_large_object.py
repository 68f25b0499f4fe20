"""A 5 GiB object through boto3 (multipart up, one streaming GET down) while
the server's resident memory is sampled: the server must stream, not buffer.

OSTIUM_E2E_LARGE_SIZE overrides the size in bytes (suffixes K, M, G allowed),
e.g. OSTIUM_E2E_LARGE_SIZE=300M for a quick run. The test runs its own server
on its own temporary data dir, removed at the end."""

import hashlib
import os
import random
import shutil
import threading
import time

import pytest
from boto3.s3.transfer import TransferConfig

from helpers import start_server

MiB = 1024 * 1024
GiB = 1024 * MiB
PART = 64 * MiB
RSS_LIMIT = 150 * 1000 * 1000  # 150 MB


def parse_size(s):
    s = s.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1024, "M": MiB, "G": GiB}.get(s[-1:], 1)
    return int(float(s.rstrip("KMG")) * mult)


LARGE_SIZE = parse_size(os.environ.get("OSTIUM_E2E_LARGE_SIZE", str(5 * GiB)))


class PatternStream:
    """A read-only, non-seekable file of `size` deterministic bytes made on
    the fly (1 MiB blocks: an 8-byte block number, then a window of a random
    buffer that shifts with the block number). It hashes what it hands out."""

    BLOCK = MiB

    def __init__(self, size, seed=5):
        self.size, self.pos = size, 0
        self.base = random.Random(seed).randbytes(2 * self.BLOCK)
        self.sha = hashlib.sha256()
        self._cached = (-1, b"")

    def _block(self, i):
        if self._cached[0] != i:
            off = (i * 7919) % self.BLOCK
            self._cached = (i, i.to_bytes(8, "little") + self.base[off:off + self.BLOCK - 8])
        return self._cached[1]

    def read(self, n=-1):
        if n is None or n < 0:
            n = self.size - self.pos
        n = min(n, self.size - self.pos)
        out = bytearray()
        while len(out) < n:
            i, o = divmod(self.pos, self.BLOCK)
            take = min(self.BLOCK - o, n - len(out))
            out += self._block(i)[o:o + take]
            self.pos += take
        data = bytes(out)
        self.sha.update(data)
        return data

    def readable(self):
        return True


class RSSSampler(threading.Thread):
    """Samples VmRSS of a process every interval seconds."""

    def __init__(self, pid, interval=0.1):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak = 0
        self.samples = 0
        self.stop = threading.Event()

    def field(self, name):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024  # kB
        return 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, self.field("VmRSS"))
                self.samples += 1
            except OSError:
                return
            self.stop.wait(self.interval)


@pytest.mark.large
def test_large_object_memory(ostium_bin, capsys):
    need = LARGE_SIZE + 2 * GiB
    free = shutil.disk_usage(os.environ.get("TMPDIR", "/tmp")).free
    if free < need:
        pytest.skip(f"needs {need / GiB:.1f} GiB free in the temp dir, has {free / GiB:.1f} GiB")

    srv = start_server(ostium_bin, prefix="ostium-e2e-large-")
    sampler = RSSSampler(srv.pid)
    try:
        c = srv.client()
        bucket = "large-object"
        c.create_bucket(Bucket=bucket)
        baseline = sampler.field("VmRSS")
        sampler.start()

        stream = PatternStream(LARGE_SIZE)
        cfg = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART, max_concurrency=4)
        t0 = time.monotonic()
        c.upload_fileobj(stream, bucket, "big", Config=cfg)
        up_s = time.monotonic() - t0
        assert stream.pos == LARGE_SIZE
        want = stream.sha.hexdigest()

        h = c.head_object(Bucket=bucket, Key="big")
        assert h["ContentLength"] == LARGE_SIZE
        if LARGE_SIZE > PART:
            assert h["ETag"].endswith(f'-{-(-LARGE_SIZE // PART)}"')

        t0 = time.monotonic()
        got = hashlib.sha256()
        n = 0
        body = c.get_object(Bucket=bucket, Key="big")["Body"]
        for chunk in body.iter_chunks(MiB):
            got.update(chunk)
            n += len(chunk)
        down_s = time.monotonic() - t0

        sampler.stop.set()
        sampler.join()
        hwm = sampler.field("VmHWM")
        peak = max(sampler.peak, hwm)
        mb = LARGE_SIZE / 1e6
        with capsys.disabled():
            print(f"\n[large object] size {LARGE_SIZE / GiB:.2f} GiB in {PART // MiB} MiB parts: "
                  f"upload {mb / up_s:.0f} MB/s ({up_s:.1f} s), download {mb / down_s:.0f} MB/s ({down_s:.1f} s); "
                  f"server RSS baseline {baseline / 1e6:.1f} MB, sampled peak {sampler.peak / 1e6:.1f} MB "
                  f"({sampler.samples} samples), VmHWM {hwm / 1e6:.1f} MB")
        assert n == LARGE_SIZE
        assert got.hexdigest() == want
        assert sampler.samples > 0
        assert peak < RSS_LIMIT, f"server peak RSS {peak / 1e6:.1f} MB >= {RSS_LIMIT / 1e6:.0f} MB"
        c.delete_object(Bucket=bucket, Key="big")
        c.delete_bucket(Bucket=bucket)
    except BaseException:
        print(f"server stderr tail:\n{srv.stderr_tail()}")
        raise
    finally:
        sampler.stop.set()
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)
        shutil.rmtree(srv.log_dir, ignore_errors=True)
