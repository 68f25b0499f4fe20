// The bucket list: create and delete.
import { h, field, input, select, button, table, replace } from '../dom.js';
import { get, post, del, enc } from '../api.js';
import { href, go } from '../router.js';
import { pageHeader, formDialog, confirmDialog, modal, toast, when } from '../ui.js';
import { isProvider } from '../session.js';
import { encryptionFields, kmsKeys } from '../encryption.js';

export async function bucketsPage() {
  const list = h('div', { 'data-testid': 'bucket-list-region' });
  const refresh = async () => {
    const { buckets } = await get('/buckets');
    replace(list, bucketTable(buckets || [], refresh));
  };
  await refresh();
  return h('div', null,
    pageHeader(isProvider() ? 'All buckets' : 'Buckets',
      button('Create bucket', 'bucket-create', () => createBucket(), { class: 'primary' })),
    list);
}

function bucketTable(buckets, refresh) {
  const cols = [
    { label: 'Name', class: 'name', cell: (b) => h('a', { href: href('/buckets/' + enc(b.name)), 'data-testid': 'bucket-link' }, b.name) },
  ];
  if (isProvider()) cols.push({ label: 'Tenant', cell: (b) => b.tenant || '–' });
  cols.push(
    { label: 'Versioning', cell: (b) => (b.settings_hidden ? '–' : b.versioning || 'Off') },
    { label: 'Object lock', cell: (b) => (b.settings_hidden ? '–' : b.object_lock ? h('span', { class: 'badge warn' }, 'On' + lockSummary(b.object_lock)) : 'Off') },
    { label: 'Created', cell: (b) => when(b.created) },
    {
      label: 'Actions', hideLabel: true, cell: (b) => h('div', { class: 'cell-actions' },
        h('a', { class: 'button small', href: href('/buckets/' + enc(b.name) + '/settings'), 'data-testid': 'bucket-settings', 'aria-label': 'Settings of ' + b.name }, 'Settings'),
        button('Delete', 'bucket-delete', async () => {
          if (!await confirmDialog('Delete bucket', `Delete the bucket "${b.name}"? It must be empty.`, 'confirm-bucket-delete')) return;
          try {
            await del('/buckets/' + enc(b.name));
            toast(`Bucket ${b.name} deleted`);
            await refresh();
          } catch (e) {
            toast((e.code === 'BucketNotEmpty' ? 'The bucket is not empty: delete its objects (and versions) first.' : e.message), 'error');
          }
        }, { class: 'small', 'aria-label': 'Delete ' + b.name })),
    },
  );
  return table('bucket-table', cols, buckets, 'No buckets yet. Create one to start.');
}

function lockSummary(c) {
  if (!c || typeof c !== 'object' || !c.mode) return '';
  return ` · ${c.mode.toLowerCase()} ${c.days ? c.days + ' d' : c.years + ' y'}`;
}

// lockFields: object lock's default retention (mode and a period).
export function lockFields(prefix) {
  const mode = select(prefix + '-lock-mode', [['', 'No default retention'], ['GOVERNANCE', 'Governance'], ['COMPLIANCE', 'Compliance']], '');
  const period = input(prefix + '-lock-period', { type: 'number', min: 1, value: '' });
  const unit = select(prefix + '-lock-unit', [['days', 'days'], ['years', 'years']], 'days');
  const wrap = h('div', { class: 'row' },
    field('Default retention mode', mode),
    field('Retention period', period), field('Unit', unit));
  wrap.value = () => {
    if (!mode.value) return null;
    const n = parseInt(period.value, 10);
    if (!(n > 0)) throw new Error('A default retention needs a period of at least 1 ' + unit.value + '.');
    return { mode: mode.value, [unit.value]: n };
  };
  return wrap;
}

async function createBucket() {
  const name = input('bucket-name', { required: true, minlength: 3, maxlength: 63, autocapitalize: 'none', spellcheck: 'false', pattern: '[a-z0-9][a-z0-9.\\-]{1,61}[a-z0-9]' });
  const versioning = h('input', { type: 'checkbox', 'data-testid': 'bucket-versioning' });
  const lock = h('input', { type: 'checkbox', 'data-testid': 'bucket-object-lock' });
  const lockOpts = lockFields('bucket');
  lockOpts.hidden = true;
  lock.addEventListener('change', () => {
    lockOpts.hidden = !lock.checked;
    // Object lock needs versioning, and S3 turns it on with the lock.
    if (lock.checked) versioning.checked = true;
    versioning.disabled = lock.checked;
  });
  const encFields = encryptionFields('bucket-encryption', await kmsKeys(''), null, 'None', 'the tenant\'s default applies, if it has one');
  const created = await formDialog('Create bucket', 'bucket-create-dialog', [
    field('Bucket name', name, '3 to 63 characters: lower-case letters, digits, dots and hyphens.'),
    field('Enable versioning', versioning),
    field('Enable object lock (cannot be turned off later)', lock),
    lockOpts,
    h('fieldset', null, h('legend', null, 'Encryption at rest'), encFields),
  ], async () => {
    const body = { name: name.value.trim(), versioning: versioning.checked };
    if (lock.checked) body.object_lock = lockOpts.value() || true;
    const e = encFields.value();
    if (e) body.encryption = e;
    try {
      return await post('/buckets', body);
    } catch (ex) {
      // A setting refused after the bucket was made, and the bucket could
      // not be deleted again: it exists without it. Say so outside the
      // dialog, which would otherwise offer to create it again.
      if (ex.detail && ex.detail.bucket_created) return { name: body.name, partial: ex, tab: e ? 'encryption' : (lock.checked ? 'object-lock' : 'versioning') };
      throw ex;
    }
  }, 'Create');
  if (!created) return;
  const bucket = created.name || name.value.trim();
  if (created.partial) {
    await modal('Bucket created without all its settings', 'bucket-create-partial', (close) => h('div', null,
      h('p', { class: 'error', role: 'alert', 'data-testid': 'bucket-create-partial-message' }, created.partial.message),
      h('div', { class: 'actions' },
        button('Close', 'bucket-create-partial-close', () => close()),
        button('Open its settings', 'bucket-create-partial-settings', () => { close(); go('/buckets/' + enc(bucket) + '/settings', { tab: created.tab }); }, { class: 'primary' }))));
    return;
  }
  toast(`Bucket ${bucket} created`);
  go('/buckets/' + enc(bucket));
}
