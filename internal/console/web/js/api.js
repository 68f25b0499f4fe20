// The fetch wrapper: every call goes to the console's JSON API with the
// session cookie and the CSRF token header; a 401 means the session ended
// (idle or absolute expiry, or sign-out elsewhere), which sends the user
// back to sign in.

export const BASE = '/console/api';
export const CSRF_HEADER = 'X-CSRF-Token';

let csrf = '';
export function setCSRF(token) {
  csrf = token || '';
}
export function csrfToken() {
  return csrf;
}

export class ApiError extends Error {
  constructor(status, code, message, detail) {
    super(message || code || 'HTTP ' + status);
    this.status = status;
    this.code = code || '';
    this.detail = detail;
  }
}

function expired(path) {
  // The session probe and sign-in itself answer 401 as a normal outcome.
  if (path === '/session' || path.startsWith('/session/')) return;
  window.dispatchEvent(new CustomEvent('console:expired'));
}

async function errorOf(res) {
  let code = '';
  let message = res.statusText;
  let detail;
  const text = await res.text().catch(() => '');
  try {
    const j = JSON.parse(text);
    const e = j.error && typeof j.error === 'object' ? j.error : j;
    code = e.code || '';
    message = e.message || message;
    detail = e;
  } catch {
    if (text) message = text.slice(0, 500);
  }
  return new ApiError(res.status, code, message, detail);
}

// api sends a JSON request and returns the decoded answer (null for 204).
// opts.raw returns the Response; opts.body sends a non-JSON body as is.
export async function api(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json', ...(opts.headers || {}) };
  if (method !== 'GET' && method !== 'HEAD') headers[CSRF_HEADER] = csrf;
  let payload;
  if (opts.rawBody !== undefined) {
    payload = opts.rawBody;
  } else if (body !== undefined && body !== null) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(BASE + path, {
    method, headers, body: payload, credentials: 'same-origin', signal: opts.signal,
  });
  if (res.status === 401) expired(path);
  if (!res.ok) throw await errorOf(res);
  if (opts.raw) return res;
  if (res.status === 204) return null;
  const ct = res.headers.get('Content-Type') || '';
  if (!ct.includes('json')) return res.text();
  return res.json();
}

export const get = (p, o) => api('GET', p, undefined, o);
export const post = (p, b, o) => api('POST', p, b, o);
export const put = (p, b, o) => api('PUT', p, b, o);
export const patch = (p, b, o) => api('PATCH', p, b, o);
export const del = (p, b, o) => api('DELETE', p, b, o);

// qs builds a query string, leaving out empty values.
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '' && v !== false) q.set(k, v === true ? 'true' : v);
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

export const enc = encodeURIComponent;

// upload sends a body with XMLHttpRequest, which (unlike fetch) reports
// upload progress. Resolves with {status, headers(name), json}; rejects with
// ApiError, or an AbortError when signal aborts.
export function upload(method, path, body, { headers = {}, onprogress, signal } = {}) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open(method, BASE + path);
    x.withCredentials = true;
    x.setRequestHeader(CSRF_HEADER, csrf);
    for (const [k, v] of Object.entries(headers)) x.setRequestHeader(k, v);
    if (onprogress) x.upload.onprogress = (e) => onprogress(e.loaded, e.total);
    x.onload = () => {
      if (x.status === 401) expired(path);
      let json = null;
      try {
        json = x.responseText ? JSON.parse(x.responseText) : null;
      } catch { /* not JSON */ }
      if (x.status >= 200 && x.status < 300) {
        resolve({ status: x.status, header: (n) => x.getResponseHeader(n), json });
        return;
      }
      const e = json && (json.error && typeof json.error === 'object' ? json.error : json);
      reject(new ApiError(x.status, e && e.code, (e && e.message) || x.statusText || 'Upload failed'));
    };
    x.onerror = () => reject(new ApiError(0, 'NetworkError', 'The connection failed'));
    x.onabort = () => reject(new DOMException('Aborted', 'AbortError'));
    if (signal) {
      if (signal.aborted) {
        reject(new DOMException('Aborted', 'AbortError'));
        return;
      }
      signal.addEventListener('abort', () => x.abort(), { once: true });
    }
    x.send(body);
  });
}
