// Access: a tenant's users and roles, and each user's access keys and
// application credentials. Shared with the provider's tenant page.
import { h, field, input, select, button, table, replace } from '../dom.js';
import { get, post, put, del, enc } from '../api.js';
import { pageHeader, formDialog, confirmDialog, modal, toast, when, secretBox, loading } from '../ui.js';
import { state, myTenant, isTenantAdmin } from '../session.js';

export async function accessPage({ query }) {
  const tenant = myTenant();
  const me = state.session.identity || {};
  if (!isTenantAdmin()) {
    return h('div', null, pageHeader('My keys'),
      await keysSection(tenant, me.user, false));
  }
  return h('div', null, pageHeader('Access'), await usersSection(tenant, query.get('user') || me.user));
}

// usersSection lists a tenant's users, with the keys of the chosen one.
export async function usersSection(tenant, chosen) {
  const wrap = h('div');
  const keysBox = h('div', { 'data-testid': 'keys-region' });
  let current = chosen;
  const showKeys = async (user) => {
    current = user;
    replace(keysBox, loading());
    replace(keysBox, await keysSection(tenant, user, true));
  };
  const refresh = async () => {
    const users = (await get(`/tenants/${enc(tenant)}/users`)) || [];
    replace(wrap,
      h('div', { class: 'page-head' }, h('h2', null, 'Users'),
        button('Create user', 'user-create', () => createUser(tenant, refresh), { class: 'primary' })),
      table('user-table', [
        { label: 'Name', class: 'name', cell: (u) => h('strong', null, u.name) },
        { label: 'Role', cell: (u) => (u.role === 'admin' ? h('span', { class: 'badge warn' }, 'admin') : 'user') },
        { label: 'E-mail', cell: (u) => u.email || '–' },
        { label: 'Created', cell: (u) => when(u.created) },
        {
          label: 'Actions',
          cell: (u) => h('div', { class: 'cell-actions' },
            button('Keys', 'user-keys', () => showKeys(u.name), { class: 'small', 'aria-label': 'Keys of ' + u.name, 'aria-pressed': String(u.name === current) }),
            button('Set password', 'user-password', () => setPassword(tenant, u.name), { class: 'small', 'aria-label': 'Set password of ' + u.name }),
            button('Delete', 'user-delete', async () => {
              if (!await confirmDialog('Delete user', `Delete the user "${u.name}" and their keys?`, 'confirm-user-delete')) return;
              try {
                await del(`/tenants/${enc(tenant)}/users/${enc(u.name)}`);
                toast('User deleted');
                refresh();
              } catch (e) { toast(e.message, 'error'); }
            }, { class: 'small', 'aria-label': 'Delete ' + u.name })),
        },
      ], users, 'No users yet.'),
      keysBox);
    if (current && users.some((u) => u.name === current)) showKeys(current);
    else if (users.length) showKeys(users[0].name);
  };
  await refresh();
  return wrap;
}

async function createUser(tenant, refresh) {
  const name = input('user-name', { required: true, autocapitalize: 'none', spellcheck: 'false' });
  const role = select('user-role', [['user', 'User: own buckets and what is shared'], ['admin', 'Admin: all of the tenant']], 'user');
  const pw = input('user-initial-password', { type: 'password', autocomplete: 'new-password', minlength: 8 });
  const u = await formDialog('Create user', 'user-create-dialog', [
    field('User name', name), field('Role', role),
    field('Initial password', pw, 'Optional. The user must change it at first sign-in.'),
  ], () => post(`/tenants/${enc(tenant)}/users`, { name: name.value.trim(), role: role.value, password: pw.value || undefined }), 'Create');
  if (u) {
    toast('User created');
    refresh();
  }
}

async function setPassword(tenant, user) {
  const pw = input('set-password', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8 });
  const r = await formDialog('Set password of ' + user, 'set-password-dialog', [
    field('New password', pw, 'The user must change it at their next sign-in.'),
  ], async () => { await put(`/tenants/${enc(tenant)}/users/${enc(user)}/password`, { password: pw.value }); return true; }, 'Set password');
  if (r) toast('Password set');
}

