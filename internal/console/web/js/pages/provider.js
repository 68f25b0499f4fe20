// The provider portal: tenants (onboarding, suspension, quotas,
// placement, users), platforms and nodes, usage and billing.
import { h, field, input, select, button, table, replace, errorBox, busy, tabs } from '../dom.js';
import { get, post, put, del, enc, qs } from '../api.js';
import { href, go } from '../router.js';
import { pageHeader, formDialog, confirmDialog, toast, when, bytes, count, parseSize, loading } from '../ui.js';
import { lineChart } from '../chart.js';
import { usersSection } from './access.js';
import { usageView, byHour, hourlyNote } from './usage.js';

async function platformNames() {
  try {
    const hl = await get('/health');
    return Object.keys(hl.platforms || {}).sort();
  } catch {
    return [];
  }
}

const statusBadge = (s) => h('span', { class: 'badge ' + (s === 'active' ? 'ok' : 'bad'), 'data-testid': 'tenant-status' }, s);

export async function tenantsPage() {
  const list = h('div');
  const refresh = async () => {
    const tenants = (await get('/tenants')) || [];
    replace(list, table('tenant-table', [
      { label: 'Tenant', class: 'name', cell: (t) => h('a', { href: href('/provider/tenants/' + enc(t.name)), 'data-testid': 'tenant-link' }, t.name) },
      { label: 'Display name', cell: (t) => t.display_name || '–' },
      { label: 'Status', cell: (t) => statusBadge(t.status) },
      { label: 'Platform', cell: (t) => t.platform || 'default' },
      { label: 'Created', cell: (t) => when(t.created) },
      { label: 'Actions', cell: (t) => tenantActions(t, refresh) },
    ], tenants, 'No tenants yet. Onboard the first one.'));
  };
  await refresh();
  return h('div', null,
    pageHeader('Tenants', button('Onboard tenant', 'tenant-create', () => onboard(refresh), { class: 'primary' })),
    list,
    await providerEncryptionForm());
}

// providerEncryptionText reads the provider-wide default encryption.
function providerEncryptionText(e) {
  if (!e || !e.default || e.default === 'none') return 'None (the node\'s default applies, if any)';
  if (e.default === 'sse-kms') return 'SSE-KMS, each tenant\'s own key';
  return 'SSE-S3 (AES256)';
}

// providerEncryptionForm shows and sets the default encryption of every
// tenant's new objects. It names no KMS key: a key belongs to one tenant,
// so SSE-KMS wraps each tenant's objects with that tenant's own key.
async function providerEncryptionForm() {
  const cur = await get('/encryption');
  const shown = h('dd', { 'data-testid': 'provider-encryption' }, providerEncryptionText(cur));
  const def = select('provider-encryption-default', [['none', 'None'], ['sse-s3', 'SSE-S3 (AES256)'], ['sse-kms', 'SSE-KMS, each tenant\'s own key']], cur.default || 'none');
  const err = errorBox('provider-encryption-error');
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'provider-encryption-save' }, 'Set default encryption');
  return h('form', {
    class: 'panel',
    'data-testid': 'provider-encryption-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(save, async () => {
        try {
          shown.textContent = providerEncryptionText(await put('/encryption', { default: def.value }));
          toast('Provider-wide default encryption set');
        } catch (ex) { err.show(ex); }
      });
    },
  }, h('h2', null, 'Provider-wide default encryption of new objects'),
  h('dl', null, h('dt', null, 'Current default'), shown),
  h('p', { class: 'hint' }, 'Applies to every tenant\'s new objects when neither the tenant nor the bucket has a default of its own (theirs win) and the request asks for none. Objects already stored keep theirs.'),
  h('div', { class: 'row' }, field('Default', def)), err, h('div', { class: 'actions' }, save));
}

