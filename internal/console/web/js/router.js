// A hash router: #/path/with/:params?query. Hash routes need nothing from
// the server (every page is /console/), and survive a reload.

const routes = [];
let onRoute = null;

// route registers a pattern such as '/buckets/:bucket/objects'.
export function route(pattern, render) {
  const names = [];
  const re = new RegExp('^' + pattern.replace(/:(\w+)/g, (_, n) => {
    names.push(n);
    return '([^/]+)';
  }) + '/?$');
  routes.push({ re, names, render });
}

export function current() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  return { path, query };
}

export function match(path) {
  for (const r of routes) {
    const m = r.re.exec(path);
    if (m) {
      const params = {};
      r.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); });
      return { render: r.render, params };
    }
  }
  return null;
}

// href builds a hash link; parts are encoded, query drops empty values.
export function href(path, query) {
  let s = '#' + path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const qs = q.toString();
    if (qs) s += '?' + qs;
  }
  return s;
}

export function seg(s) {
  return encodeURIComponent(s);
}

export function go(path, query) {
  const target = href(path, query);
  if (location.hash === target) dispatch();
  else location.hash = target;
}

export function start(handler) {
  onRoute = handler;
  window.addEventListener('hashchange', dispatch);
  dispatch();
}

export function dispatch() {
  if (onRoute) onRoute(current());
}
