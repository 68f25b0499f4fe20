// An object's details: preview, metadata, tags, copy and move, share link.
import { h, field, input, select, button, replace, errorBox, busy, tabs } from '../dom.js';
import { get, put, post, enc, qs, BASE, api } from '../api.js';
import { modal, toast, bytes, when, secretBox, loading } from '../ui.js';
import { objectText } from '../encryption.js';

const TEXT_PREVIEW = 256 * 1024;
const PDF_PREVIEW = 32 * 1024 * 1024;

function objURL(bucket, key, version, download) {
  return `${BASE}/buckets/${enc(bucket)}/object${qs({ key, version, download: download ? 1 : '' })}`;
}

export function objectDialog(bucket, obj, opts = {}) {
  const version = opts.versions ? obj.version_id : '';
  let changed = false;
  return modal(obj.key.split('/').pop() || obj.key, 'object-dialog', (close) => {
    const panel = h('div', { id: 'tabpanel', role: 'tabpanel', 'data-testid': 'object-tabpanel' });
    const items = [
      { id: 'preview', label: 'Preview' },
      { id: 'metadata', label: 'Metadata' },
      { id: 'tags', label: 'Tags' },
      { id: 'lock', label: 'Lock' },
      { id: 'copy', label: 'Copy / move' },
      { id: 'share', label: 'Share' },
    ];
    const bar = h('div');
    const show = (id) => {
      replace(bar, tabs('object-tabs', items, id, show));
      panel.setAttribute('aria-labelledby', 'tab-' + id);
      replace(panel, loading());
      const render = { preview, metadata, tags, lock, copy, share }[id];
      Promise.resolve(render(bucket, obj, version, () => { changed = true; }, close))
        .then((n) => replace(panel, n))
        .catch((e) => replace(panel, h('div', { class: 'error', role: 'alert' }, (e.code ? e.code + ': ' : '') + e.message)));
    };
    show('preview');
    const dlgClose = button('Close', 'object-dialog-close', () => close(), {});
    setTimeout(() => {
      const d = panel.closest('dialog');
      if (d) {
        d.classList.add('wide');
        d.addEventListener('close', () => { if (changed && opts.onchange) opts.onchange(); });
      }
    });
    return h('div', null,
      h('p', { class: 'mono muted' }, obj.key, version ? ` (version ${version})` : ''),
      bar, panel, h('div', { class: 'actions' }, dlgClose));
  });
}

// customerKeyed tells why an SSE-C object is not shown: the console does
// not hold its key, which S3 asks for on every read (HEAD included).
function customerKeyed(what) {
  return h('div', { class: 'notice', 'data-testid': 'object-sse-c' },
    h('p', null, h('strong', null, 'Encrypted with a customer-provided key (SSE-C). '),
      `The console does not have that key, so it cannot ${what}. `,
      'An S3 client that sends the key can, for example: ',
      h('code', null, 'aws s3 cp --sse-c AES256 --sse-c-key fileb://KEY s3://BUCKET/KEY .')));
}