function tenantActions(t, refresh, after) {
  const suspended = t.status !== 'active';
  return h('div', { class: 'cell-actions' },
    button(suspended ? 'Resume' : 'Suspend', suspended ? 'tenant-resume' : 'tenant-suspend', async () => {
      if (!suspended && !await confirmDialog('Suspend tenant', `Suspend "${t.name}"? Its users and keys are refused at once, and its buckets answer no one.`, 'confirm-tenant-suspend')) return;
      try {
        await post(`/tenants/${enc(t.name)}/${suspended ? 'resume' : 'suspend'}`);
        toast(`Tenant ${t.name} ${suspended ? 'resumed' : 'suspended'}`);
        refresh();
      } catch (e) { toast(e.message, 'error'); }
    }, { class: 'small', 'aria-label': (suspended ? 'Resume ' : 'Suspend ') + t.name }),
    button('Delete', 'tenant-delete', async () => {
      const purge = h('input', { type: 'checkbox', 'data-testid': 'tenant-delete-purge' });
      const ok = await formDialog('Delete tenant', 'tenant-delete-dialog', [
        h('p', null, `Delete the tenant "${t.name}"? Its users and keys go with it.`),
        field('Also delete all its buckets and objects (purge)', purge),
      ], async () => { await del(`/tenants/${enc(t.name)}${qs({ purge: purge.checked })}`); return true; }, 'Delete tenant');
      if (ok) {
        toast(`Tenant ${t.name} deleted`);
        if (after) after(); else refresh();
      }
    }, { class: 'small', 'aria-label': 'Delete ' + t.name }));
}

async function onboard(refresh) {
  const platforms = await platformNames();
  const name = input('tenant-name', { required: true, autocapitalize: 'none', spellcheck: 'false' });
  const display = input('tenant-display-name');
  const platform = select('tenant-platform', [['', 'Default platform'], ...platforms], '');
  const admin = input('tenant-admin-name', { autocapitalize: 'none', spellcheck: 'false', value: 'admin' });
  const pw = input('tenant-admin-password', { type: 'password', autocomplete: 'new-password', minlength: 8 });
  const t = await formDialog('Onboard tenant', 'tenant-create-dialog', [
    field('Tenant name', name, 'Lower-case letters, digits and hyphens; it names the tenant in sign-in and policies.'),
    field('Display name', display),
    field('Platform', platform),
    h('fieldset', null, h('legend', null, 'First administrator (optional)'),
      field('User name', admin),
      field('Initial password', pw, 'They must change it at first sign-in. Leave empty to add users later.')),
  ], () => post('/tenants', {
    name: name.value.trim(), display_name: display.value.trim() || undefined, platform: platform.value || undefined,
    admin: pw.value ? { name: admin.value.trim(), password: pw.value } : undefined,
  }), 'Onboard');
  if (t) {
    toast(`Tenant ${t.name} onboarded`);
    refresh();
  }
}

const TENANT_TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'users', label: 'Users & keys' },
  { id: 'quotas', label: 'Quotas' },
  { id: 'placement', label: 'Placement' },
  { id: 'usage', label: 'Usage' },
];

export async function tenantPage({ params, query }) {
  const name = params.tenant;
  const tab = TENANT_TABS.some((t) => t.id === query.get('tab')) ? query.get('tab') : 'overview';
  const t = await get(`/tenants/${enc(name)}`);
  const panel = h('div', { id: 'tabpanel', role: 'tabpanel', 'aria-labelledby': 'tab-' + tab, 'data-testid': 'tenant-panel' }, loading());
  const reload = () => go('/provider/tenants/' + enc(name), { tab });
  const render = {
    overview: async () => h('div', { class: 'panel' },
      h('dl', null,
        h('dt', null, 'Name'), h('dd', null, t.name),
        h('dt', null, 'Display name'), h('dd', null, t.display_name || '–'),
        h('dt', null, 'Status'), h('dd', null, statusBadge(t.status)),
        h('dt', null, 'Platform'), h('dd', null, t.platform || 'default'),
        h('dt', null, 'Default encryption'), h('dd', { 'data-testid': 'tenant-encryption' }, tenantEncryptionText(t.encryption)),
        h('dt', null, 'Canonical ID'), h('dd', { class: 'mono' }, t.canonical_id),
        h('dt', null, 'Created'), h('dd', null, when(t.created))),
      h('div', { class: 'actions' }, tenantActions(t, reload, () => go('/provider/tenants'))),
      await tenantEncryptionForm(t)),
    users: () => usersSection(name, ''),
    quotas: () => quotasTab(name),
    placement: () => placementTab(t, reload),
    usage: () => usageView(name),
  }[tab];
  Promise.resolve(render())
    .then((n) => replace(panel, n))
    .catch((e) => replace(panel, h('div', { class: 'error', role: 'alert' }, (e.code ? e.code + ': ' : '') + e.message)));
  return h('div', null,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' }, h('a', { href: href('/provider/tenants') }, 'Tenants'), ' / ', name),
    pageHeader('Tenant ' + name),
    tabs('tenant-tabs', TENANT_TABS, tab, (id) => go('/provider/tenants/' + enc(name), { tab: id })),
    panel);
}

