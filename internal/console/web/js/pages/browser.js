// The object browser: folders by delimiter, a page at a time with
// continuation tokens (a bucket of millions is never loaded whole), search
// by prefix, uploads, versions, and an object's details.
import { h, field, input, button, table, replace, busy } from '../dom.js';
import { get, post, del, enc, qs, BASE } from '../api.js';
import { href, go } from '../router.js';
import { pageHeader, confirmDialog, formDialog, toast, bytes, when, loading } from '../ui.js';
import { Upload } from '../upload.js';
import { objectDialog } from './object.js';

const PAGE = 200;

// Uploads outlive a page change within the bucket (they are shown again
// when the user comes back), keyed by bucket.
const uploadsByBucket = new Map();

// Leaving the console (not a page of it) would cut running uploads short.
window.addEventListener('beforeunload', (e) => {
  for (const ups of uploadsByBucket.values()) {
    if (ups.some((u) => u.state === 'uploading' || u.state === 'queued')) {
      e.preventDefault();
      e.returnValue = '';
      return;
    }
  }
});

export function objectURL(bucket, key, version, download) {
  return `${BASE}/buckets/${enc(bucket)}/object${qs({ key, version, download: download ? 1 : '' })}`;
}

export async function browserPage({ params, query }) {
  const bucket = params.bucket;
  const prefix = query.get('prefix') || '';
  const showVersions = query.get('versions') === '1';
  const search = query.get('search') || '';
  // tokens: the continuation tokens of the pages before this one.
  let tokens = [];
  let token = '';

  const listing = h('div', { 'data-testid': 'object-list-region', 'aria-live': 'polite' }, loading());
  const selected = new Set();

  const nav = (q) => go('/buckets/' + enc(bucket), { prefix, versions: showVersions ? '1' : '', search, ...q });

  const searchBox = input('object-search', { type: 'search', value: search, placeholder: 'Name starts with…', autocapitalize: 'none', spellcheck: 'false' });
  const searchForm = h('form', {
    role: 'search', class: 'grow',
    onsubmit: (e) => { e.preventDefault(); nav({ search: searchBox.value }); },
  }, field('Search this folder by prefix', searchBox));

  const versionsToggle = h('input', {
    type: 'checkbox', 'data-testid': 'object-show-versions', checked: showVersions,
    onchange: (e) => nav({ versions: e.target.checked ? '1' : '' }),
  });

  const deleteSelected = button('Delete selected', 'object-delete-selected', async () => {
    if (!selected.size) return;
    const items = [...selected].map((s) => JSON.parse(s));
    const what = showVersions ? `${items.length} version(s) permanently` : `${items.length} object(s)`;
    if (!await confirmDialog('Delete', `Delete ${what}?`, 'confirm-object-delete')) return;
    await busy(deleteSelected, async () => {
      try {
        const r = await post(`/buckets/${enc(bucket)}/delete`, { objects: items });
        const errs = (r && r.errors) || [];
        if (errs.length) toast(`${errs.length} not deleted: ${errs[0].code} ${errs[0].message || ''}`, 'error');
        else toast(`Deleted ${items.length}`);
      } catch (e) {
        toast(e.message, 'error');
      }
      selected.clear();
      await load();
    });
  }, { disabled: true });
  const updateSelection = () => {
    deleteSelected.disabled = selected.size === 0;
    deleteSelected.textContent = selected.size ? `Delete selected (${selected.size})` : 'Delete selected';
  };

  // Uploads
  let ups = uploadsByBucket.get(bucket);
  if (!ups) { ups = []; uploadsByBucket.set(bucket, ups); }
  const uploadList = h('div', { class: 'uploads', 'data-testid': 'upload-list', 'aria-label': 'Uploads', role: 'region' });
  const renderUploads = () => {
    replace(uploadList, ups.length ? h('h2', null, 'Uploads') : null, ups.map(uploadRow));
  };
  const uploadRow = (u) => {
    if (!u.row) {
      u.bar = h('progress', { max: 100, value: 0, 'data-testid': 'upload-progress', 'aria-label': 'Upload of ' + u.key });
      u.status = h('div', { class: 'status', 'data-testid': 'upload-status', 'aria-live': 'polite' });
      u.buttons = h('div', { class: 'cell-actions' });
      u.row = h('div', { class: 'upload-item', 'data-testid': 'upload-item', 'data-key': u.key },
        h('div', { class: 'name mono' }, u.key), u.buttons, u.bar, u.status);
    }
    paintUpload(u);
    return u.row;
  };
  const paintUpload = (u) => {
    if (!u.row) return;
    const pct = u.size ? Math.floor((u.loaded / u.size) * 100) : (u.state === 'done' ? 100 : 0);
    u.bar.value = u.state === 'done' ? 100 : pct;
    u.row.dataset.state = u.state;
    let s = `${bytes(u.loaded)} of ${bytes(u.size)} (${pct}%)`;
    if (u.multipart) s += ` · ${u.parts.filter((p) => p.state === 'done').length}/${u.parts.length} parts`;
    if (u.state === 'done') s = `Uploaded ${bytes(u.size)}` + (u.elapsed ? ` in ${(u.elapsed / 1000).toFixed(1)} s` : '');
    if (u.state === 'failed') s = 'Failed: ' + (u.error ? u.error.message : 'error');
    if (u.state === 'cancelled') s = 'Cancelled';
    u.status.textContent = s;
    u.status.classList.toggle('failed', u.state === 'failed');
    const btns = [];
    if (u.state === 'uploading' || u.state === 'queued' || u.state === 'failed') {
      btns.push(button('Cancel', 'upload-cancel', () => u.cancel(), { class: 'small', 'aria-label': 'Cancel upload of ' + u.key }));
    }
    if (u.state === 'failed') {
      btns.push(button(u.multipart && u.failedParts ? `Retry ${u.failedParts} failed part(s)` : 'Retry', 'upload-retry', () => u.retry(), { class: 'small primary' }));
    }
    if (u.state === 'done' || u.state === 'cancelled') {
      btns.push(button('Dismiss', 'upload-dismiss', () => {
        ups.splice(ups.indexOf(u), 1);
        renderUploads();
      }, { class: 'small' }));
    }
    replace(u.buttons, btns);
  };
  let reloadTimer = null;
  const startUploads = async (files) => {
    for (const { file, path } of files) {
      const u = new Upload(bucket, prefix + path, file, (x) => {
        paintUpload(x);
        if (x.state === 'done') {
          clearTimeout(reloadTimer);
          reloadTimer = setTimeout(() => { if (listing.isConnected) load(); }, 300);
        }
      });
      ups.push(u);
    }
    renderUploads();
    // Files go one after another; a large file's parts go in parallel.
    for (const u of ups.filter((x) => x.state === 'queued')) {
      await u.start();
    }
  };
  renderUploads();

  const fileInput = h('input', {
    type: 'file', multiple: true, 'data-testid': 'upload-input', class: 'visually-hidden', id: 'upload-input',
    'aria-label': 'Files to upload', tabindex: '-1',
    onchange: (e) => {
      const files = [...e.target.files].map((f) => ({ file: f, path: f.name }));
      e.target.value = '';
      startUploads(files);
    },
  });
  const uploadBtn = button('Upload files', 'upload-button', () => fileInput.click(), { class: 'primary' });
  const drop = h('div', { class: 'dropzone', 'data-testid': 'upload-dropzone' },
    'Drop files or folders here to upload them to ', h('strong', null, prefix || 'the bucket root'), '.');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    startUploads(await droppedFiles(e.dataTransfer));
  });

  const newFolder = button('New folder', 'folder-create', async () => {
    const inp = input('folder-name', { required: true, autocapitalize: 'none', spellcheck: 'false' });
    const name = await formDialog('New folder', 'folder-create-dialog', [field('Folder name', inp)], async () => inp.value, 'Open folder');
    const clean = (name || '').replace(/^\/+|\/+$/g, '');
    if (!clean) return;
    // A folder is only a prefix: it shows once it holds an object. Go there
    // so uploads land in it.
    nav({ prefix: prefix + clean + '/', search: '' });
  });

  async function load() {
    const params = { prefix: prefix + search, delimiter: '/', token, max: PAGE };
    let r;
    try {
      r = await get(`/buckets/${enc(bucket)}/${showVersions ? 'versions' : 'objects'}${qs(params)}`);
    } catch (e) {
      replace(listing, h('div', { class: 'error', role: 'alert', 'data-testid': 'object-list-error' }, (e.code ? e.code + ': ' : '') + e.message));
      return;
    }
    selected.clear();
    updateSelection();
    const rows = [
      ...(r.prefixes || []).map((p) => ({ folder: true, key: p })),
      ...(r.objects || []),
    ];
    const name = (key) => key.slice(prefix.length);
    const cols = [
      {
        label: 'Select', hideLabel: true,
        cell: (o) => (o.folder ? '' : h('input', {
          type: 'checkbox', 'data-testid': 'object-select', 'aria-label': 'Select ' + o.key + (o.version_id ? ' version ' + o.version_id : ''),
          onchange: (e) => {
            const id = JSON.stringify(o.version_id && showVersions ? { key: o.key, version_id: o.version_id } : { key: o.key });
            if (e.target.checked) selected.add(id); else selected.delete(id);
            updateSelection();
          },
        })),
      },
      {
        label: 'Name', class: 'name',
        cell: (o) => (o.folder
          ? h('a', { href: href('/buckets/' + enc(bucket), { prefix: o.key, versions: showVersions ? '1' : '' }), 'data-testid': 'folder-link' }, h('span', { class: 'icon-folder', 'aria-hidden': 'true' }), name(o.key))
          : h('button', {
            type: 'button', class: 'link', 'data-testid': 'object-link', 'data-key': o.key,
            onclick: () => objectDialog(bucket, o, { versions: showVersions, onchange: load }),
          }, name(o.key) || o.key)),
      },
    ];
    if (showVersions) {
      cols.push({
        label: 'Version',
        cell: (o) => (o.folder ? '' : h('span', null,
          h('code', { class: 'mono' }, (o.version_id || 'null').slice(0, 12)),
          o.is_latest ? h('span', { class: 'badge ok' }, ' latest') : null,
          o.delete_marker ? h('span', { class: 'badge bad', 'data-testid': 'delete-marker' }, ' delete marker') : null)),
      });
    }
    cols.push(
      { label: 'Size', class: 'num', cell: (o) => (o.folder || o.delete_marker ? '' : bytes(o.size)) },
      { label: 'Last modified', cell: (o) => (o.folder ? '' : when(o.last_modified)) },
      {
        label: 'Actions',
        cell: (o) => {
          if (o.folder) return '';
          const acts = [];
          if (!o.delete_marker) {
            acts.push(h('a', {
              class: 'button small', href: objectURL(bucket, o.key, showVersions ? o.version_id : '', true),
              download: o.key.split('/').pop(), 'data-testid': 'object-download', 'aria-label': 'Download ' + o.key,
            }, 'Download'));
          }
          if (showVersions && !o.is_latest && !o.delete_marker) {
            acts.push(button('Restore', 'object-restore', async () => {
              try {
                await post(`/buckets/${enc(bucket)}/restore${qs({ key: o.key, version: o.version_id })}`);
                toast('Restored ' + o.key);
                load();
              } catch (e) { toast(e.message, 'error'); }
            }, { class: 'small', 'aria-label': 'Restore this version of ' + o.key }));
          }
          acts.push(button('Delete', 'object-delete', async () => {
            const perm = showVersions && o.version_id;
            const msg = perm ? `Permanently delete this version of "${o.key}"?` : `Delete "${o.key}"?`;
            if (!await confirmDialog('Delete', msg, 'confirm-object-delete')) return;
            const path = `/buckets/${enc(bucket)}/object${qs({ key: o.key, version: perm ? o.version_id : '' })}`;
            try {
              await del(path);
              toast('Deleted ' + o.key);
              load();
            } catch (e) {
              // A version under governance retention may go with the
              // bypass, for a caller who holds s3:BypassGovernanceRetention.
              if (perm && e.status === 403 && /lock/i.test(e.message)
                && await confirmDialog('Locked version', `This version is protected by object lock. Delete it anyway, bypassing a governance retention? (A compliance retention or a legal hold cannot be bypassed.)`, 'confirm-bypass-delete')) {
                try {
                  await del(path, undefined, { headers: { 'X-Bypass-Governance': 'true' } });
                  toast('Deleted ' + o.key);
                  load();
                } catch (e2) { toast((e2.code ? e2.code + ': ' : '') + e2.message, 'error'); }
                return;
              }
              toast((e.code ? e.code + ': ' : '') + e.message, 'error');
            }
          }, { class: 'small', 'aria-label': 'Delete ' + o.key }));
          return h('div', { class: 'cell-actions' }, acts);
        },
      },
    );
    const pager = h('div', { class: 'pager', 'data-testid': 'object-pager' },
      h('span', { class: 'muted', 'data-testid': 'object-page-number' }, `Page ${tokens.length + 1}`),
      button('Previous page', 'object-prev', () => { token = tokens.pop() || ''; load(); }, { disabled: tokens.length === 0, class: 'small' }),
      button('Next page', 'object-next', () => { tokens.push(token); token = r.next_token; load(); }, { disabled: !r.next_token, class: 'small' }));
    replace(listing,
      table('object-table', cols, rows, search ? 'Nothing here starts with "' + search + '".' : 'This folder is empty.'),
      pager);
  }

  const crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Folder', 'data-testid': 'breadcrumbs' },
    h('a', { href: href('/buckets') }, 'Buckets'), ' / ',
    h('a', { href: href('/buckets/' + enc(bucket), { versions: showVersions ? '1' : '' }), 'data-testid': 'crumb-root' }, bucket),
    prefix.split('/').filter(Boolean).map((part, i, all) => {
      const p = all.slice(0, i + 1).join('/') + '/';
      return [' / ', h('a', { href: href('/buckets/' + enc(bucket), { prefix: p, versions: showVersions ? '1' : '' }) }, part)];
    }));

  const page = h('div', null,
    crumbs,
    pageHeader(bucket,
      h('a', { class: 'button', href: href('/buckets/' + enc(bucket) + '/settings'), 'data-testid': 'bucket-settings' }, 'Settings'),
      newFolder, uploadBtn),
    fileInput,
    drop,
    uploadList,
    h('div', { class: 'toolbar' }, searchForm,
      field('Show versions', versionsToggle),
      button('Refresh', 'object-refresh', () => load(), { class: 'small' }),
      deleteSelected),
    listing);
  load();
  return page;
}

// droppedFiles walks dropped folders (webkitGetAsEntry), keeping their
// relative paths as key suffixes.
async function droppedFiles(dt) {
  const out = [];
  const entries = [...(dt.items || [])].map((it) => it.webkitGetAsEntry && it.webkitGetAsEntry()).filter(Boolean);
  if (!entries.length) return [...dt.files].map((f) => ({ file: f, path: f.name }));
  const walk = async (entry, path) => {
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ file, path: path + file.name });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, path + entry.name + '/');
      }
    }
  };
  for (const e of entries) await walk(e, '');
  return out;
}
