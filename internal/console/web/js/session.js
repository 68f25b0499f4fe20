// The signed-in session, shared by the pages.
import { get, del, setCSRF } from './api.js';
import { go } from './router.js';

// session is the signed-in identity (GET /console/api/session), or null.
export const state = { session: null, expiredNotice: false };

export async function loadSession() {
  try {
    const s = await get('/session');
    state.session = s;
    setCSRF(s.csrf_token);
  } catch (e) {
    if (e.status !== 401) throw e;
    state.session = null;
    setCSRF('');
  }
  return state.session;
}

export function setSession(s) {
  state.session = s;
  setCSRF(s ? s.csrf_token : '');
}

export async function signOut() {
  let out = null;
  try {
    out = await del('/session');
  } catch { /* the session may be gone already */ }
  setSession(null);
  // A session an identity provider signed in ends the provider's too:
  // the provider sends the browser back to the console.
  if (out && typeof out.logout_url === 'string' && /^https:\/\//.test(out.logout_url)) {
    window.location.assign(out.logout_url);
    return;
  }
  go('/signin');
}

// The tenant a tenant's page acts on: the user's own.
export function myTenant() {
  const id = state.session && state.session.identity;
  return id ? id.tenant : '';
}
export function isProvider() {
  return !!(state.session && state.session.provider);
}
export function isTenantAdmin() {
  const id = state.session && state.session.identity;
  return !!(id && (id.root || id.role === 'admin') && !id.app);
}

