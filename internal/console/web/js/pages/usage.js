// Usage: storage, objects, requests and bandwidth over time, the quota as
// a gauge, for the tenant or one of its buckets.
import { h, field, select, replace } from '../dom.js';
import { get, enc, qs } from '../api.js';
import { pageHeader, bytes, count, loading } from '../ui.js';
import { lineChart, gauge } from '../chart.js';
import { myTenant } from '../session.js';

export const PERIODS = [['24', 'Last 24 hours'], ['168', 'Last 7 days'], ['720', 'Last 30 days']];

export function periodRange(hours) {
  const to = new Date();
  to.setUTCMinutes(0, 0, 0);
  to.setUTCHours(to.getUTCHours() + 1);
  const from = new Date(to.getTime() - Number(hours) * 3600e3);
  return { from: from.toISOString().replace(/\.\d+Z$/, 'Z'), to: to.toISOString().replace(/\.\d+Z$/, 'Z') };
}

export async function usagePage() {
  return h('div', null, pageHeader('Usage'), await usageView(myTenant()));
}

// byHour sums the rows (of one bucket, or all) per hour.
export function byHour(rows, bucket) {
  const m = new Map();
  for (const r of rows) {
    if (bucket && r.bucket !== bucket) continue;
    const k = r.hour;
    const a = m.get(k) || { hour: k, bytes: 0, objects: 0, requests: 0, get: 0, put: 0, list: 0, delete: 0, bytes_in: 0, bytes_out: 0 };
    a.bytes += r.byte_hours || 0;
    a.objects += r.objects || 0;
    a.get += r.get || 0;
    a.put += r.put || 0;
    a.list += r.list || 0;
    a.delete += r.delete || 0;
    a.requests += (r.get || 0) + (r.put || 0) + (r.list || 0) + (r.delete || 0);
    a.bytes_in += r.bytes_in || 0;
    a.bytes_out += r.bytes_out || 0;
    m.set(k, a);
  }
  return [...m.values()].sort((a, b) => (a.hour < b.hour ? -1 : 1));
}

