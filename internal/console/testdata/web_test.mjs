// Unit tests of the console's pure modules, run by `node --test` from
// TestAssetsJSUnits (internal/console/assets_test.go). OSTIUM_CONSOLE_WEB
// is the web/ directory.
import test from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const web = process.env.OSTIUM_CONSOLE_WEB;
const load = (p) => import(pathToFileURL(join(web, p)).href);

test('sizes are read and written in binary units', async () => {
  const { bytes, parseSize } = await load('js/ui.js');
  assert.equal(bytes(0), '0 B');
  assert.equal(bytes(1536), '1.5 KiB');
  assert.equal(bytes(100 * 1024 ** 3), '100 GiB');
  assert.equal(parseSize('100 GiB'), 100 * 1024 ** 3);
  assert.equal(parseSize('5MiB'), 5 * 1024 ** 2);
  assert.equal(parseSize('1024'), 1024);
  assert.equal(parseSize(''), 0);
  assert.throws(() => parseSize('ten gigs'));
});

test('a part size keeps a file within 10,000 parts', async () => {
  const { partSize, PART_SIZE } = await load('js/upload.js');
  assert.equal(partSize(1024 ** 3), PART_SIZE);
  const huge = 5 * 1024 ** 4; // 5 TiB, S3's largest object
  assert.ok(Math.ceil(huge / partSize(huge)) <= 10000);
  assert.ok(partSize(huge) >= 5 * 1024 ** 2);
});

test('routes match with decoded parameters, links drop empty values', async () => {
  const { route, match, href } = await load('js/router.js');
  const page = () => null;
  route('/t/:bucket/objects', page);
  const m = match('/t/my%20bucket/objects');
  assert.equal(m.render, page);
  assert.deepEqual(m.params, { bucket: 'my bucket' });
  assert.equal(match('/t/a/b/objects'), null);
  assert.equal(href('/buckets/x', { prefix: 'a/b/', versions: '', token: undefined }), '#/buckets/x?prefix=a%2Fb%2F');
});

test('usage rows sum per hour, for all buckets or one', async () => {
  const { byHour } = await load('js/pages/usage.js');
  const rows = [
    { bucket: 'a', hour: '2026-01-01T01:00:00Z', byte_hours: 10, objects: 1, get: 2, put: 1, list: 0, delete: 0, bytes_in: 5, bytes_out: 7 },
    { bucket: 'b', hour: '2026-01-01T01:00:00Z', byte_hours: 20, objects: 2, get: 1, put: 0, list: 3, delete: 1, bytes_in: 1, bytes_out: 0 },
    { bucket: 'a', hour: '2026-01-01T00:00:00Z', byte_hours: 5, objects: 1, get: 0, put: 0, list: 0, delete: 0, bytes_in: 0, bytes_out: 0 },
  ];
  const all = byHour(rows);
  assert.deepEqual(all.map((x) => x.hour), ['2026-01-01T00:00:00Z', '2026-01-01T01:00:00Z']);
  assert.equal(all[1].bytes, 30);
  assert.equal(all[1].requests, 8);
  assert.equal(all[1].bytes_in, 6);
  const a = byHour(rows, 'a');
  assert.deepEqual(a.map((x) => x.bytes), [5, 10]);
});

// FakeXHR answers part uploads; fail(n) decides, per part number and
// attempt, whether the request fails (status 0: a network error).
function installXHR(fail) {
  const sent = [];
  const attempts = new Map();
  globalThis.XMLHttpRequest = class {
    constructor() { this.upload = {}; this.headers = {}; }
    open(method, url) { this.method = method; this.url = url; }
    setRequestHeader(k, v) { this.headers[k] = v; }
    getResponseHeader() { return null; }
    abort() { setTimeout(() => this.onabort && this.onabort()); }
    send(body) {
      const n = Number(new URL(this.url, 'http://x').searchParams.get('part'));
      const a = (attempts.get(n) || 0) + 1;
      attempts.set(n, a);
      setTimeout(() => {
        if (fail(n, a)) {
          this.onerror();
          return;
        }
        sent.push({ n, size: body.size, csrf: this.headers['X-CSRF-Token'] });
        if (this.upload.onprogress) this.upload.onprogress({ loaded: body.size, total: body.size });
        this.status = 200;
        this.responseText = JSON.stringify({ part: n, etag: `"e${n}"` });
        this.onload();
      });
    }
  };
  return { sent, attempts };
}

