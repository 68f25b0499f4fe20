// The signed-in user's account: its password.
import { h, errorBox } from '../dom.js';
import { pageHeader, toast } from '../ui.js';
import { state } from '../session.js';
import { passwordForm } from './signin.js';

export function accountPage() {
  const id = state.session.identity || {};
  const err = errorBox('password-error');
  let form;
  form = passwordForm(err, () => {
    toast('Password changed. Your other sessions were signed out.');
    form.reset();
  });
  return h('div', null,
    pageHeader('Account'),
    h('div', { class: 'panel' },
      h('dl', { class: 'muted' },
        h('dt', null, 'Tenant'), h('dd', { 'data-testid': 'account-tenant' }, id.tenant || '–'),
        h('dt', null, 'User'), h('dd', { 'data-testid': 'account-user' }, id.user || '–'),
        h('dt', null, 'Role'), h('dd', null, id.role || '–'))),
    h('div', { class: 'panel' }, h('h2', null, 'Change password'), form));
}
