// Directory: the tenant's LDAP or Active Directory connection as its
// admins see it: the last sync, the users it brought, and "Sync now".
// Connecting one is the admin API's and `ostium admin directory`'s.
import { h, button, table, errorBox, busy, replace } from '../dom.js';
import { get, post, enc } from '../api.js';
import { pageHeader, loading, when, toast } from '../ui.js';
import { myTenant } from '../session.js';

export async function directoryPage() {
  const tenant = myTenant();
  const body = h('div', { 'data-testid': 'directory-body', 'aria-live': 'polite' }, loading());
  const err = errorBox('directory-error');
  const sync = button('Sync now', 'directory-sync', async () => {
    err.show(null);
    await busy(sync, async () => {
      try {
        const r = await post(`/tenants/${enc(tenant)}/directory/sync`);
        toast(`Synced: ${r.created} created, ${r.updated} updated, ${r.disabled} disabled`);
      } catch (ex) {
        err.show(ex);
      }
      await paint();
    });
  }, { class: 'primary' });

  const paint = async () => {
    const d = await get(`/tenants/${enc(tenant)}/directory`);
    if (!d.connected) {
      sync.hidden = true;
      replace(body, h('p', { class: 'empty', 'data-testid': 'directory-none' },
        'No directory is connected. Your provider connects one, or an admin with ', h('code', null, 'ostium admin directory put'), '.'));
      return;
    }
    const c = d.directory.config;
    const r = d.directory.last_result;
    const users = await get(`/tenants/${enc(tenant)}/directory/users`);
    replace(body,
      h('dl', { 'data-testid': 'directory-facts' },
        h('dt', null, 'Directory'), h('dd', null, h('code', { class: 'mono' }, c.url), c.start_tls ? ' (StartTLS)' : ''),
        h('dt', null, 'Users from'), h('dd', null, h('code', { class: 'mono' }, c.user_base)),
        h('dt', null, 'Admin groups'), h('dd', null, (c.admin_groups || []).join(', ') || '–'),
        h('dt', null, 'User groups'), h('dd', null, (c.user_groups || []).join(', ') || 'everyone the filter finds'),
        h('dt', null, 'Last sync'), h('dd', { 'data-testid': 'directory-last-sync' },
          d.directory.last_sync ? when(d.directory.last_sync) : 'not yet',
          r && r.error ? h('span', { class: 'badge bad' }, ' failed: ' + r.error) : '')),
      h('h2', null, 'Users from the directory'),
      table('directory-users', [
        { label: 'User', class: 'name', cell: (u) => u.user },
        { label: 'Login', cell: (u) => u.login },
        { label: 'Name', cell: (u) => u.display_name || '–' },
        { label: 'Role', cell: (u) => u.role },
        { label: 'Groups', cell: (u) => (u.groups || []).join(', ') || '–' },
        { label: 'Status', cell: (u) => h('span', { class: 'badge ' + (u.disabled ? 'bad' : 'ok'), 'data-testid': 'directory-user-status' }, u.disabled ? 'disabled' : 'active') },
        { label: 'Synced', cell: (u) => when(u.synced) },
      ], users, 'No user has come from the directory yet.'));
  };
  await paint();
  return h('div', null, pageHeader('Directory', sync), err, body);
}
