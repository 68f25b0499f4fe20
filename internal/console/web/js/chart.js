// Charts drawn as inline SVG: no third-party code. Each chart carries a
// text summary (a table alternative) for screen readers.
import { h } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const k of kids) if (k) el.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
  return el;
}

const COLORS = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2'];

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

// niceScale picks the value axis: from 0 to max in about four steps, each
// a whole number of the unit its labels are written in, so that no tick
// reads "0.5 B" or "1.3 MiB". Counts step by 1, 2 or 5 × 10^n; bytes by a
// power of two of one binary unit (B, KiB, MiB…). It returns the ticks'
// values and their labels.
export function niceScale(v, binary) {
  const raw = Math.max(v, 0) / 4;
  let step;
  if (binary) {
    let unit = 1;
    while (raw / unit >= 1024 && unit < 1024 ** (BYTE_UNITS.length - 1)) unit *= 1024;
    let m = 1;
    while (m < raw / unit) m *= 2;
    step = m * unit;
  } else {
    const p = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(raw, 1))));
    step = [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw);
  }
  const n = Math.max(1, Math.ceil(v / step));
  const ticks = [];
  for (let k = 0; k <= n; k++) {
    const val = k * step;
    ticks.push({ v: val, label: binary ? byteLabel(val) : val.toLocaleString('en') });
  }
  return { max: n * step, ticks };
}

// byteLabel writes a tick in the largest unit it is a whole number of:
// 512 KiB, 1 MiB, 1,536 B; 0 without a unit.
function byteLabel(v) {
  if (v === 0) return '0';
  let i = 0;
  while (i < BYTE_UNITS.length - 1 && v % (1024 ** (i + 1)) === 0) i += 1;
  return (v / 1024 ** i).toLocaleString('en') + ' ' + BYTE_UNITS[i];
}

// timeTicks are whole hours (or days) between t0 and t1 (ms), at most six.
export function timeTicks(t0, t1) {
  const H = 3600e3;
  const step = [1, 2, 3, 6, 12, 24, 48, 168].map((x) => x * H).find((x) => (t1 - t0) / x <= 6) || 168 * H;
  const out = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) out.push(t);
  return { step, ticks: out };
}