// keysSection lists a user's keys and application credentials.
export async function keysSection(tenant, user, admin) {
  const wrap = h('section', { 'aria-labelledby': 'keys-title', 'data-testid': 'keys-section' });
  const refresh = async () => {
    let keys;
    try {
      keys = (await get(`/tenants/${enc(tenant)}/users/${enc(user)}/keys`)) || [];
    } catch (e) {
      if (e.code === 'AccessDenied' && !admin) {
        replace(wrap, h('h2', { id: 'keys-title' }, 'Access keys'),
          h('p', { class: 'notice', 'data-testid': 'keys-denied' }, 'Your tenant\'s administrator manages access keys. Ask them for a key or an application credential.'));
        return;
      }
      throw e;
    }
    replace(wrap,
      h('div', { class: 'page-head' }, h('h2', { id: 'keys-title' }, `Access keys of ${user}`),
        h('div', { class: 'page-actions' },
          button('Create access key', 'key-create', () => createKey(tenant, user, refresh), { class: 'primary' }),
          button('Create application credential', 'appcred-create', () => createAppCred(tenant, user, refresh)))),
      table('key-table', [
        { label: 'Access key', class: 'name', cell: (k) => h('code', { class: 'mono' }, k.access_key) },
        { label: 'Kind', cell: (k) => (k.kind === 'appcred' ? 'application' : k.kind || 'key') },
        { label: 'Status', cell: (k) => h('span', { class: 'badge ' + (k.status === 'active' ? 'ok' : 'bad'), 'data-testid': 'key-status' }, k.status) },
        { label: 'Limited to', cell: (k) => (k.buckets && k.buckets.length ? k.buckets.join(', ') + (k.read_only ? ' (read only)' : '') : k.read_only ? 'read only' : '–') },
        { label: 'Expires', cell: (k) => (k.expires ? when(k.expires) : 'never') },
        { label: 'Created', cell: (k) => when(k.created) },
        {
          label: 'Actions',
          cell: (k) => h('div', { class: 'cell-actions' },
            button('Rotate', 'key-rotate', () => rotateKey(tenant, user, k, refresh), { class: 'small', 'aria-label': 'Rotate ' + k.access_key }),
            k.status === 'active'
              ? button('Disable', 'key-disable', () => keyAction(tenant, user, k, 'disable', refresh), { class: 'small', 'aria-label': 'Disable ' + k.access_key })
              : button('Enable', 'key-enable', () => keyAction(tenant, user, k, 'enable', refresh), { class: 'small', 'aria-label': 'Enable ' + k.access_key }),
            button('Delete', 'key-delete', async () => {
              if (!await confirmDialog('Delete key', `Delete the key ${k.access_key}? Clients using it stop working at once.`, 'confirm-key-delete')) return;
              try {
                await del(`/tenants/${enc(tenant)}/users/${enc(user)}/keys/${enc(k.access_key)}`);
                toast('Key deleted');
                refresh();
              } catch (e) { toast(e.message, 'error'); }
            }, { class: 'small', 'aria-label': 'Delete ' + k.access_key })),
        },
      ], keys, 'No keys.'));
  };
  await refresh();
  return wrap;
}

async function keyAction(tenant, user, k, action, refresh) {
  try {
    await post(`/tenants/${enc(tenant)}/users/${enc(user)}/keys/${enc(k.access_key)}/${action}`);
    toast(`Key ${action}d`);
    refresh();
  } catch (e) { toast(e.message, 'error'); }
}

// showSecret shows a new key's secret once.
function showSecret(k, title) {
  return modal(title, 'secret-dialog', (close) => h('div', null,
    h('p', { class: 'notice' }, 'Copy the secret key now: it is shown only once.'),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Access key'), secretBox(k.access_key, 'new-access-key')),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Secret key'), secretBox(k.secret_key, 'new-secret-key')),
    k.expires ? h('p', null, 'Expires ', when(k.expires)) : null,
    h('div', { class: 'actions' }, button('Done', 'secret-done', () => close(), { class: 'primary' }))));
}

async function createKey(tenant, user, refresh) {
  try {
    const k = await post(`/tenants/${enc(tenant)}/users/${enc(user)}/keys`);
    await showSecret(k, 'New access key');
    refresh();
  } catch (e) { toast(e.message, 'error'); }
}

async function rotateKey(tenant, user, k, refresh) {
  const grace = select('rotate-grace', [['0', 'At once'], ['3600', '1 hour'], ['86400', '1 day'], ['604800', '7 days']], '86400');
  const nk = await formDialog('Rotate ' + k.access_key, 'rotate-dialog', [
    h('p', null, 'A new key replaces this one. The old key keeps working for the grace period, so clients can move over.'),
    field('Old key stops working after', grace),
  ], () => post(`/tenants/${enc(tenant)}/users/${enc(user)}/keys/${enc(k.access_key)}/rotate`, { grace_seconds: Number(grace.value) }), 'Rotate');
  if (nk) {
    await showSecret(nk, 'New access key');
    refresh();
  }
}

async function createAppCred(tenant, user, refresh) {
  let buckets = [];
  try {
    buckets = ((await get('/buckets')).buckets || []).map((b) => b.name);
  } catch { /* the list is only a help */ }
  const boxes = buckets.map((b) => h('input', { type: 'checkbox', value: b, 'data-testid': 'appcred-bucket' }));
  const read = h('input', { type: 'checkbox', 'data-testid': 'appcred-read-only' });
  const exp = select('appcred-expiry', [['', 'Never'], ['86400', '1 day'], ['2592000', '30 days'], ['31536000', '1 year']], '');
  const k = await formDialog('Create application credential', 'appcred-dialog', [
    h('p', { class: 'hint' }, 'An application credential reaches only the buckets chosen here, and cannot change who else may reach them.'),
    h('fieldset', null, h('legend', null, 'Buckets'),
      boxes.length ? boxes.map((b) => field(b.value, b)) : h('p', { class: 'muted' }, 'No buckets yet.')),
    field('Read only', read),
    field('Expires after', exp),
  ], () => {
    const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
    if (!chosen.length) throw new Error('Choose at least one bucket.');
    return post(`/tenants/${enc(tenant)}/users/${enc(user)}/appcreds`, {
      buckets: chosen, read_only: read.checked, expires_seconds: exp.value ? Number(exp.value) : undefined,
    });
  }, 'Create');
  if (k) {
    await showSecret(k, 'New application credential');
    refresh();
  }
}
