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

function niceMax(v, binary) {
  if (v <= 0) return 1;
  if (binary) {
    // Bytes get steps that are round in KiB, MiB, GiB…
    let unit = 1;
    while (v / unit >= 1024) unit *= 1024;
    let m = 1;
    while (m < v / unit) m *= 2;
    return m * unit;
  }
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 4, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
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
  if (t0 === t1) { t0 -= 3600e3; t1 += 3600e3; }
  let vmax = niceMax(Math.max(...all.map((p) => p[1])), opts.binary);
  // Counts get whole-number ticks.
  if (opts.integer) vmax = Math.max(4, Math.ceil(vmax / 4) * 4);
  const x = (t) => L + ((+new Date(t) - t0) / (t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / vmax) * (H - T - B);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': (opts.title || 'Chart') + ': ' + summary(series, fmt) });
  for (let i = 0; i <= 4; i++) {
    const v = (vmax * i) / 4;
    svg.appendChild(s('line', { x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid' }));
    svg.appendChild(s('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, fmt(v)));
  }
  for (let i = 0; i <= 3; i++) {
    const t = t0 + ((t1 - t0) * i) / 3;
    const d = new Date(t);
    const label = (t1 - t0) > 2 * 86400e3
      ? d.toISOString().slice(5, 10)
      : d.toISOString().slice(11, 16);
    svg.appendChild(s('text', { x: x(t), y: H - 8, 'text-anchor': i === 0 ? 'start' : i === 3 ? 'end' : 'middle', class: 'axis' }, label));
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
