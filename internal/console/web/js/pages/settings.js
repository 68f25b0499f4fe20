// A bucket's settings, a tab each: versioning, object lock, lifecycle,
// CORS, tags, policy, ACL sharing, public access, encryption, and how its
// replication keeps up.
import { h, field, input, select, button, replace, errorBox, busy, tabs, table } from '../dom.js';
import { get, put, del, enc, api } from '../api.js';
import { href, go } from '../router.js';
import { pageHeader, toast, loading, confirmDialog } from '../ui.js';
import { kvEditor } from './object.js';
import { lockFields } from './buckets.js';
import { encryptionFields, kmsKeys, ruleText } from '../encryption.js';

const TABS = [
  { id: 'versioning', label: 'Versioning' },
  { id: 'object-lock', label: 'Object lock' },
  { id: 'lifecycle', label: 'Lifecycle' },
  { id: 'cors', label: 'CORS' },
  { id: 'tags', label: 'Tags' },
  { id: 'policy', label: 'Policy' },
  { id: 'acl', label: 'Sharing (ACL)' },
  { id: 'public-access', label: 'Public access' },
  { id: 'encryption', label: 'Encryption' },
  { id: 'replication', label: 'Replication' },
];

// The "not configured" errors S3 answers for a setting never set: shown
// as an empty setting, not as a failure.
const NONE = new Set(['NoSuchLifecycleConfiguration', 'NoSuchCORSConfiguration', 'NoSuchTagSet', 'NoSuchTagSetError',
  'NoSuchBucketPolicy', 'NoSuchPublicAccessBlockConfiguration', 'ObjectLockConfigurationNotFoundError',
  'OwnershipControlsNotFoundError', 'ServerSideEncryptionConfigurationNotFoundError']);

async function getSetting(bucket, name) {
  try {
    return await get(`/buckets/${enc(bucket)}/settings/${name}`);
  } catch (e) {
    if (NONE.has(e.code)) return null;
    throw e;
  }
}

export async function settingsPage({ params, query }) {
  const bucket = params.bucket;
  const tab = TABS.some((t) => t.id === query.get('tab')) ? query.get('tab') : 'versioning';
  const panel = h('div', { id: 'tabpanel', role: 'tabpanel', 'aria-labelledby': 'tab-' + tab, class: 'panel', 'data-testid': 'settings-panel' }, loading());
  const render = {
    versioning, 'object-lock': objectLock, lifecycle, cors, tags, policy, acl, 'public-access': publicAccess, encryption, replication,
  }[tab];
  Promise.resolve(render(bucket))
    .then((n) => replace(panel, n))
    .catch((e) => replace(panel, h('div', { class: 'error', role: 'alert', 'data-testid': 'settings-error' }, (e.code ? e.code + ': ' : '') + e.message)));
  return h('div', null,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumbs' },
      h('a', { href: href('/buckets') }, 'Buckets'), ' / ', h('a', { href: href('/buckets/' + enc(bucket)) }, bucket), ' / settings'),
    pageHeader(bucket + ': settings',
      h('a', { class: 'button', href: href('/buckets/' + enc(bucket)), 'data-testid': 'settings-browse' }, 'Browse objects')),
    tabs('settings-tabs', TABS, tab, (id) => go('/buckets/' + enc(bucket) + '/settings', { tab: id })),
    panel);
}

// saveForm: a form whose submit runs save() and reports the outcome.
function saveForm(testid, children, save, label = 'Save') {
  const err = errorBox(testid + '-error');
  const btn = h('button', { type: 'submit', class: 'primary', 'data-testid': testid + '-save' }, label);
  return h('form', {
    'data-testid': testid + '-form',
    onsubmit: async (e) => {
      e.preventDefault();
      err.show(null);
      await busy(btn, async () => {
        try {
          await save();
          toast('Saved');
        } catch (ex) {
          err.show(ex);
        }
      });
    },
  }, children, err, h('div', { class: 'actions' }, btn));
}