async function preview(bucket, obj, version) {
  const meta = await get(`/buckets/${enc(bucket)}/metadata${qs({ key: obj.key, version })}`);
  if (meta.customer_key_required) {
    // What the listing showed is all there is to show.
    return h('div', null, customerKeyed('preview or download it, or show its content type and metadata'),
      h('dl', { 'data-testid': 'object-info' },
        h('dt', null, 'Size'), h('dd', null, bytes(obj.size)),
        h('dt', null, 'Last modified'), h('dd', null, when(obj.last_modified)),
        h('dt', null, 'ETag'), h('dd', { class: 'mono' }, obj.etag || '–'),
        version ? [h('dt', null, 'Version'), h('dd', { class: 'mono' }, version)] : null,
        h('dt', null, 'Encryption'), h('dd', { 'data-testid': 'object-encryption' }, objectText(meta.encryption))));
  }
  const ct = (meta.content_type || (meta.meta && meta.meta.content_type) || '').toLowerCase();
  const url = objURL(bucket, obj.key, version);
  const info = h('dl', { 'data-testid': 'object-info' },
    h('dt', null, 'Size'), h('dd', null, bytes(meta.size)),
    h('dt', null, 'Type'), h('dd', { 'data-testid': 'object-content-type' }, ct || '–'),
    h('dt', null, 'Last modified'), h('dd', null, when(meta.last_modified)),
    h('dt', null, 'ETag'), h('dd', { class: 'mono' }, meta.etag || '–'),
    meta.version_id ? [h('dt', null, 'Version'), h('dd', { class: 'mono' }, meta.version_id)] : null,
    h('dt', null, 'Encryption'), h('dd', { 'data-testid': 'object-encryption' }, objectText(meta.encryption)),
    meta.lock ? [h('dt', null, 'Object lock'), h('dd', null, lockText(meta.lock))] : null);
  let view;
  if (ct.startsWith('image/') && !ct.includes('svg')) {
    view = h('img', { class: 'preview', src: url, alt: 'Preview of ' + obj.key, 'data-testid': 'preview-image' });
  } else if (ct.startsWith('video/')) {
    view = h('video', { class: 'preview', src: url, controls: true, preload: 'metadata', 'data-testid': 'preview-video', 'aria-label': 'Video ' + obj.key });
  } else if (ct.startsWith('audio/')) {
    view = h('audio', { src: url, controls: true, 'data-testid': 'preview-audio', 'aria-label': 'Audio ' + obj.key });
  } else if (ct === 'application/pdf' && meta.size <= PDF_PREVIEW) {
    // The object is answered with CSP sandbox (so no object can run in the
    // console's origin), and Chromium will not run its PDF viewer in a
    // sandboxed document: the bytes are shown from a blob: URL instead.
    const res = await fetch(url, { credentials: 'same-origin' });
    const blobURL = URL.createObjectURL(new Blob([await res.arrayBuffer()], { type: 'application/pdf' }));
    view = h('iframe', { class: 'preview', src: blobURL, title: 'PDF ' + obj.key, 'data-testid': 'preview-pdf' });
    view.addEventListener('load', () => setTimeout(() => URL.revokeObjectURL(blobURL), 60000), { once: true });
  } else if (ct.startsWith('text/') || /json|xml|yaml|csv|javascript/.test(ct)) {
    // Only the head of a large text is fetched (a Range request).
    const res = await fetch(url, { headers: { Range: `bytes=0-${TEXT_PREVIEW - 1}` }, credentials: 'same-origin' });
    const text = await res.text();
    view = h('div', null,
      h('pre', { class: 'preview-text', 'data-testid': 'preview-text', tabindex: '0' }, text),
      meta.size > TEXT_PREVIEW ? h('p', { class: 'muted' }, `Showing the first ${bytes(TEXT_PREVIEW)} of ${bytes(meta.size)}.`) : null);
  } else if (ct === 'application/pdf') {
    view = h('p', { class: 'muted', 'data-testid': 'preview-none' }, `This PDF is over ${bytes(PDF_PREVIEW)}: download it to read it.`);
  } else {
    view = h('p', { class: 'muted', 'data-testid': 'preview-none' }, 'No preview for this type of file.');
  }
  return h('div', null, view,
    h('p', null, h('a', { class: 'button', href: objURL(bucket, obj.key, version, true), download: obj.key.split('/').pop(), 'data-testid': 'object-dialog-download' }, 'Download')),
    info);
}

function lockText(l) {
  const parts = [];
  if (l.mode) parts.push(`${l.mode} until ${when(l.retain_until || l.until)}`);
  if (l.legal_hold) parts.push('legal hold');
  return parts.join(', ') || 'none';
}

// kvEditor edits a list of {key, value} pairs.
export function kvEditor(testid, pairs, keyLabel = 'Key', valueLabel = 'Value') {
  const rows = h('div', { 'data-testid': testid });
  const addRow = (k = '', v = '') => {
    const ki = input(testid + '-key', { value: k, 'aria-label': keyLabel });
    const vi = input(testid + '-value', { value: v, 'aria-label': valueLabel });
    const row = h('div', { class: 'kv-row' }, ki, vi,
      button('Remove', testid + '-remove', () => row.remove(), { class: 'small', 'aria-label': 'Remove ' + (k || 'row') }));
    row.pair = () => ({ key: ki.value.trim(), value: vi.value });
    rows.appendChild(row);
  };
  pairs.forEach((p) => addRow(p.key, p.value));
  const wrap = h('div', null,
    h('div', { class: 'kv-row muted', 'aria-hidden': 'true' }, h('span', null, keyLabel), h('span', null, valueLabel), h('span')),
    rows, button('Add', testid + '-add', () => addRow(), { class: 'small' }));
  wrap.value = () => [...rows.children].map((r) => r.pair()).filter((p) => p.key);
  return wrap;
}