// tenantEncryptionText reads a tenant's default encryption (null: none).
function tenantEncryptionText(e) {
  if (!e || !e.default || e.default === 'none') return 'None (the provider-wide default applies, if any)';
  if (e.default === 'sse-kms') return 'SSE-KMS, ' + (e.kms_key ? 'key ' + e.kms_key : 'the tenant\'s own key');
  return 'SSE-S3 (AES256)';
}

// tenantEncryptionForm sets the default encryption of the tenant's new
// objects, which its buckets' own defaults and requests override.
async function tenantEncryptionForm(t) {
  let keys = null;
  try {
    keys = ((await get(`/tenants/${enc(t.name)}/kms-keys`)) || []).filter((k) => k.state === 'enabled' && !k.default);
  } catch { /* no key service, or none listed: the key is typed */ }
  const cur = t.encryption || { default: 'none' };
  const def = select('tenant-encryption-default', [['none', 'None'], ['sse-s3', 'SSE-S3 (AES256)'], ['sse-kms', 'SSE-KMS']], cur.default || 'none');
  let key;
  if (keys) {
    const opts = [['', 'The tenant\'s own key (aws/s3)'], ...keys.map((k) => [k.id, k.alias ? 'alias/' + k.alias : k.id])];
    if (cur.kms_key && !opts.some(([v]) => v === cur.kms_key)) opts.push([cur.kms_key, cur.kms_key]);
    key = select('tenant-encryption-kms-key', opts, cur.kms_key || '');
  } else {
    key = input('tenant-encryption-kms-key', { value: cur.kms_key || '', autocapitalize: 'none', spellcheck: 'false' });
  }
  const keyField = field('KMS key', key);
  const sync = () => { keyField.hidden = def.value !== 'sse-kms'; };
  def.addEventListener('change', sync);
  sync();
  const err = errorBox('tenant-encryption-error');
  const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'tenant-encryption-save' }, 'Set default encryption');
  return h('form', {
    'data-testid': 'tenant-encryption-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(save, async () => {
        try {
          const body = { default: def.value };
          if (def.value === 'sse-kms' && key.value.trim()) body.kms_key = key.value.trim();
          const nt = await put(`/tenants/${enc(t.name)}/encryption`, body);
          const dd = document.querySelector('[data-testid="tenant-encryption"]');
          if (dd) dd.textContent = tenantEncryptionText(nt.encryption);
          toast('Default encryption set');
        } catch (ex) { err.show(ex); }
      });
    },
  }, h('h2', null, 'Default encryption of new objects'),
  h('p', { class: 'hint' }, 'Applies to the tenant\'s buckets that have no default of their own, for new objects whose request asks for none. Objects already stored keep theirs.'),
  h('div', { class: 'row' }, field('Default', def), keyField), err, h('div', { class: 'actions' }, save));
}