function installFetch() {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, method: init.method, body: init.body, csrf: init.headers['X-CSRF-Token'] });
    const json = url.includes('/complete') ? { key: 'k' } : { upload_id: 'U1' };
    return new Response(JSON.stringify(json), { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return calls;
}

test('a large file goes in parts, each with the CSRF header, completed in order', async () => {
  const { Upload, PART_SIZE } = await load('js/upload.js');
  const { setCSRF } = await load('js/api.js');
  setCSRF('tok');
  const { sent } = installXHR(() => false);
  const calls = installFetch();
  const file = new Blob([new Uint8Array(PART_SIZE * 2 + 10)], { type: 'application/octet-stream' });
  const u = new Upload('b', 'dir/big.bin', file);
  assert.equal(u.multipart, true);
  assert.equal(await u.start(), 'done');
  assert.deepEqual(sent.map((s) => s.n).sort(), [1, 2, 3]);
  assert.ok(sent.every((s) => s.csrf === 'tok'));
  assert.equal(sent.find((s) => s.n === 3).size, 10);
  const complete = calls.find((c) => c.url.includes('/complete'));
  assert.ok(complete, 'the upload was completed');
  assert.equal(complete.csrf, 'tok');
  assert.deepEqual(JSON.parse(complete.body).parts, [{ part: 1, etag: '"e1"' }, { part: 2, etag: '"e2"' }, { part: 3, etag: '"e3"' }]);
  assert.equal(u.loaded, u.size);
});

test('a part that keeps failing fails the upload; retry sends only the parts still missing', async () => {
  const { Upload, PART_SIZE } = await load('js/upload.js');
  let broken = true;
  // Part 2 fails every attempt while broken (more than the automatic retries).
  const { sent, attempts } = installXHR((n) => broken && n === 2);
  const calls = installFetch();
  const u = new Upload('b', 'k', new Blob([new Uint8Array(PART_SIZE * 3)]));
  assert.equal(await u.start(), 'failed');
  assert.equal(u.failedParts, 1);
  assert.equal(attempts.get(2), 3, 'two automatic retries after the first attempt');
  assert.ok(!calls.some((c) => c.url.includes('/complete')));
  broken = false;
  const before = sent.length;
  assert.equal(await u.retry(), 'done');
  assert.deepEqual(sent.slice(before).map((s) => s.n), [2]);
  assert.equal(calls.filter((c) => c.url.includes('/uploads?')).length, 1, 'the same upload id is kept');
});

test('a part that fails once is retried without the user', async () => {
  const { Upload, PART_SIZE } = await load('js/upload.js');
  installXHR((n, a) => n === 1 && a === 1);
  installFetch();
  const u = new Upload('b', 'k', new Blob([new Uint8Array(PART_SIZE + 1)]));
  assert.equal(await u.start(), 'done');
});

test('encryption reads as the pages show it', async () => {
  const { ruleText, objectText } = await load('js/encryption.js');
  assert.equal(ruleText(null), 'None');
  assert.equal(ruleText({ algorithm: 'AES256' }), 'SSE-S3 (AES256)');
  assert.equal(ruleText({ algorithm: 'aws:kms' }), "SSE-KMS, the tenant's own key");
  assert.equal(ruleText({ algorithm: 'aws:kms', kms_key_id: 'alias/ledger', bucket_key_enabled: true }), 'SSE-KMS, key alias/ledger, bucket key');
  assert.equal(objectText(undefined), 'None');
  assert.equal(objectText({ kind: 'AES256' }), 'SSE-S3 (AES256)');
  assert.equal(objectText({ kind: 'aws:kms', kms_key_id: 'k1', kms_key_arn: 'arn:aws:kms:r:acme:key/k1' }), 'SSE-KMS, key k1');
  assert.ok(objectText({ kind: 'SSE-C' }).startsWith('SSE-C'));
});
