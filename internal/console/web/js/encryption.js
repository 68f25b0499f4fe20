// Encryption at rest: the choice of a default encryption (a bucket's, at
// creation and in its settings), and how an encryption reads.
import { h, field, input, select } from './dom.js';
import { get, enc } from './api.js';
import { myTenant, isProvider } from './session.js';

// Short labels: a phone's select shows about 30 characters.
export const ALGORITHMS = [
  ['AES256', 'SSE-S3 (AES256)'],
  ['aws:kms', 'SSE-KMS'],
];

// kmsKeys lists the usable KMS keys of the tenant that owns bucket (of
// the signed-in user's tenant when bucket is empty), or answers null when
// they cannot be listed (an ordinary user, the provider's own buckets):
// the key is then typed.
export async function kmsKeys(bucket) {
  let tenant = myTenant();
  try {
    if (isProvider() && bucket) tenant = (await get('/buckets/' + enc(bucket))).tenant || '';
    if (!tenant) return null;
    const keys = (await get(`/tenants/${enc(tenant)}/kms-keys`)) || [];
    return keys.filter((k) => k.state === 'enabled');
  } catch {
    return null;
  }
}

// keyLabel names a key as people know it: its alias, then its id.
function keyLabel(k) {
  return k.alias ? `alias/${k.alias}` : k.id;
}

// encryptionFields: the algorithm, SSE-KMS's key (a list of the tenant's
// keys, or a text field when they cannot be listed) and BucketKeyEnabled.
// base prefixes the selectors (base-algorithm, base-kms-key,
// base-bucket-key). cur is the rule shown first (null: none); noneLabel
// names the choice of no encryption and noneHint what it means. value()
// is the rule to send, or null for none.
export function encryptionFields(base, keys, cur, noneLabel = 'None', noneHint = 'new objects are stored unencrypted') {
  const algo = select(base + '-algorithm', [['', noneLabel], ...ALGORITHMS], (cur && cur.algorithm) || '');
  const curKey = (cur && cur.kms_key_id) || '';
  let key;
  if (keys) {
    const opts = [['', "The tenant's own key (aws/s3)"], ...keys.filter((k) => !k.default).map((k) => [k.id, keyLabel(k)])];
    // A key set by other means (an alias, an ARN, a key since disabled)
    // stays chosen as it was set.
    if (curKey && !opts.some(([v]) => v === curKey)) opts.push([curKey, curKey]);
    key = select(base + '-kms-key', opts, curKey);
  } else {
    key = input(base + '-kms-key', { value: curKey, autocapitalize: 'none', spellcheck: 'false', placeholder: 'empty: the tenant\'s own key' });
  }
  const keyField = field('KMS key', key, keys ? 'New objects\' data keys are wrapped by this key.'
    : 'A key id, alias/NAME or ARN of one of the tenant\'s keys; empty: the tenant\'s own key.');
  const bk = h('input', { type: 'checkbox', 'data-testid': base + '-bucket-key', checked: !!(cur && cur.bucket_key_enabled) });
  const bkField = field('Bucket key (BucketKeyEnabled)', bk, 'Accepted and reported as S3 does; a data key is made for each object either way.');
  const sync = () => {
    keyField.hidden = algo.value !== 'aws:kms';
    bkField.hidden = algo.value === '';
  };
  algo.addEventListener('change', sync);
  sync();
  const wrap = h('div', { class: 'encryption-fields' },
    field('Default encryption', algo, `SSE-S3: keys the service manages. SSE-KMS: a KMS key of the tenant. ${noneLabel}: ${noneHint}.`),
    keyField, bkField);
  wrap.value = () => {
    if (!algo.value) return null;
    const r = { algorithm: algo.value, bucket_key_enabled: bk.checked };
    if (algo.value === 'aws:kms' && key.value.trim()) r.kms_key_id = key.value.trim();
    return r;
  };
  return wrap;
}

// ruleText reads a default encryption rule (null: none).
export function ruleText(r) {
  if (!r || !r.algorithm) return 'None';
  let s = r.algorithm === 'aws:kms' ? 'SSE-KMS, ' + (r.kms_key_id ? 'key ' + r.kms_key_id : "the tenant's own key") : 'SSE-S3 (AES256)';
  if (r.bucket_key_enabled) s += ', bucket key';
  return s;
}

// objectText reads an object's encryption (null: none).
export function objectText(e) {
  if (!e || !e.kind) return 'None';
  if (e.kind === 'SSE-C') return 'SSE-C (a key the client provides)';
  let s = e.kind === 'aws:kms' ? 'SSE-KMS, key ' + (e.kms_key_id || '–') : 'SSE-S3 (AES256)';
  if (e.bucket_key_enabled) s += ', bucket key';
  return s;
}
