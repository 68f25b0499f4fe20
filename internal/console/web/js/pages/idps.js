// Sign-in providers: OpenID Connect providers for console sign-in, a
// tenant's as its admins manage them, or the provider's own, for every
// tenant, whose tokens name the tenant in a claim: register one, change
// it, remove it. The client secret is sent, never shown back; left empty
// when changing, it stays as it is.
import { h, button, table, errorBox, field, input, replace } from '../dom.js';
import { get, put, del, enc } from '../api.js';
import { pageHeader, loading, when, toast, formDialog, confirmDialog } from '../ui.js';
import { myTenant } from '../session.js';

const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean);

export const idpsPage = () => providersPage(myTenant());
export const providerIdpsPage = () => providersPage(null);

async function providersPage(tenant) {
  const base = tenant ? `/tenants/${enc(tenant)}/idps` : '/idps';
  const body = h('div', { 'data-testid': 'idps-body', 'aria-live': 'polite' }, loading());
  const err = errorBox('idps-error');

  const edit = async (p) => {
    const c = (p && p.config) || {};
    const name = input('idp-name', { required: true, pattern: '[a-z0-9][a-z0-9\\-]{0,62}', value: p ? p.name : '', readonly: !!p, autocapitalize: 'none', spellcheck: 'false' });
    const label = input('idp-display-name', { value: c.display_name || '', maxlength: 64 });
    const issuer = input('idp-issuer', { type: 'url', required: true, value: c.issuer || '', placeholder: 'https://login.example.com/realms/staff', class: 'mono' });
    const client = input('idp-client-id', { required: true, value: c.client_id || '', class: 'mono', autocapitalize: 'none', spellcheck: 'false' });
    const secret = input('idp-client-secret', { type: 'password', autocomplete: 'new-password', required: !p, placeholder: p ? 'unchanged' : '' });
    const scopes = input('idp-scopes', { value: (c.scopes || ['profile', 'email']).join(', ') });
    const userClaim = input('idp-user-claim', { value: c.user_claim || 'preferred_username', class: 'mono' });
    const groupsClaim = input('idp-groups-claim', { value: c.groups_claim || 'groups', class: 'mono' });
    const tenantClaim = input('idp-tenant-claim', { value: c.tenant_claim || '', required: !tenant, class: 'mono' });
    const adminGroups = input('idp-admin-groups', { value: (c.admin_groups || []).join(', ') });
    const userGroups = input('idp-user-groups', { value: (c.user_groups || []).join(', ') });
    const create = h('input', { type: 'checkbox', 'data-testid': 'idp-create-users', checked: !!c.create_users });
    const done = await formDialog(p ? 'Change sign-in provider' : 'Add sign-in provider', 'idp-dialog', h('div', null,
      field('Name', name, 'Lower-case letters, digits and hyphens; part of its URLs.'),
      field('Button label', label, 'The sign-in button says "Sign in with" this.'),
      field('Issuer URL', issuer), field('Client ID', client), field('Client secret', secret, p ? 'Leave empty to keep the current one.' : 'Never shown again.'),
      field('Scopes', scopes, 'Besides openid, comma-separated.'),
      field('User name claim', userClaim), field('Groups claim', groupsClaim),
      tenant ? null : field('Tenant claim', tenantClaim, 'The claim that names the tenant a person signs in to.'),
      field('Admin groups', adminGroups, tenant ? 'Members are admins of this tenant.' : 'Members are admins of their tenant.'),
      field('User groups', userGroups, 'Only members may sign in; empty: everyone the provider signs in.'),
      field('Create users at their first sign-in', create)),
    async () => {
      const cfg = {
        display_name: label.value.trim(), issuer: issuer.value.trim(), client_id: client.value.trim(),
        scopes: list(scopes.value), user_claim: userClaim.value.trim(), groups_claim: groupsClaim.value.trim(),
        admin_groups: list(adminGroups.value), user_groups: list(userGroups.value), create_users: create.checked,
        tenant_claim: tenant ? c.tenant_claim : tenantClaim.value.trim(), thumbprints: c.thumbprints, iam_groups: c.iam_groups,
      };
      if (secret.value) cfg.client_secret = secret.value;
      return put(`${base}/${enc(name.value.trim())}`, cfg);
    });
    if (done) {
      toast(p ? 'Sign-in provider changed' : 'Sign-in provider added');
      await paint();
    }
  };
  const add = button('Add provider', 'idp-add', () => edit(null), { class: 'primary' });

  const paint = async () => {
    const ps = await get(base);
    const callback = `${window.location.origin}/console/api/oidc/callback`;
    replace(body,
      h('p', null, 'Register the console at your provider as a confidential client (client_secret_basic) with redirect URI ',
        h('code', { class: 'mono', 'data-testid': 'idp-callback' }, callback), ', and send your people to ',
        h('code', { class: 'mono' }, `${window.location.origin}/console/` + (tenant ? `?tenant=${encodeURIComponent(tenant)}` : '')), '.'),
      table('idps', [
        { label: 'Name', class: 'name', cell: (p) => p.name },
        { label: 'Button', cell: (p) => 'Sign in with ' + (p.config.display_name || p.name) },
        { label: 'Issuer', cell: (p) => h('code', { class: 'mono' }, p.config.issuer) },
        ...(tenant ? [] : [{ label: 'Tenant claim', cell: (p) => h('code', { class: 'mono' }, p.config.tenant_claim) }]),
        { label: 'New users', cell: (p) => (p.config.create_users ? 'created' : 'refused') },
        { label: 'Changed', cell: (p) => when(p.updated) },
        {
          label: 'Actions', cell: (p) => h('span', { class: 'actions' },
            button('Change', 'idp-edit-' + p.name, () => edit(p), { class: 'small' }),
            button('Remove', 'idp-delete-' + p.name, async () => {
              if (!await confirmDialog('Remove ' + p.name + '?', 'No one signs in with it any more. Its users stay, with their keys.')) return;
              try {
                await del(`${base}/${enc(p.name)}`);
                toast('Sign-in provider removed');
              } catch (ex) {
                err.show(ex);
              }
              await paint();
            }, { class: 'small danger' })),
        },
      ], ps, 'No sign-in provider yet.'));
  };
  await paint();
  return h('div', null, pageHeader('Sign-in providers', add), err, body);
}