async function versioning(bucket) {
  const v = (await getSetting(bucket, 'versioning')) || {};
  const status = v.status || '';
  const sel = select('versioning-status', [['Enabled', 'Enabled'], ['Suspended', 'Suspended']], status === 'Enabled' ? 'Enabled' : 'Suspended');
  return h('div', null, h('h2', null, 'Versioning'),
    h('p', { 'data-testid': 'versioning-current' }, 'Now: ', h('strong', null, status || 'never enabled')),
    h('p', { class: 'hint' }, 'With versioning, overwrites and deletes keep the earlier versions; they can be listed with "Show versions" and restored. Once enabled, versioning can only be suspended.'),
    saveForm('versioning', [field('Versioning', sel)], () => put(`/buckets/${enc(bucket)}/settings/versioning`, { status: sel.value })));
}

async function objectLock(bucket) {
  const c = await getSetting(bucket, 'object-lock');
  if (!c || !c.enabled) {
    return h('div', null, h('h2', null, 'Object lock'),
      h('p', { 'data-testid': 'object-lock-off' }, 'Object lock is off for this bucket. It can only be turned on when a bucket is created.'));
  }
  const lf = lockFields('object-lock');
  const [mode, period, unit] = lf.querySelectorAll('select, input');
  mode.value = c.mode || '';
  period.value = c.days || c.years || '';
  unit.value = c.years ? 'years' : 'days';
  return h('div', null, h('h2', null, 'Object lock'),
    h('p', null, 'Object lock is ', h('strong', null, 'on'), '. A default retention applies to new versions written without one of their own.'),
    saveForm('object-lock', [lf], () => {
      const d = lf.value();
      return put(`/buckets/${enc(bucket)}/settings/object-lock`, { enabled: true, ...(d || {}) });
    }));
}

// splitList reads one value a line or comma separated.
const splitList = (s) => s.split(/[\n,]/).map((x) => x.trim()).filter(Boolean);
const num = (el) => (el.value.trim() === '' ? undefined : parseInt(el.value, 10));

async function lifecycle(bucket) {
  const c = (await getSetting(bucket, 'lifecycle')) || { rules: [] };
  const list = h('div', { 'data-testid': 'lifecycle-rules' });
  const addRule = (r = { id: '', status: 'Enabled' }) => {
    const f = r.filter || {};
    const prefix = (f.prefix !== undefined ? f.prefix : (f.and && f.and.prefix)) ?? r.prefix ?? '';
    const advanced = !!(f.tag || f.gt || f.lt || (f.and && (f.and.tags || f.and.gt || f.and.lt)));
    const id = input('lifecycle-id', { value: r.id || '', maxlength: 255 });
    const enabled = h('input', { type: 'checkbox', 'data-testid': 'lifecycle-enabled', checked: r.status !== 'Disabled' });
    const pfx = input('lifecycle-prefix', { value: prefix, disabled: advanced });
    const exp = input('lifecycle-expire-days', { type: 'number', min: 1, value: (r.expiration && r.expiration.days) || '' });
    const dm = h('input', { type: 'checkbox', 'data-testid': 'lifecycle-delete-markers', checked: !!(r.expiration && r.expiration.dm) });
    const nc = input('lifecycle-noncurrent-days', { type: 'number', min: 1, value: (r.noncurrent && r.noncurrent.days) || '' });
    const keep = input('lifecycle-noncurrent-keep', { type: 'number', min: 1, max: 100, value: (r.noncurrent && r.noncurrent.keep) || '' });
    const abort = input('lifecycle-abort-days', { type: 'number', min: 1, value: (r.abort && r.abort.days) || '' });
    const card = h('fieldset', { class: 'panel', 'data-testid': 'lifecycle-rule' },
      h('legend', null, 'Rule ' + (r.id || '(new)')),
      h('div', { class: 'row' }, field('Rule ID', id), field('Enabled', enabled)),
      field('Applies to keys starting with', pfx, advanced ? 'This rule also filters by tags or size (kept as it is).' : 'Empty: the whole bucket.'),
      h('div', { class: 'row' },
        field('Expire current versions after (days)', exp),
        field('Remove expired delete markers', dm)),
      h('div', { class: 'row' },
        field('Remove noncurrent versions after (days)', nc),
        field('Keep newest noncurrent versions', keep)),
      field('Abort incomplete multipart uploads after (days)', abort),
      r.expiration && r.expiration.date ? h('p', { class: 'hint' }, 'Expires on ' + r.expiration.date + ' (kept).') : null,
      button('Remove rule', 'lifecycle-remove', () => card.remove(), { class: 'small' }));
    card.rule = () => {
      const out = { id: id.value.trim(), status: enabled.checked ? 'Enabled' : 'Disabled' };
      if (advanced) out.filter = f;
      else out.filter = { prefix: pfx.value };
      const e = {};
      if (num(exp)) e.days = num(exp);
      if (r.expiration && r.expiration.date && !e.days) e.date = r.expiration.date;
      if (dm.checked) e.dm = true;
      if (Object.keys(e).length) out.expiration = e;
      if (num(nc) || num(keep)) out.noncurrent = { days: num(nc), keep: num(keep) };
      if (num(abort)) out.abort = { days: num(abort) };
      return out;
    };
    list.appendChild(card);
  };
  (c.rules || []).forEach(addRule);
  return h('div', null, h('h2', null, 'Lifecycle rules'),
    h('p', { class: 'hint' }, 'Rules expire objects, remove old versions and clean up unfinished uploads, a day at a time.'),
    saveForm('lifecycle', [
      list,
      button('Add rule', 'lifecycle-add', () => addRule(), { class: 'small' }),
    ], async () => {
      const rules = [...list.children].map((x) => x.rule());
      if (!rules.length) await del(`/buckets/${enc(bucket)}/settings/lifecycle`);
      else await put(`/buckets/${enc(bucket)}/settings/lifecycle`, { rules });
    }));
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];