// usageView is the tenant's usage panel: period and bucket choosers,
// gauges and charts. Used by the tenant portal and the provider's tenant page.
export async function usageView(tenant) {
  const period = select('usage-period', PERIODS, '24');
  const bucketSel = select('usage-bucket', [['', 'All buckets']], '');
  const body = h('div', { 'data-testid': 'usage-body', 'aria-live': 'polite' }, loading());
  let quotas = [];
  let usage = null;
  try {
    quotas = (await get(`/tenants/${enc(tenant)}/quotas`)) || [];
  } catch { /* a user who may not read quotas still sees usage */ }

  const paint = () => {
    const b = bucketSel.value;
    const hours = byHour(usage.rows || [], b);
    // The live totals quotas are enforced against; the hourly rows only
    // sample them once an hour.
    const none = { bytes: 0, objects: 0 };
    const now = b ? ((usage.buckets_now || {})[b] || none) : (usage.stored_now || none);
    const q = quotas.find((x) => (x.bucket || '') === b) || {};
    const pts = (f) => hours.map((x) => [x.hour, f(x)]);
    // The stored series end at the live totals, now: the last hourly
    // sample may predate this hour's writes.
    const nowPts = (f, v) => (hours.length ? [...pts(f), [Date.now(), v]] : []);
    const tot = hours.reduce((a, x) => ({ requests: a.requests + x.requests, in: a.in + x.bytes_in, out: a.out + x.bytes_out }), { requests: 0, in: 0, out: 0 });
    replace(body,
      h('div', { class: 'stats' },
        stat('Stored now', bytes(now.bytes), 'usage-stored'),
        stat('Objects now', count(now.objects), 'usage-objects'),
        stat('Requests in period', count(tot.requests), 'usage-requests'),
        stat('Uploaded / downloaded', bytes(tot.in) + ' / ' + bytes(tot.out), 'usage-bandwidth')),
      h('div', { class: 'grid2' },
        gauge(now.bytes, q.max_bytes || 0, { title: 'Storage quota' + (b ? ' of ' + b : ''), format: bytes, testid: 'quota-gauge-bytes' }),
        gauge(now.objects, q.max_objects || 0, { title: 'Object quota' + (b ? ' of ' + b : ''), format: count, testid: 'quota-gauge-objects' })),
      h('h2', null, 'Over time'),
      hourlyNote(usage),
      h('div', { class: 'charts' },
        lineChart([{ label: 'Stored', points: nowPts((x) => x.bytes, now.bytes) }], { title: 'Storage', binary: true, format: bytes, testid: 'chart-storage' }),
        lineChart([{ label: 'Objects', points: nowPts((x) => x.objects, now.objects) }], { title: 'Objects', integer: true, format: (v) => count(Math.round(v)), testid: 'chart-objects' }),
        lineChart([
          { label: 'GET', points: pts((x) => x.get) }, { label: 'PUT', points: pts((x) => x.put) },
          { label: 'LIST', points: pts((x) => x.list) }, { label: 'DELETE', points: pts((x) => x.delete) },
        ], { title: 'Requests per hour', integer: true, format: (v) => count(Math.round(v)), testid: 'chart-requests' }),
        lineChart([
          { label: 'In', points: pts((x) => x.bytes_in) }, { label: 'Out', points: pts((x) => x.bytes_out) },
        ], { title: 'Bandwidth per hour', binary: true, format: bytes, testid: 'chart-bandwidth' })));
  };

  const load = async () => {
    replace(body, loading());
    try {
      usage = await get(`/tenants/${enc(tenant)}/usage${qs(periodRange(period.value))}`);
    } catch (e) {
      if (e.code === 'AccessDenied') {
        replace(body, h('p', { class: 'notice', 'data-testid': 'usage-denied' }, 'Your tenant\'s administrator sees its usage and quotas.'));
        return;
      }
      replace(body, h('div', { class: 'error', role: 'alert', 'data-testid': 'usage-error' }, (e.code ? e.code + ': ' : '') + e.message));
      return;
    }
    const names = [...new Set((usage.rows || []).map((r) => r.bucket))].sort();
    const keep = bucketSel.value;
    replace(bucketSel, h('option', { value: '' }, 'All buckets'), names.map((n) => h('option', { value: n, selected: n === keep }, n)));
    paint();
  };
  period.addEventListener('change', load);
  bucketSel.addEventListener('change', paint);
  load();
  return h('div', { 'data-testid': 'usage-view' },
    h('div', { class: 'toolbar' }, field('Period', period), field('Bucket', bucketSel),
      h('a', {
        class: 'button', 'data-testid': 'usage-csv', download: `usage-${tenant}.csv`,
        href: '#', onclick: (e) => { e.currentTarget.href = `/console/api/tenants/${enc(tenant)}/usage${qs({ ...periodRange(period.value), format: 'csv' })}`; },
      }, 'Download CSV')),
    body);
}

// hourlyNote says which hourly figures are final and when the open hour
// closes (its end plus the interval at which nodes report their counts).
export function hourlyNote(usage, live = 'Stored and objects above are live, as quotas count them. ') {
  if (!usage.closed_until || !usage.closes) return null;
  const hm = (t) => new Date(t).toISOString().slice(11, 16);
  const open = new Date(usage.closed_until);
  const end = new Date(open.getTime() + 3600e3);
  return h('p', { class: 'hint', 'data-testid': 'usage-hourly-note' },
    live, 'The charts are hourly (storage and objects end at the live totals): figures are final up to ',
    hm(open), ' UTC; the hour ', hm(open), '–', hm(end), ' is still being counted and closes at ',
    new Date(usage.closes).toISOString().slice(11, 19), ' UTC. Storage is sampled at the start of each hour.');
}

function stat(label, value, testid) {
  return h('div', { class: 'stat', 'data-testid': testid }, h('div', { class: 'v' }, value), h('div', { class: 'k' }, label));
}