async function quotasTab(tenant) {
  const wrap = h('div');
  const refresh = async () => {
    const qs0 = (await get(`/tenants/${enc(tenant)}/quotas`)) || [];
    const bucket = input('quota-bucket', { placeholder: 'empty: the whole tenant', autocapitalize: 'none' });
    const maxBytes = input('quota-max-bytes', { placeholder: 'e.g. 100 GiB' });
    const maxObjects = input('quota-max-objects', { type: 'number', min: 0, placeholder: 'empty: no limit' });
    const reqRate = input('quota-requests-per-sec', { type: 'number', min: 0, placeholder: 'empty: no limit' });
    const inRate = input('quota-bytes-in-per-sec', { placeholder: 'e.g. 100 MiB' });
    const outRate = input('quota-bytes-out-per-sec', { placeholder: 'e.g. 100 MiB' });
    const err = errorBox('quota-error');
    const save = h('button', { type: 'submit', class: 'primary', 'data-testid': 'quota-save' }, 'Set quota');
    replace(wrap,
      h('h2', null, 'Quotas'),
      table('quota-table', [
        { label: 'Applies to', cell: (q) => q.bucket || 'Whole tenant' },
        { label: 'Max bytes', class: 'num', cell: (q) => (q.max_bytes ? bytes(q.max_bytes) : 'no limit') },
        { label: 'Max objects', class: 'num', cell: (q) => (q.max_objects ? count(q.max_objects) : 'no limit') },
        { label: 'Requests/s', class: 'num', cell: (q) => (q.requests_per_sec ? count(q.requests_per_sec) : 'no limit') },
        { label: 'In/s', class: 'num', cell: (q) => (q.bytes_in_per_sec ? bytes(q.bytes_in_per_sec) : 'no limit') },
        { label: 'Out/s', class: 'num', cell: (q) => (q.bytes_out_per_sec ? bytes(q.bytes_out_per_sec) : 'no limit') },
        {
          label: 'Actions', hideLabel: true, cell: (q) => button('Edit', 'quota-edit', () => {
            bucket.value = q.bucket || '';
            maxBytes.value = q.max_bytes ? bytes(q.max_bytes) : '';
            maxObjects.value = q.max_objects || '';
            reqRate.value = q.requests_per_sec || '';
            inRate.value = q.bytes_in_per_sec ? bytes(q.bytes_in_per_sec) : '';
            outRate.value = q.bytes_out_per_sec ? bytes(q.bytes_out_per_sec) : '';
            maxBytes.focus();
          }, { class: 'small', 'aria-label': 'Edit quota of ' + (q.bucket || 'the tenant') }),
        },
      ], qs0, 'No quotas: the tenant may store without limit.'),
      h('form', {
        class: 'panel', 'data-testid': 'quota-form',
        onsubmit: async (e) => {
          e.preventDefault();
          err.show(null);
          await busy(save, async () => {
            try {
              await put(`/tenants/${enc(tenant)}/quotas`, {
                bucket: bucket.value.trim() || undefined,
                max_bytes: parseSize(maxBytes.value),
                max_objects: maxObjects.value ? Number(maxObjects.value) : 0,
                requests_per_sec: reqRate.value ? Number(reqRate.value) : 0,
                bytes_in_per_sec: parseSize(inRate.value),
                bytes_out_per_sec: parseSize(outRate.value),
              });
              toast('Quota set');
              refresh();
            } catch (ex) { err.show(ex); }
          });
        },
      }, h('h3', null, 'Set a quota'),
      h('div', { class: 'row' }, field('Bucket', bucket), field('Max size (KiB, MiB, GiB, TiB)', maxBytes), field('Max objects', maxObjects)),
      h('p', { class: 'hint' }, 'Rates hold across all nodes: requests beyond the rate get SlowDown, which clients retry; bytes beyond the bandwidth wait.'),
      h('div', { class: 'row' }, field('Requests a second', reqRate), field('Received a second (KiB, MiB, GiB)', inRate), field('Sent a second (KiB, MiB, GiB)', outRate)),
      err, h('div', { class: 'actions' }, save)));
  };
  await refresh();
  return wrap;
}