async function cors(bucket) {
  const c = (await getSetting(bucket, 'cors')) || { rules: [] };
  const list = h('div', { 'data-testid': 'cors-rules' });
  const addRule = (r = { origins: [], methods: ['GET'] }) => {
    const origins = h('textarea', { rows: 2, 'data-testid': 'cors-origins' }, (r.origins || []).join('\n'));
    const methods = METHODS.map((m) => h('input', { type: 'checkbox', value: m, 'data-testid': 'cors-method-' + m, checked: (r.methods || []).includes(m) }));
    const headers = h('textarea', { rows: 2, 'data-testid': 'cors-headers' }, (r.headers || []).join('\n'));
    const expose = h('textarea', { rows: 2, 'data-testid': 'cors-expose' }, (r.expose || []).join('\n'));
    const maxAge = input('cors-max-age', { type: 'number', min: 0, value: r.max_age ?? '' });
    const card = h('fieldset', { class: 'panel', 'data-testid': 'cors-rule' }, h('legend', null, 'Rule'),
      field('Allowed origins (one a line; * for any)', origins),
      h('fieldset', { class: 'row' }, h('legend', null, 'Allowed methods'), methods.map((m) => field(m.value, m))),
      field('Allowed headers (one a line)', headers),
      field('Exposed headers (one a line)', expose),
      field('Max age (seconds)', maxAge),
      button('Remove rule', 'cors-remove', () => card.remove(), { class: 'small' }));
    card.rule = () => {
      const out = {
        origins: splitList(origins.value), methods: methods.filter((m) => m.checked).map((m) => m.value),
        headers: splitList(headers.value), expose: splitList(expose.value),
      };
      if (r.id) out.id = r.id;
      if (num(maxAge) !== undefined) out.max_age = num(maxAge);
      return out;
    };
    list.appendChild(card);
  };
  (c.rules || []).forEach(addRule);
  return h('div', null, h('h2', null, 'CORS'),
    h('p', { class: 'hint' }, 'Which web sites may call this bucket from a browser.'),
    saveForm('cors', [list, button('Add rule', 'cors-add', () => addRule(), { class: 'small' })], async () => {
      const rules = [...list.children].map((x) => x.rule());
      if (!rules.length) await del(`/buckets/${enc(bucket)}/settings/cors`);
      else await put(`/buckets/${enc(bucket)}/settings/cors`, { rules });
    }));
}

