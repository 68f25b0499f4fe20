// The console's entry: the session, the shell (navigation) and the routes.
import { h, replace } from './dom.js';
import { state, loadSession, setSession, signOut, isProvider, isTenantAdmin } from './session.js';
import { route, start, match, go, dispatch, href } from './router.js';
import { loading } from './ui.js';
import { signInPage, passwordPage } from './pages/signin.js';
import { bucketsPage } from './pages/buckets.js';
import { browserPage } from './pages/browser.js';
import { settingsPage } from './pages/settings.js';
import { policiesPage, rolesPage, groupsPage, explainPage } from './pages/iam.js';
import { accessPage } from './pages/access.js';
import { usagePage } from './pages/usage.js';
import { directoryPage } from './pages/directory.js';
import { idpsPage, providerIdpsPage } from './pages/idps.js';
import { accountPage } from './pages/account.js';
import { tenantsPage, tenantPage, healthPage, providerUsagePage } from './pages/provider.js';

route('/signin', signInPage);
route('/password', passwordPage);
route('/buckets', bucketsPage);
route('/buckets/:bucket', browserPage);
route('/buckets/:bucket/settings', settingsPage);
route('/access', accessPage);
route('/iam/policies', policiesPage);
route('/iam/roles', rolesPage);
route('/iam/groups', groupsPage);
route('/iam/explain', explainPage);
route('/usage', usagePage);
route('/directory', directoryPage);
route('/idps', idpsPage);
route('/account', accountPage);
route('/provider/tenants', tenantsPage);
route('/provider/tenants/:tenant', tenantPage);
route('/provider/health', healthPage);
route('/provider/usage', providerUsagePage);
route('/provider/idps', providerIdpsPage);

function navItems() {
  const items = [];
  if (isProvider()) {
    items.push(['/provider/tenants', 'Tenants', 'nav-tenants']);
    items.push(['/provider/health', 'Platforms & nodes', 'nav-health']);
    items.push(['/provider/usage', 'Usage & billing', 'nav-provider-usage']);
    items.push(['/provider/idps', 'Sign-in providers', 'nav-provider-idps']);
    items.push(['/buckets', 'All buckets', 'nav-buckets']);
  } else {
    items.push(['/buckets', 'Buckets', 'nav-buckets']);
    if (isTenantAdmin()) {
      items.push(['/access', 'Access', 'nav-access']);
      items.push(['/iam/policies', 'Policies', 'nav-iam-policies']);
      items.push(['/iam/roles', 'Roles', 'nav-iam-roles']);
      items.push(['/iam/groups', 'Groups', 'nav-iam-groups']);
      items.push(['/iam/explain', 'Why?', 'nav-iam-explain']);
      // Usage and quotas are the tenant admin's, as in the admin API.
      items.push(['/usage', 'Usage', 'nav-usage']);
      items.push(['/directory', 'Directory', 'nav-directory']);
      items.push(['/idps', 'Sign-in providers', 'nav-idps']);
    } else {
      items.push(['/access', 'My keys', 'nav-access']);
    }
  }
  if (state.session.method === 'password') items.push(['/account', 'Account', 'nav-account']);
  return items;
}

function shell(path) {
  const id = state.session.identity || {};
  const who = id.root ? 'Provider (root)' : `${id.user || id.access_key} @ ${id.tenant}`;
  const side = h('header', { class: 'sidebar' });
  const toggle = h('button', {
    type: 'button', class: 'menu-toggle small', 'aria-expanded': 'false', 'aria-controls': 'mainnav',
    'data-testid': 'menu-toggle',
    onclick: () => {
      const open = side.classList.toggle('open');
      toggle.setAttribute('aria-expanded', String(open));
    },
  }, 'Menu');
  const nav = h('nav', { id: 'mainnav', 'aria-label': 'Main' }, h('ul', null, navItems().map(([p, label, tid]) => h('li', null,
    h('a', {
      href: href(p), 'data-testid': tid,
      'aria-current': path === p || path.startsWith(p + '/') ? 'page' : null,
      onclick: () => side.classList.remove('open'),
    }, label)))));
  replace(side,
    h('div', { class: 'brand' }, h('span', null, 'Ostium'), toggle),
    nav,
    h('div', { class: 'whoami', 'data-testid': 'whoami' },
      h('div', null, 'Signed in as'), h('div', null, h('strong', null, who)),
      h('button', { type: 'button', class: 'small', 'data-testid': 'signout', onclick: signOut }, 'Sign out')));
  const main = h('main', { id: 'main', tabindex: '-1' });
  return { root: h('div', { class: 'shell' }, side, main), main };
}

const app = document.getElementById('app');
let renderSeq = 0;

async function render({ path, query }) {
  const seq = ++renderSeq;
  if (!state.session && path !== '/signin') {
    await loadSession().catch(() => null);
    if (seq !== renderSeq) return;
  }
  if (!state.session) {
    if (path !== '/signin') {
      go('/signin', path && path !== '/' ? { next: path } : undefined);
      return;
    }
  } else if (state.session.must_change_password && path !== '/password') {
    go('/password');
    return;
  } else if (path === '/' || path === '/signin' || path === '') {
    go(isProvider() ? '/provider/tenants' : '/buckets');
    return;
  }
  const m = match(path);
  const bare = path === '/signin' || path === '/password';
  let main;
  if (bare) {
    main = h('main', { id: 'main', tabindex: '-1' });
    replace(app, main);
  } else {
    const s = shell(path);
    replace(app, s.root);
    main = s.main;
  }
  if (!m) {
    replace(main, h('h1', null, 'Not found'), h('p', null, h('a', { href: '#/' }, 'Go home')));
    return;
  }
  replace(main, loading());
  try {
    const node = await m.render({ params: m.params, query, main, state });
    if (seq !== renderSeq) return;
    if (node) replace(main, node);
  } catch (e) {
    if (seq !== renderSeq) return;
    if (e.status === 401) return; // console:expired handles it
    replace(main, h('h1', null, 'Something went wrong'),
      h('div', { class: 'error', role: 'alert', 'data-testid': 'page-error' }, (e.code ? e.code + ': ' : '') + e.message));
  }
  // Move focus to the page so screen readers announce it after navigation.
  const h1 = main.querySelector('h1');
  const auto = main.querySelector('[autofocus]');
  if (auto) {
    auto.focus();
  } else if (h1 && document.activeElement === document.body) {
    h1.setAttribute('tabindex', '-1');
    h1.focus({ preventScroll: true });
  }
  document.title = (h1 ? h1.textContent + ' · ' : '') + 'Ostium console';
}

window.addEventListener('console:expired', () => {
  if (!state.session) return;
  setSession(null);
  state.expiredNotice = true;
  go('/signin');
});

document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a.skip');
  if (a) {
    e.preventDefault();
    const m = document.getElementById('main');
    if (m) m.focus();
  }
});

export { dispatch };
start(render);