// lineChart draws series [{label, points: [[Date|ms, number]]}] over time.
// opts: {title, format(v) for the axis, testid, height}
export function lineChart(series, opts = {}) {
  const W = 640;
  const H = opts.height || 220;
  const L = 64; const R = 12; const T = 12; const B = 28;
  const fmt = opts.format || ((v) => String(Math.round(v)));
  const all = series.flatMap((x) => x.points);
  const fig = h('figure', { class: 'chart', 'data-testid': opts.testid || 'chart' });
  if (opts.title) fig.appendChild(h('figcaption', null, opts.title));
  if (!all.length) {
    fig.appendChild(h('p', { class: 'empty' }, 'No data for this period yet.'));
    return fig;
  }
  const ts = all.map((p) => +new Date(p[0]));
  let t0 = Math.min(...ts);
  let t1 = Math.max(...ts);
  // Whole hours at both ends, so that the time axis has ticks at both.
  t0 = Math.floor(t0 / 3600e3) * 3600e3;
  t1 = Math.ceil(t1 / 3600e3) * 3600e3;
  if (t0 === t1) { t0 -= 3600e3; t1 += 3600e3; }
  const scale = niceScale(Math.max(...all.map((p) => p[1])), opts.binary);
  const vmax = scale.max;
  const x = (t) => L + ((+new Date(t) - t0) / (t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / vmax) * (H - T - B);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': (opts.title || 'Chart') + ': ' + summary(series, fmt) });
  for (const tk of scale.ticks) {
    svg.appendChild(s('line', { x1: L, x2: W - R, y1: y(tk.v), y2: y(tk.v), class: 'grid' }));
    svg.appendChild(s('text', { x: L - 6, y: y(tk.v) + 4, 'text-anchor': 'end', class: 'axis axis-y' }, tk.label));
  }
  const tt = timeTicks(t0, t1);
  for (const t of tt.ticks) {
    const d = new Date(t);
    const label = tt.step >= 86400e3 ? d.toISOString().slice(5, 10) : d.toISOString().slice(11, 16);
    const anchor = x(t) < L + 20 ? 'start' : x(t) > W - R - 20 ? 'end' : 'middle';
    svg.appendChild(s('line', { x1: x(t), x2: x(t), y1: H - B, y2: H - B + 4, class: 'grid' }));
    svg.appendChild(s('text', { x: x(t), y: H - 8, 'text-anchor': anchor, class: 'axis axis-x' }, label));
  }
  series.forEach((ser, i) => {
    const pts = [...ser.points].sort((a, b) => +new Date(a[0]) - +new Date(b[0]));
    const d = pts.map((p, j) => (j ? 'L' : 'M') + x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join('');
    svg.appendChild(s('path', { d, fill: 'none', stroke: COLORS[i % COLORS.length], 'stroke-width': 2, 'vector-effect': 'non-scaling-stroke' }));
    if (pts.length === 1) svg.appendChild(s('circle', { cx: x(pts[0][0]), cy: y(pts[0][1]), r: 3, fill: COLORS[i % COLORS.length] }));
  });
  fig.appendChild(h('div', { class: 'chart-svg' }, svg));
  if (series.length > 1 || opts.legend) {
    fig.appendChild(h('ul', { class: 'legend' }, series.map((ser, i) => h('li', null,
      h('span', { class: 'swatch c' + (i % COLORS.length), 'aria-hidden': 'true' }), ser.label))));
  }
  return fig;
}

function summary(series, fmt) {
  return series.map((ser) => {
    const last = ser.points.length ? ser.points[ser.points.length - 1][1] : 0;
    const max = Math.max(0, ...ser.points.map((p) => p[1]));
    return `${ser.label}: latest ${fmt(last)}, peak ${fmt(max)}`;
  }).join('; ');
}

// gauge draws used against a limit as a half-circle dial with a meter role.
export function gauge(used, limit, opts = {}) {
  const fmt = opts.format || String;
  const frac = limit > 0 ? Math.min(used / limit, 1) : 0;
  const r = 70; const cx = 90; const cy = 86;
  const arc = (f) => {
    const a = Math.PI * (1 - f);
    return [cx + r * Math.cos(a), cy - r * Math.sin(a)];
  };
  const [ex, ey] = arc(frac);
  const cls = frac >= 0.9 ? 'bad' : frac >= 0.75 ? 'warn' : 'ok';
  const svg = s('svg', { viewBox: '0 0 180 100', 'aria-hidden': 'true' },
    s('path', { d: `M${cx - r},${cy} A${r},${r} 0 0 1 ${cx + r},${cy}`, class: 'gauge-track', fill: 'none', 'stroke-width': 14 }),
    frac > 0 ? s('path', { d: `M${cx - r},${cy} A${r},${r} 0 0 1 ${ex.toFixed(2)},${ey.toFixed(2)}`, class: 'gauge-fill ' + cls, fill: 'none', 'stroke-width': 14 }) : null,
    s('text', { x: cx, y: cy - 8, 'text-anchor': 'middle', class: 'gauge-pct' }, limit > 0 ? Math.round(frac * 100) + '%' : '–'));
  const label = limit > 0 ? `${fmt(used)} of ${fmt(limit)}` : `${fmt(used)} (no quota)`;
  return h('div', {
    class: 'gauge', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': limit > 0 ? limit : 0,
    'aria-valuenow': used, 'aria-valuetext': label, 'aria-label': opts.title || 'Quota',
    'data-testid': opts.testid || 'gauge',
  }, svg, h('div', { class: 'gauge-caption' }, h('strong', null, opts.title || 'Quota'), h('br'), label));
}