async function placementTab(t, reload) {
  const platforms = await platformNames();
  const opts = [['', 'Default platform'], ...platforms];
  const tp = select('placement-tenant-platform', opts, t.platform || '');
  const err1 = errorBox('placement-tenant-error');
  const save1 = h('button', { type: 'submit', class: 'primary', 'data-testid': 'placement-tenant-save' }, 'Move new writes');
  let buckets = [];
  try {
    buckets = ((await get('/buckets')).buckets || []).filter((b) => !b.tenant || b.tenant === t.name).map((b) => b.name);
  } catch { /* the provider may list all buckets; if not, type the name */ }
  const bn = buckets.length ? select('placement-bucket', buckets, buckets[0]) : input('placement-bucket', { autocapitalize: 'none' });
  const bp = select('placement-bucket-platform', platforms.length ? platforms : [['', 'Default platform']], platforms[0] || '');
  const err2 = errorBox('placement-bucket-error');
  const save2 = h('button', { type: 'submit', class: 'primary', 'data-testid': 'placement-bucket-save' }, 'Place bucket');
  return h('div', null,
    h('form', {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        err1.show(null);
        await busy(save1, async () => {
          try {
            await put(`/tenants/${enc(t.name)}/platform`, { platform: tp.value });
            toast('Tenant placed');
            reload();
          } catch (ex) { err1.show(ex); }
        });
      },
    }, h('h2', null, 'Tenant platform'),
    h('p', { class: 'hint' }, 'New objects of the tenant go to this platform; existing ones stay where they are.'),
    field('Platform', tp), err1, h('div', { class: 'actions' }, save1)),
    h('form', {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        err2.show(null);
        await busy(save2, async () => {
          try {
            await put(`/placement/buckets/${enc(bn.value)}`, { platform: bp.value });
            toast('Bucket placed');
          } catch (ex) { err2.show(ex); }
        });
      },
    }, h('h2', null, 'Bucket placement'),
    h('p', { class: 'hint' }, 'New objects of one bucket go to a platform of its own.'),
    h('div', { class: 'row' }, field('Bucket', bn), field('Platform', bp)), err2, h('div', { class: 'actions' }, save2)));
}

export async function healthPage() {
  const body = h('div', { 'data-testid': 'health-body' });
  const refresh = async () => {
    const hl = await get('/health');
    const plat = Object.entries(hl.platforms || {}).map(([name, st]) => ({ name, st }));
    const jobs = Object.entries(hl.jobs || {}).map(([job, holder]) => ({ job, holder }));
    replace(body,
      h('div', { class: 'stats' },
        statBox('Node', hl.node || '–', 'health-node'),
        statBox('Catalog', hl.catalog === 'ok' || hl.catalog === true ? h('span', { class: 'badge ok' }, 'ok') : h('span', { class: 'badge bad' }, String(hl.catalog)), 'health-catalog'),
        statBox('Requests in flight', `${count(hl.requests)} of ${count(hl.max_requests)}`, 'health-requests'),
        statBox('Collector backlog', count(hl.collector_backlog) + ' blobs', 'health-backlog')),
      h('h2', null, 'Platforms'),
      table('platform-table', [
        { label: 'Platform', cell: (p) => p.name },
        { label: 'Health', cell: (p) => (p.st === 'ok' ? h('span', { class: 'badge ok' }, 'ok') : h('span', { class: 'badge bad' }, String(p.st))) },
      ], plat, 'No platforms.'),
      h('h2', null, 'Background jobs (lease holders)'),
      table('lease-table', [
        { label: 'Job', cell: (j) => j.job },
        { label: 'Held by node', cell: (j) => j.holder || h('span', { class: 'badge warn' }, 'nobody') },
      ], jobs, 'No jobs.'),
      h('p', { class: 'muted' }, 'Checked ', when(new Date()), '.'));
  };
  await refresh();
  return h('div', null, pageHeader('Platforms & nodes', button('Refresh', 'health-refresh', () => refresh(), {})), body);
}

function statBox(label, value, testid) {
  return h('div', { class: 'stat', 'data-testid': testid }, h('div', { class: 'v' }, value), h('div', { class: 'k' }, label));
}

const dateOnly = (d) => d.toISOString().slice(0, 10);

