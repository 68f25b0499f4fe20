// Small DOM helpers: components are functions that return nodes.

// h builds an element. attrs: plain attributes, plus `on<event>` handlers,
// `class`, `dataset`-free `data-*` attributes as strings, and `props` for
// properties (value, checked). Children may be nodes, strings, numbers,
// arrays or null/false (skipped).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2).toLowerCase(), v);
      } else if (k === 'props') {
        Object.assign(el, v);
      } else if (v === true) {
        el.setAttribute(k, '');
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false || c === '') continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  return append(el, children);
}

let uid = 0;
export function nextId(prefix = 'f') {
  uid += 1;
  return `${prefix}-${uid}`;
}

// field wraps a control with its label (and an optional hint), so every
// input is labelled for screen readers.
export function field(label, control, hint) {
  const id = control.id || nextId();
  control.id = id;
  let hintEl = null;
  if (hint) {
    hintEl = h('div', { class: 'hint', id: id + '-hint' }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
  }
  if (control.type === 'checkbox' || control.type === 'radio') {
    return h('div', { class: 'field check' }, control, h('label', { for: id }, label), hintEl);
  }
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

export function input(testid, attrs = {}) {
  return h('input', { type: 'text', 'data-testid': testid, ...attrs });
}

export function select(testid, options, value, attrs = {}) {
  const el = h('select', { 'data-testid': testid, ...attrs },
    options.map((o) => {
      const [v, label] = Array.isArray(o) ? o : [o, o];
      return h('option', { value: v, selected: v === value }, label);
    }));
  return el;
}

export function button(label, testid, onclick, attrs = {}) {
  return h('button', { type: 'button', 'data-testid': testid, onclick, ...attrs }, label);
}

// busy disables a button while an action runs, so a double click does not
// send a request twice.
export async function busy(btn, fn) {
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
  }
}

// errorBox is a region that shows an action's error, announced to screen
// readers as it appears.
export function errorBox(testid = 'form-error') {
  const el = h('div', { class: 'error', role: 'alert', 'data-testid': testid, hidden: true });
  el.show = (err) => {
    if (!err) {
      el.hidden = true;
      clear(el);
      return;
    }
    replace(el, err.code ? h('strong', null, err.code + ': ') : null, err.message || String(err));
    el.hidden = false;
  };
  return el;
}

// table renders rows with a header; cols: [{label, cell(row) -> node|string, class}].
export function table(testid, cols, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', { class: 'empty', 'data-testid': testid + '-empty' }, empty);
  return h('div', { class: 'table-wrap' },
    h('table', { 'data-testid': testid },
      h('thead', null, h('tr', null, cols.map((c) => h('th', { scope: 'col', class: c.class }, c.hideLabel ? h('span', { class: 'visually-hidden' }, c.label) : c.label)))),
      h('tbody', null, rows.map((r) => h('tr', null, cols.map((c) => h('td', { class: c.class, 'data-label': c.hideLabel ? '' : c.label }, c.cell(r))))))));
}

// tabs: a tablist with arrow-key navigation (WAI-ARIA tabs pattern).
export function tabs(testid, items, active, onselect) {
  const list = h('div', { role: 'tablist', class: 'tabs', 'data-testid': testid });
  const btns = items.map((it) => h('button', {
    type: 'button', role: 'tab', id: 'tab-' + it.id, 'data-testid': 'tab-' + it.id,
    'aria-selected': it.id === active ? 'true' : 'false', tabindex: it.id === active ? '0' : '-1',
    'aria-controls': 'tabpanel',
    onclick: () => onselect(it.id),
  }, it.label));
  list.addEventListener('keydown', (e) => {
    const i = btns.indexOf(document.activeElement);
    if (i < 0) return;
    let j = -1;
    if (e.key === 'ArrowRight') j = (i + 1) % btns.length;
    if (e.key === 'ArrowLeft') j = (i - 1 + btns.length) % btns.length;
    if (j >= 0) {
      e.preventDefault();
      btns[j].focus();
      btns[j].click();
    }
  });
  append(list, btns);
  return list;
}