async function metadata(bucket, obj, version, changed) {
  const meta = await get(`/buckets/${enc(bucket)}/metadata${qs({ key: obj.key, version })}`);
  // Metadata is changed by copying the object onto itself, which reads it.
  if (meta.customer_key_required) return customerKeyed('show or change its metadata');
  const ct = input('metadata-content-type', { value: meta.content_type || (meta.meta && meta.meta.content_type) || '' });
  const um = meta.metadata || (meta.meta && meta.meta.user) || {};
  const ed = kvEditor('metadata', Object.entries(um).map(([key, value]) => ({ key, value })), 'Name (x-amz-meta-)', 'Value');
  const err = errorBox('metadata-error');
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'metadata-save' }, 'Save metadata');
  return h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(save, async () => {
        try {
          const md = {};
          for (const p of ed.value()) md[p.key] = p.value;
          await put(`/buckets/${enc(bucket)}/metadata${qs({ key: obj.key })}`, { content_type: ct.value.trim(), metadata: md });
          changed();
          toast('Metadata saved (as a new version where versioning is on)');
        } catch (ex) { err.show(ex); }
      });
    },
  },
  version && !obj.is_latest ? h('p', { class: 'notice' }, 'Saving changes the current version, not this one.') : null,
  field('Content type', ct), h('h3', null, 'User metadata'), ed, err, h('div', { class: 'actions' }, save));
}

async function tags(bucket, obj, version, changed) {
  const r = await get(`/buckets/${enc(bucket)}/tags${qs({ key: obj.key, version })}`);
  const ed = kvEditor('tags', r.tags || []);
  const err = errorBox('tags-error');
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'tags-save' }, 'Save tags');
  return h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(save, async () => {
        try {
          await put(`/buckets/${enc(bucket)}/tags${qs({ key: obj.key, version })}`, { tags: ed.value() });
          changed();
          toast('Tags saved');
        } catch (ex) { err.show(ex); }
      });
    },
  }, h('p', { class: 'hint' }, 'Up to 10 tags.'), ed, err, h('div', { class: 'actions' }, save));
}

async function copy(bucket, obj, version, changed, close) {
  const { buckets } = await get('/buckets');
  const dest = select('copy-bucket', (buckets || []).map((b) => b.name), bucket);
  const key = input('copy-key', { value: obj.key, required: true, autocapitalize: 'none', spellcheck: 'false' });
  const move = h('input', { type: 'checkbox', 'data-testid': 'copy-move' });
  const err = errorBox('copy-error');
  const go = h('button', { type: 'submit', class: 'primary', 'data-testid': 'copy-submit' }, 'Copy');
  move.addEventListener('change', () => { go.textContent = move.checked ? 'Move' : 'Copy'; });
  return h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      if (dest.value === bucket && key.value === obj.key) {
        err.show({ message: 'Choose another bucket or name.' });
        return;
      }
      await busy(go, async () => {
        try {
          await post(`/buckets/${enc(dest.value)}/copy`, {
            key: key.value, source_bucket: bucket, source_key: obj.key, source_version: version || undefined, move: move.checked,
          });
          changed();
          toast((move.checked ? 'Moved to ' : 'Copied to ') + dest.value + '/' + key.value);
          if (move.checked) close();
        } catch (ex) { err.show(ex); }
      });
    },
  }, field('Destination bucket', dest), field('Destination key', key),
  field('Move (delete the source after copying)', move), err, h('div', { class: 'actions' }, go));
}

const EXPIRIES = [['3600', '1 hour'], ['86400', '1 day'], ['604800', '7 days'], ['custom', 'Custom…']];

