// Sign in, and the forced password change.
import { h, field, input, errorBox, busy, replace } from '../dom.js';
import { post, get, qs } from '../api.js';
import { go } from '../router.js';
import { state, setSession, loadSession, signOut } from '../session.js';

export function signInPage({ query }) {
  const err = errorBox('signin-error');
  let method = ['access_key', 'directory'].includes(query.get('method')) ? query.get('method') : 'password';
  const fields = h('div');
  const tenant = input('signin-tenant', { autofocus: true, name: 'tenant', autocomplete: 'organization', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const user = input('signin-user', { name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
  const password = input('signin-password', { type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const accessKey = input('signin-access-key', { name: 'access_key', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false', class: 'mono' });
  const secret = input('signin-secret-key', { type: 'password', name: 'secret_key', autocomplete: 'current-password', required: true, class: 'mono' });

  const showFields = () => {
    if (method === 'password') {
      replace(fields, field('Tenant', tenant), field('User name', user), field('Password', password));
    } else if (method === 'directory') {
      replace(fields, field('Tenant', tenant), field('Directory login name', user), field('Directory password', password));
    } else {
      replace(fields, field('Access key', accessKey), field('Secret key', secret));
    }
  };
  const radio = (value, label) => {
    const r = h('input', {
      type: 'radio', name: 'method', value, 'data-testid': 'signin-method-' + value,
      checked: method === value,
      onchange: () => { method = value; err.show(null); showFields(); },
    });
    return field(label, r);
  };
  showFields();
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'signin-submit' }, 'Sign in');
  const form = h('form', {
    'data-testid': 'signin-form', 'aria-labelledby': 'signin-title',
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(submit, async () => {
        const body = method !== 'access_key'
          ? { method, tenant: tenant.value.trim(), user: user.value.trim(), password: password.value }
          : { method, access_key: accessKey.value.trim(), secret_key: secret.value };
        try {
          const s = await post('/session', body);
          setSession(s);
          state.expiredNotice = false;
          if (s.must_change_password) go('/password');
          else go(query.get('next') || (s.provider ? '/provider/tenants' : '/buckets'));
        } catch (ex) {
          if (ex.status === 429) ex.message = 'Too many failed attempts. Try again later.';
          err.show(ex);
          (method !== 'access_key' ? password : secret).value = '';
        }
      });
    },
  },
  h('fieldset', { class: 'row' }, h('legend', null, 'Sign in with'),
    radio('password', 'User name and password'), radio('directory', 'Directory (LDAP, Active Directory)'), radio('access_key', 'Access key')),
  fields, err, h('div', { class: 'actions' }, submit));
  // Identity providers: the provider's, and the tenant's that the
  // page's ?tenant= names (a tenant gives its people that link).
  const page = new URLSearchParams(window.location.search);
  const idpErr = errorBox('signin-idp-error');
  const refused = page.get('signin_error');
  if (refused) idpErr.show({ code: refused, message: idpMessages[refused] || 'The sign-in was refused.' });
  const idps = h('div', { class: 'idps', 'data-testid': 'signin-idps' });
  const pageTenant = query.get('tenant') || page.get('tenant') || '';
  get('/oidc/providers' + qs({ tenant: pageTenant })).then((r) => {
    const list = (r && r.providers) || [];
    if (!list.length) return;
    replace(idps, h('p', null, 'Or'), ...list.map((p) => h('a', {
      class: 'button', role: 'button', 'data-testid': 'signin-idp-' + (p.tenant ? p.tenant + '-' : '') + p.name,
      href: '/console/api/oidc/start' + qs({ tenant: p.tenant, idp: p.name, return: '/console/#' + (query.get('next') || '/buckets') }),
    }, 'Sign in with ' + p.label)));
  }).catch(() => { /* no buttons: the other methods remain */ });
  return h('div', { class: 'signin panel' },
    h('div', { class: 'brand' }, 'Ostium'),
    h('h1', { id: 'signin-title' }, 'Sign in'),
    state.expiredNotice ? h('p', { class: 'notice', 'data-testid': 'session-expired' }, 'Your session has ended. Please sign in again.') : null,
    idpErr, form, idps);
}

// What a refused sign-in through an identity provider tells the user.
const idpMessages = {
  InvalidState: 'The sign-in expired or was started in another browser. Try again.',
  InvalidIdentityToken: 'The identity provider\'s answer could not be verified.',
  ExpiredToken: 'The identity provider\'s answer has expired. Try again.',
  AccessDeniedByProvider: 'The identity provider did not sign you in.',
  IdentityProviderUnavailable: 'The identity provider did not answer. Try again later.',
  NoSuchTenant: 'Your account names no tenant of this service.',
  WrongTenant: 'Your account belongs to another tenant.',
  TenantSuspended: 'Your tenant is suspended; ask your provider.',
  NotAllowed: 'Your account is in none of the groups allowed to sign in.',
  NoSuchUser: 'You are not a user of this tenant yet; ask its administrator.',
  UserExists: 'A user of your name exists that this identity provider did not create; ask your administrator.',
  UserDisabled: 'Your user is disabled.',
};

export function passwordPage() {
  if (!state.session) {
    go('/signin');
    return null;
  }
  const forced = state.session.must_change_password;
  const err = errorBox('password-error');
  const form = passwordForm(err, async () => {
    await loadSession();
    go(state.session && state.session.provider ? '/provider/tenants' : '/buckets');
  });
  return h('div', { class: 'signin panel' },
    h('div', { class: 'brand' }, 'Ostium'),
    h('h1', null, forced ? 'Choose a new password' : 'Change password'),
    forced ? h('p', { class: 'notice', 'data-testid': 'password-forced' }, 'Your password was set by an administrator. Choose your own before you continue.') : null,
    form,
    h('p', null, h('button', { type: 'button', class: 'link', 'data-testid': 'signout', onclick: signOut }, 'Sign out')));
}

// passwordForm: current, new and confirmation; done() runs after a change.
export function passwordForm(err, done) {
  const current = input('password-current', { type: 'password', autocomplete: 'current-password', required: true });
  const next = input('password-new', { type: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 256 });
  const again = input('password-confirm', { type: 'password', autocomplete: 'new-password', required: true });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'password-submit' }, 'Change password');
  return h('form', {
    'data-testid': 'password-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      if (next.value !== again.value) {
        err.show({ message: 'The new passwords do not match.' });
        again.focus();
        return;
      }
      await busy(submit, async () => {
        try {
          await post('/password', { current: current.value, new: next.value });
          await done();
        } catch (ex) {
          err.show(ex);
        }
      });
    },
  },
  field('Current password', current),
  field('New password', next, '8 to 256 characters.'),
  field('New password again', again),
  err, h('div', { class: 'actions' }, submit));
}