async function tags(bucket) {
  const t = (await getSetting(bucket, 'tags')) || { tags: [] };
  const ed = kvEditor('bucket-tags', t.tags || []);
  return h('div', null, h('h2', null, 'Bucket tags'),
    saveForm('bucket-tags', [ed], async () => {
      const v = ed.value();
      if (!v.length) await del(`/buckets/${enc(bucket)}/settings/tags`);
      else await put(`/buckets/${enc(bucket)}/settings/tags`, { tags: v });
    }));
}

function policyExamples(bucket, tenant) {
  const arn = `arn:aws:s3:::${bucket}`;
  const doc = (...st) => JSON.stringify({ Version: '2012-10-17', Statement: st }, null, 2);
  return [
    ['Public read of every object', doc({ Sid: 'PublicRead', Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `${arn}/*` })],
    ['Read-only for another tenant', doc({ Sid: 'TenantRead', Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::OTHER-TENANT:root' }, Action: ['s3:GetObject', 's3:ListBucket'], Resource: [arn, `${arn}/*`] })],
    ['A user may write only under their prefix', doc({ Sid: 'UserPrefix', Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${tenant || 'TENANT'}:user/USER` }, Action: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'], Resource: `${arn}/USER/*` })],
    ['Deny requests without TLS', doc({ Sid: 'TLSOnly', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: [arn, `${arn}/*`], Condition: { Bool: { 'aws:SecureTransport': 'false' } } })],
    ['Allow only from a network', doc({ Sid: 'FromOffice', Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: [arn, `${arn}/*`], Condition: { NotIpAddress: { 'aws:SourceIp': '192.0.2.0/24' } } })],
  ];
}

async function policy(bucket) {
  const raw = await getSetting(bucket, 'policy');
  const text = raw === null ? '' : (typeof raw === 'string' ? raw : JSON.stringify(raw, null, 2));
  const area = h('textarea', { rows: 18, 'data-testid': 'policy-editor', spellcheck: 'false' }, text);
  area.value = text;
  const err = errorBox('policy-error');
  const ok = h('div', { class: 'notice', role: 'status', 'data-testid': 'policy-valid', hidden: true }, 'The policy is valid.');
  const examples = policyExamples(bucket, '');
  const ex = select('policy-example', [['', 'Insert an example…'], ...examples.map((e, i) => [String(i), e[0]])], '');
  ex.addEventListener('change', () => {
    if (ex.value === '') return;
    area.value = examples[Number(ex.value)][1];
    ex.value = '';
    area.focus();
  });
  const send = (method, path) => api(method, path, undefined, { rawBody: area.value, headers: { 'Content-Type': 'application/json' } });
  const validate = button('Validate', 'policy-validate', async () => {
    err.show(null);
    ok.hidden = true;
    await busy(validate, async () => {
      try {
        await send('POST', `/buckets/${enc(bucket)}/policy/validate`);
        ok.hidden = false;
      } catch (e) { err.show(e); }
    });
  });
  const save = button('Save policy', 'policy-save', async () => {
    err.show(null);
    ok.hidden = true;
    await busy(save, async () => {
      try {
        await send('PUT', `/buckets/${enc(bucket)}/settings/policy`);
        toast('Policy saved');
      } catch (e) { err.show(e); }
    });
  }, { class: 'primary' });
  const remove = button('Delete policy', 'policy-delete', async () => {
    if (!await confirmDialog('Delete policy', 'Delete this bucket\'s policy?', 'confirm-policy-delete')) return;
    try {
      await del(`/buckets/${enc(bucket)}/settings/policy`);
      area.value = '';
      toast('Policy deleted');
    } catch (e) { err.show(e); }
  });
  return h('div', null, h('h2', null, 'Bucket policy'),
    h('p', { class: 'hint' }, 'The AWS policy language. Principals: a tenant is "arn:aws:iam::TENANT:root", a user "arn:aws:iam::TENANT:user/NAME".'),
    field('Examples', ex),
    field('Policy document (JSON)', area),
    err, ok,
    h('div', { class: 'actions' }, remove, validate, save));
}

const PERMS = ['READ', 'WRITE', 'READ_ACP', 'WRITE_ACP', 'FULL_CONTROL'];
const GROUPS = {
  'http://acs.amazonaws.com/groups/global/AllUsers': 'Everyone (public)',
  'http://acs.amazonaws.com/groups/global/AuthenticatedUsers': 'Any signed-in user',
};

async function acl(bucket) {
  const [a, own] = await Promise.all([getSetting(bucket, 'acl'), getSetting(bucket, 'ownership')]);
  const ownership = (own && own.ownership) || 'BucketOwnerEnforced';
  let grants = ((a && a.grants) || []).map((g) => ({ ...g }));
  const grantsBox = h('div');
  const paint = () => replace(grantsBox, table('acl-grants', [
    {
      label: 'Grantee',
      cell: (g) => (g.type === 'Group' ? GROUPS[g.uri] || g.uri
        : g.email ? g.email + ' (by e-mail)' : h('span', { class: 'mono' }, g.id === (a && a.owner) ? 'Bucket owner' : g.id)),
    },
    { label: 'Permission', cell: (g) => g.perm },
    {
      label: 'Actions', hideLabel: true, cell: (g) => button('Remove', 'acl-remove', () => { grants = grants.filter((x) => x !== g); paint(); },
        { class: 'small', disabled: g.id && a && g.id === a.owner, 'aria-label': 'Remove grant' }),
    },
  ], grants, 'No grants.'));
  paint();
  const kind = select('acl-grantee-kind', [['email', 'A user, by e-mail'], ['id', 'A user or tenant, by canonical ID'], ['group', 'A group']], 'email');
  const who = input('acl-grantee', { placeholder: 'user@example.com' });
  const perm = select('acl-permission', PERMS, 'READ');
  kind.addEventListener('change', () => {
    who.placeholder = kind.value === 'email' ? 'user@example.com' : kind.value === 'id' ? 'canonical id' : 'AllUsers or AuthenticatedUsers';
  });
  const add = button('Add grant', 'acl-add', () => {
    const v = who.value.trim();
    if (!v) return;
    if (kind.value === 'email') grants.push({ type: 'AmazonCustomerByEmail', email: v, perm: perm.value });
    else if (kind.value === 'id') grants.push({ type: 'CanonicalUser', id: v, perm: perm.value });
    else grants.push({ type: 'Group', uri: v.startsWith('http') ? v : 'http://acs.amazonaws.com/groups/global/' + v, perm: perm.value });
    who.value = '';
    paint();
  }, { class: 'small' });
  const ownSel = select('ownership', [
    ['BucketOwnerEnforced', 'ACLs disabled (bucket owner enforced)'],
    ['BucketOwnerPreferred', 'ACLs enabled, bucket owner preferred'],
    ['ObjectWriter', 'ACLs enabled, object writer'],
  ], ownership);
  const enforced = ownership === 'BucketOwnerEnforced';
  return h('div', null,
    h('h2', null, 'Object ownership'),
    saveForm('ownership', [field('Object ownership', ownSel)], () => put(`/buckets/${enc(bucket)}/settings/ownership`, { ownership: ownSel.value })),
    h('h2', null, 'Share with other users (ACL)'),
    enforced ? h('p', { class: 'notice', 'data-testid': 'acl-disabled' }, 'ACLs are disabled for this bucket: enable them above to share it through grants, or use the bucket policy.') : null,
    h('p', { class: 'hint' }, 'Grant another tenant\'s user access to this bucket by their e-mail or canonical ID.'),
    saveForm('acl', [
      grantsBox,
      h('div', { class: 'row' }, field('Grantee', kind), field('Who', who), field('Permission', perm), add),
    ], () => put(`/buckets/${enc(bucket)}/settings/acl`, {
      owner: a && a.owner,
      grants: grants.map((g) => (g.email ? { type: g.type, email: g.email, perm: g.perm } : g)),
    }), 'Save grants'));
}

async function publicAccess(bucket) {
  const b = (await getSetting(bucket, 'public-access-block')) || {};
  const items = [
    ['block_public_acls', 'Block public ACLs', 'Refuse new ACLs that grant public access.'],
    ['ignore_public_acls', 'Ignore public ACLs', 'Public grants in existing ACLs do not count.'],
    ['block_public_policy', 'Block public bucket policies', 'Refuse a policy that grants public access.'],
    ['restrict_public_buckets', 'Restrict public buckets', 'A public policy only lets in this tenant\'s own users.'],
  ];
  const boxes = items.map(([k]) => h('input', { type: 'checkbox', 'data-testid': 'pab-' + k, checked: !!b[k] }));
  return h('div', null, h('h2', null, 'Public access block'),
    saveForm('pab', items.map(([, label, hint], i) => field(label, boxes[i], hint)), async () => {
      const body = {};
      items.forEach(([k], i) => { body[k] = boxes[i].checked; });
      await put(`/buckets/${enc(bucket)}/settings/public-access-block`, body);
    }));
}

// encryption: the bucket's default encryption of new objects (S3's
// Put/Get/DeleteBucketEncryption), or the tenant's or provider's default
// it falls back to.
async function encryption(bucket) {
  const path = `/buckets/${enc(bucket)}/settings/encryption`;
  const [cur, keys] = await Promise.all([getSetting(bucket, 'encryption'), kmsKeys(bucket)]);
  const now = h('p', { 'data-testid': 'encryption-current' });
  const paint = (r) => {
    if (!r) {
      replace(now, 'Now: ', h('strong', null, 'none'), '. New objects are stored unencrypted unless their request asks for encryption.');
    } else if (r.source === 'default') {
      replace(now, 'Now: ', h('strong', null, ruleText(r)), ', the tenant\'s default (set by the provider). A default chosen here applies to this bucket instead.');
    } else {
      replace(now, 'Now: ', h('strong', null, ruleText(r)), '.');
    }
  };
  paint(cur);
  const own = cur && cur.source !== 'default' ? cur : null;
  const inherited = cur && cur.source === 'default';
  const fields = encryptionFields('encryption', keys, own, inherited ? 'None of its own' : 'None',
    inherited ? 'the tenant\'s default above applies' : 'the tenant\'s default applies if it has one, else new objects are stored unencrypted');
  return h('div', null, h('h2', null, 'Default encryption'), now,
    h('p', { class: 'hint' }, 'Encrypts new objects whose request asks for no encryption. Objects already stored keep the encryption they were written with.'),
    saveForm('encryption', [fields], async () => {
      const r = fields.value();
      if (r) await put(path, r);
      else await del(path);
      paint(await getSetting(bucket, 'encryption'));
    }));
}

// replication shows where the bucket replicates and how far behind it
// is; the rules themselves are S3's PutBucketReplication.
async function replication(bucket) {
  const r = await get(`/buckets/${enc(bucket)}/replication`);
  if (!r.configured) {
    return h('div', null, h('h2', null, 'Replication'),
      h('p', { 'data-testid': 'replication-off' }, 'This bucket replicates nowhere. Replication rules are set with S3 (PutBucketReplication), on a versioned bucket.'));
  }
  const lag = r.lag_seconds > 0 ? (r.lag_seconds < 120 ? Math.round(r.lag_seconds) + ' s' : Math.round(r.lag_seconds / 60) + ' min') : 'none';
  return h('div', null, h('h2', null, 'Replication'),
    h('dl', null,
      h('dt', null, 'Destinations'), h('dd', { 'data-testid': 'replication-destinations' }, r.destinations.join(', ')),
      h('dt', null, 'Versions waiting'), h('dd', { 'data-testid': 'replication-backlog' }, String(r.backlog)),
      h('dt', null, 'Oldest waiting for'), h('dd', { 'data-testid': 'replication-lag' }, lag)),
    h('p', { class: 'hint' }, 'A version waits until its replica is written; one that cannot be is retried, backing off, and shows as FAILED on HEAD when it never can. A destination that was down catches up when it is back.'));
}