async function share(bucket, obj, version) {
  const exp = select('share-expiry', EXPIRIES, '86400');
  const custom = input('share-expiry-minutes', { type: 'number', min: 1, max: 10080, value: '60' });
  const customField = field('Minutes (1 to 10080)', custom);
  customField.hidden = true;
  exp.addEventListener('change', () => { customField.hidden = exp.value !== 'custom'; });
  const out = h('div', { 'data-testid': 'share-result' });
  const err = errorBox('share-error');
  const mk = h('button', { type: 'submit', class: 'primary', 'data-testid': 'share-create' }, 'Create link');
  return h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(mk, async () => {
        try {
          const secs = exp.value === 'custom' ? Math.round(Number(custom.value) * 60) : Number(exp.value);
          const r = await post(`/buckets/${enc(bucket)}/share`, { key: obj.key, version: version || undefined, expires_seconds: secs });
          replace(out, h('p', null, 'Anyone with this link can download the object until ', h('strong', null, when(r.expires)), '.'),
            secretBox(r.url, 'share-url'));
        } catch (ex) { err.show(ex); }
      });
    },
  }, h('p', { class: 'hint' }, 'A share link is a presigned URL signed with a read-only credential for this bucket that expires with the link.'),
  field('Link expires after', exp), customField, err, h('div', { class: 'actions' }, mk), out);
}

// lock: a version's retention and legal hold (buckets with object lock).
async function lock(bucket, obj, version, changed) {
  const path = `/buckets/${enc(bucket)}/lock${qs({ key: obj.key, version: version || obj.version_id })}`;
  let l;
  try {
    l = await get(path);
  } catch (e) {
    if (e.code === 'InvalidRequest' || e.code === 'ObjectLockConfigurationNotFoundError') {
      return h('p', { class: 'muted', 'data-testid': 'lock-unavailable' }, 'This bucket does not have object lock: its objects cannot be locked.');
    }
    throw e;
  }
  const hold = h('input', { type: 'checkbox', 'data-testid': 'lock-legal-hold', checked: !!l.legal_hold });
  const holdErr = errorBox('lock-legal-hold-error');
  const holdSave = h('button', { type: 'submit', class: 'primary', 'data-testid': 'lock-legal-hold-save' }, 'Save legal hold');
  const mode = select('lock-mode', [['', 'No retention'], ['GOVERNANCE', 'Governance'], ['COMPLIANCE', 'Compliance']], l.mode || '');
  const until = input('lock-until', { type: 'date', value: l.retain_until ? String(l.retain_until).slice(0, 10) : '' });
  const bypass = h('input', { type: 'checkbox', 'data-testid': 'lock-bypass' });
  const retErr = errorBox('lock-retention-error');
  const retSave = h('button', { type: 'submit', class: 'primary', 'data-testid': 'lock-retention-save' }, 'Save retention');
  const now = h('p', { 'data-testid': 'lock-current' });
  const paint = (x) => {
    now.textContent = x.mode ? `${x.mode} retention until ${when(x.retain_until)}` : 'No retention.';
    if (x.legal_hold) now.textContent += ' Legal hold on.';
  };
  paint(l);
  const send = (body, withBypass) => api('PUT', path, body, { headers: withBypass ? { 'X-Bypass-Governance': 'true' } : {} });
  return h('div', null, now,
    h('form', {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        holdErr.show(null);
        await busy(holdSave, async () => {
          try { paint(await send({ legal_hold: hold.checked })); changed(); toast('Legal hold saved'); } catch (ex) { holdErr.show(ex); }
        });
      },
    }, h('h3', null, 'Legal hold'), field('Legal hold (no deletion until it is lifted)', hold), holdErr, h('div', { class: 'actions' }, holdSave)),
    h('form', {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        retErr.show(null);
        if (mode.value && !until.value) { retErr.show({ message: 'Choose the date the retention ends.' }); return; }
        await busy(retSave, async () => {
          try {
            const body = { set_retention: true, mode: mode.value, retain_until: mode.value ? until.value + 'T00:00:00Z' : undefined };
            paint(await send(body, bypass.checked));
            changed();
            toast('Retention saved');
          } catch (ex) { retErr.show(ex); }
        });
      },
    }, h('h3', null, 'Retention'),
    h('div', { class: 'row' }, field('Mode', mode), field('Retain until (UTC)', until)),
    field('Bypass governance retention (to shorten, remove or change its mode)', bypass),
    h('p', { class: 'hint' }, 'A compliance retention can only be extended, by anyone, ever.'),
    retErr, h('div', { class: 'actions' }, retSave)));
}