export async function providerUsagePage() {
  const today = new Date();
  const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1));
  const tomorrow = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1));
  const from = input('billing-from', { type: 'date', value: dateOnly(monthStart), required: true });
  const to = input('billing-to', { type: 'date', value: dateOnly(tomorrow), required: true });
  const body = h('div', { 'data-testid': 'provider-usage-body', 'aria-live': 'polite' });
  const range = () => ({ from: from.value + 'T00:00:00Z', to: to.value + 'T00:00:00Z' });
  const exportLink = (fmt) => h('a', {
    class: 'button', href: '#', 'data-testid': 'billing-export-' + fmt, download: `ostium-usage.${fmt}`,
    onclick: (e) => { e.currentTarget.href = `/console/api/usage${qs({ ...range(), format: fmt })}`; },
  }, 'Export ' + fmt.toUpperCase());
  const load = async () => {
    replace(body, loading());
    let u;
    try {
      u = await get(`/usage${qs(range())}`);
    } catch (e) {
      replace(body, h('div', { class: 'error', role: 'alert', 'data-testid': 'provider-usage-error' }, (e.code ? e.code + ': ' : '') + e.message));
      return;
    }
    const tenants = u.tenants || [];
    const storage = tenants.map((t) => ({ label: t.tenant, points: byHour(t.rows || []).map((x) => [x.hour, x.bytes]) }));
    const reqs = tenants.map((t) => ({ label: t.tenant, points: byHour(t.rows || []).map((x) => [x.hour, x.requests]) }));
    const perBucket = [];
    for (const t of tenants) {
      const m = new Map();
      for (const r of t.rows || []) {
        const a = m.get(r.bucket) || { tenant: t.tenant, bucket: r.bucket, byte_hours: 0, requests: 0, bytes_in: 0, bytes_out: 0, objects: 0, last: '' };
        a.byte_hours += r.byte_hours || 0;
        a.requests += (r.get || 0) + (r.put || 0) + (r.list || 0) + (r.delete || 0);
        a.bytes_in += r.bytes_in || 0;
        a.bytes_out += r.bytes_out || 0;
        if (r.hour >= a.last) { a.last = r.hour; a.objects = r.objects || 0; }
        m.set(r.bucket, a);
      }
      // Live totals, which quotas count, rather than the last hourly sample.
      for (const a of m.values()) {
        const now = (t.buckets_now || {})[a.bucket];
        a.stored = now ? now.bytes : null;
        if (now) a.objects = now.objects;
      }
      perBucket.push(...m.values());
    }
    replace(body,
      tenants.length ? hourlyNote(tenants[0], 'Stored now and objects now are live, as quotas count them. ') : null,
      h('div', { class: 'charts' },
        lineChart(storage, { title: 'Storage by tenant', binary: true, format: bytes, testid: 'chart-provider-storage', legend: true }),
        lineChart(reqs, { title: 'Requests per hour by tenant', integer: true, format: (v) => count(Math.round(v)), testid: 'chart-provider-requests', legend: true })),
      h('h2', null, 'By tenant and bucket'),
      table('billing-table', [
        { label: 'Tenant', cell: (r) => h('a', { href: href('/provider/tenants/' + enc(r.tenant), { tab: 'usage' }) }, r.tenant) },
        { label: 'Bucket', class: 'name', cell: (r) => r.bucket },
        { label: 'GiB-hours', class: 'num', cell: (r) => (r.byte_hours / 1024 ** 3).toFixed(2) },
        { label: 'Stored now', class: 'num', cell: (r) => bytes(r.stored) },
        { label: 'Objects now', class: 'num', cell: (r) => count(r.objects) },
        { label: 'Requests', class: 'num', cell: (r) => count(r.requests) },
        { label: 'In', class: 'num', cell: (r) => bytes(r.bytes_in) },
        { label: 'Out', class: 'num', cell: (r) => bytes(r.bytes_out) },
      ], perBucket, 'No usage in this period.'));
  };
  const form = h('form', {
    class: 'toolbar', 'data-testid': 'billing-form',
    onsubmit: (e) => { e.preventDefault(); load(); },
  }, field('From (UTC)', from), field('To (UTC, exclusive)', to),
  h('button', { type: 'submit', class: 'primary', 'data-testid': 'billing-show' }, 'Show'),
  exportLink('csv'), exportLink('json'));
  load();
  return h('div', null, pageHeader('Usage & billing'), form, body);
}
