// Uploads from the browser: one PUT for small files, multipart for large
// ones with a few parts in flight, progress, cancel and retry of the parts
// that failed (the upload id is kept, so finished parts are not sent again).
import { upload, post, del, enc } from './api.js';

export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
export const PART_SIZE = 16 * 1024 * 1024;
export const PARALLEL = 4;
const MAX_PARTS = 10000;
const AUTO_RETRIES = 2;

// partSize keeps a part count within S3's 10,000 for very large files.
export function partSize(size) {
  let p = PART_SIZE;
  while (Math.ceil(size / p) > MAX_PARTS) p *= 2;
  return p;
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('Aborted', 'AbortError')); }, { once: true });
});

// Upload is one file's transfer. Listeners get the Upload on every change:
// state is 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled'.
export class Upload {
  constructor(bucket, key, file, onchange) {
    this.bucket = bucket;
    this.key = key;
    this.file = file;
    this.size = file.size;
    this.state = 'queued';
    this.error = null;
    this.onchange = onchange || (() => {});
    this.multipart = file.size > MULTIPART_THRESHOLD;
    this.uploadId = null;
    this.parts = []; // {n, start, end, etag, loaded, state}
    this.loaded = 0;
    this.ctrl = null;
    this.started = 0;
  }

  get failedParts() {
    return this.parts.filter((p) => p.state === 'failed').length;
  }

  changed() {
    this.loaded = this.multipart ? this.parts.reduce((a, p) => a + p.loaded, 0) : this.loaded;
    this.onchange(this);
  }

  async start() {
    this.state = 'uploading';
    this.error = null;
    this.ctrl = new AbortController();
    if (!this.started) this.started = performance.now();
    this.changed();
    try {
      if (this.multipart) await this.runMultipart();
      else await this.runSingle();
      this.state = 'done';
      this.elapsed = performance.now() - this.started;
    } catch (e) {
      if (e.name === 'AbortError') {
        this.state = 'cancelled';
      } else {
        this.state = 'failed';
        this.error = e;
      }
    }
    this.changed();
    return this.state;
  }

  async runSingle() {
    const headers = { 'Content-Type': this.file.type || 'application/octet-stream' };
    await upload('PUT', `/buckets/${enc(this.bucket)}/object?key=${enc(this.key)}`, this.file, {
      headers,
      signal: this.ctrl.signal,
      onprogress: (loaded) => { this.loaded = loaded; this.onchange(this); },
    });
    this.loaded = this.size;
  }

  async runMultipart() {
    const base = `/buckets/${enc(this.bucket)}/uploads`;
    if (!this.uploadId) {
      const r = await post(`${base}?key=${enc(this.key)}`, { content_type: this.file.type || 'application/octet-stream' }, { signal: this.ctrl.signal });
      this.uploadId = r.upload_id;
      const ps = partSize(this.size);
      const n = Math.max(1, Math.ceil(this.size / ps));
      for (let i = 0; i < n; i++) {
        this.parts.push({ n: i + 1, start: i * ps, end: Math.min(this.size, (i + 1) * ps), etag: '', loaded: 0, state: 'pending' });
      }
    }
    // A retry sends only the parts not yet done.
    for (const p of this.parts) if (p.state !== 'done') { p.state = 'pending'; p.loaded = 0; }
    const queue = this.parts.filter((p) => p.state === 'pending');
    const signal = this.ctrl.signal;
    const worker = async () => {
      while (queue.length) {
        if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
        const p = queue.shift();
        await this.sendPart(base, p, signal);
      }
    };
    const results = await Promise.allSettled(Array.from({ length: Math.min(PARALLEL, queue.length) }, worker));
    const aborted = results.find((r) => r.status === 'rejected' && r.reason && r.reason.name === 'AbortError');
    if (aborted || signal.aborted) throw new DOMException('Aborted', 'AbortError');
    const failed = results.find((r) => r.status === 'rejected');
    if (failed || this.failedParts) {
      const e = (failed && failed.reason) || new Error('Some parts failed');
      e.message = `${this.failedParts} part(s) failed: ${e.message}`;
      throw e;
    }
    await post(`${base}/${enc(this.uploadId)}/complete?key=${enc(this.key)}`, {
      parts: this.parts.map((p) => ({ part: p.n, etag: p.etag })),
    }, { signal });
  }

  async sendPart(base, p, signal) {
    p.state = 'uploading';
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await upload('PUT', `${base}/${enc(this.uploadId)}?key=${enc(this.key)}&part=${p.n}`,
          this.file.slice(p.start, p.end), {
            signal,
            onprogress: (loaded) => { p.loaded = loaded; this.changed(); },
          });
        p.etag = (r.json && r.json.etag) || r.header('ETag') || '';
        p.loaded = p.end - p.start;
        p.state = 'done';
        this.changed();
        return;
      } catch (e) {
        p.loaded = 0;
        if (e.name === 'AbortError') { p.state = 'pending'; throw e; }
        // Client errors other than throttling will not get better by retrying.
        const retriable = !e.status || e.status >= 500 || e.status === 429 || e.status === 408;
        if (!retriable || attempt >= AUTO_RETRIES) {
          p.state = 'failed';
          this.changed();
          throw e;
        }
        await sleep(500 * 2 ** attempt, signal);
      }
    }
  }

  cancel() {
    if (this.ctrl) this.ctrl.abort();
    const wasMultipart = this.uploadId;
    if (this.state !== 'uploading') {
      this.state = 'cancelled';
      this.changed();
    }
    // Abort the multipart upload so its parts stop counting as stored bytes.
    if (wasMultipart) {
      del(`/buckets/${enc(this.bucket)}/uploads/${enc(this.uploadId)}?key=${enc(this.key)}`).catch(() => {});
      this.uploadId = null;
      this.parts = [];
    }
  }

  retry() {
    return this.start();
  }
}
