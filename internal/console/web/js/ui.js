// Shared widgets: modal dialogs, confirmations, toasts, formatting.
import { h, append, button, errorBox, busy } from './dom.js';

// modal opens a <dialog> (showModal traps focus and Escape closes it).
// body(close) returns the content; returns a promise resolved with the
// value given to close().
export function modal(title, testid, body) {
  return new Promise((resolve) => {
    const titleId = 'dlg-title-' + Math.random().toString(36).slice(2, 8);
    const dlg = h('dialog', { class: 'modal', 'data-testid': testid, 'aria-labelledby': titleId });
    let value;
    const close = (v) => {
      value = v;
      dlg.close();
    };
    dlg.addEventListener('close', () => {
      dlg.remove();
      resolve(value);
    });
    append(dlg, [h('h2', { id: titleId }, title), body(close)]);
    document.body.appendChild(dlg);
    dlg.showModal();
  });
}

// formDialog: a dialog with a form; submit(values form) may throw an API
// error, shown in the dialog, which then stays open.
export function formDialog(title, testid, fields, submit, submitLabel = 'Save') {
  return modal(title, testid, (close) => {
    const err = errorBox(testid + '-error');
    const ok = h('button', { type: 'submit', class: 'primary', 'data-testid': testid + '-submit' }, submitLabel);
    const form = h('form', {
      onsubmit: async (e) => {
        e.preventDefault();
        err.show(null);
        await busy(ok, async () => {
          try {
            close(await submit(form));
          } catch (ex) {
            err.show(ex);
          }
        });
      },
    }, fields, err,
    h('div', { class: 'actions' },
      button('Cancel', testid + '-cancel', () => close(undefined)), ok));
    return form;
  });
}

export function confirmDialog(title, message, testid = 'confirm', danger = true) {
  return modal(title, testid, (close) => h('div', null,
    h('p', null, message),
    h('div', { class: 'actions' },
      button('Cancel', testid + '-cancel', () => close(false)),
      button('Confirm', testid + '-ok', () => close(true), { class: danger ? 'danger' : 'primary' }))));
}

let toastRegion;
export function toast(message, kind = 'info') {
  if (!toastRegion) {
    toastRegion = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite', 'data-testid': 'toasts' });
    document.body.appendChild(toastRegion);
  }
  const t = h('div', { class: 'toast ' + kind, 'data-testid': 'toast' }, message);
  toastRegion.appendChild(t);
  setTimeout(() => t.remove(), kind === 'error' ? 8000 : 4000);
}

// secretBox shows a value once with a copy button (secrets, share links).
export function secretBox(value, testid) {
  const inp = h('input', { type: 'text', readonly: true, value, 'data-testid': testid, class: 'mono', 'aria-label': 'Value' });
  return h('div', { class: 'copybox' }, inp,
    button('Copy', testid + '-copy', async (e) => {
      await copyText(value, inp);
      e.target.textContent = 'Copied';
    }));
}

export async function copyText(value, inp) {
  try {
    await navigator.clipboard.writeText(value);
  } catch {
    // The clipboard API needs a secure context; select the text instead so
    // the user can copy it by hand.
    if (inp) {
      inp.focus();
      inp.select();
      document.execCommand && document.execCommand('copy');
    }
  }
}

// bytes shows a size in binary units, one decimal below 10 of the unit
// and none from 10 on: the rule `ostium admin` tables follow too
// (humanBytes in cmd/ostium/table.go), so that both show the same text.
const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
export function bytes(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return '–';
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  if (i === 0) return String(v) + ' B';
  v = Math.round(v * 10) / 10;
  return v.toFixed(v < 10 ? 1 : 0) + ' ' + units[i];
}

export function count(n) {
  if (n === null || n === undefined) return '–';
  return Number(n).toLocaleString('en');
}

export function when(t) {
  if (!t) return '–';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

// parseSize reads "10 GiB", "500MB", "1.5TiB", "1024" into bytes as
// `ostium admin quota set` does: KB, MB, GB, TB and PB are powers of 1000,
// KiB, MiB, GiB, TiB and PiB of 1024; '' is 0 (no limit).
export function parseSize(s) {
  s = String(s || '').trim();
  if (!s) return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(?:([kmgtp])(i?)b?|b?)$/i.exec(s);
  if (!m) throw new Error('Not a size: ' + s);
  const p = m[2] ? 'kmgtp'.indexOf(m[2].toLowerCase()) + 1 : 0;
  return Math.round(Number(m[1]) * (m[3] ? 1024 : 1000) ** p);
}

export function loading() {
  return h('p', { class: 'loading', role: 'status', 'data-testid': 'loading' }, 'Loading…');
}

export function pageHeader(title, ...actions) {
  return h('div', { class: 'page-head' }, h('h1', null, title), h('div', { class: 'page-actions' }, actions));
}
