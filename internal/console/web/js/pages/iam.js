// IAM: a tenant's managed policies (written in an editor that checks
// the document as one types, by the parser the evaluation uses), roles,
// groups, and "why may this user do that?", answered by the evaluation
// itself with every statement that applied and where it came from.
import { h, button, input, select, field, table, errorBox, busy, replace, clear } from '../dom.js';
import { get, post, put, enc } from '../api.js';
import { pageHeader, loading, when, toast } from '../ui.js';
import { myTenant } from '../session.js';

const base = () => `/tenants/${enc(myTenant())}/iam`;

const STARTER = `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Sid": "ReadReports",
      "Effect": "Allow",
      "Action": ["s3:GetObject", "s3:ListBucket"],
      "Resource": ["arn:aws:s3:::BUCKET", "arn:aws:s3:::BUCKET/*"]
    }
  ]
}`;

// policyEditor is a textarea whose document is validated as one types
// (after a pause) and on demand; problems are listed beside it with
// their line and column, and a click on one moves the cursor there.
export function policyEditor(kind, testid, text, label) {
  const area = h('textarea', { rows: 16, spellcheck: 'false', class: 'mono', 'data-testid': testid, 'aria-describedby': testid + '-problems' });
  area.value = text;
  const problems = h('ul', { class: 'problems', id: testid + '-problems', 'data-testid': testid + '-problems', 'aria-live': 'polite' });
  let seq = 0;
  let timer;
  const at = (line, column) => {
    const lines = area.value.split('\n');
    let off = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
    off += Math.max(0, column - 1);
    area.focus();
    area.setSelectionRange(off, off + 1);
  };
  const check = async () => {
    const mine = ++seq;
    let v;
    try {
      v = await post(`${base()}/validate`, { kind, document: area.value });
    } catch (ex) {
      v = { valid: false, problems: [{ severity: 'error', line: 0, column: 0, message: ex.message }] };
    }
    if (mine !== seq) return v; // a later check is under way
    clear(problems);
    if (!v.problems.length) {
      problems.appendChild(h('li', { class: 'ok', 'data-testid': testid + '-valid' }, 'The document is valid.'));
    }
    for (const p of v.problems) {
      const where = p.line ? `Line ${p.line}, column ${p.column}: ` : '';
      problems.appendChild(h('li', { class: p.severity, 'data-testid': testid + '-problem' },
        p.line ? h('button', { type: 'button', class: 'link', onclick: () => at(p.line, p.column) }, where) : '',
        h('span', { class: 'badge ' + (p.severity === 'error' ? 'bad' : 'warn') }, p.severity), ' ', p.message));
    }
    area.setAttribute('aria-invalid', v.valid ? 'false' : 'true');
    return v;
  };
  area.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(check, 400);
  });
  const el = h('div', { class: 'policy-editor' }, field(label, area), h('div', null, h('h3', null, 'Problems'), problems));
  return { el, area, check };
}

export async function policiesPage() {
  const body = h('div', { 'data-testid': 'iam-policies-body' }, loading());
  const err = errorBox('iam-policy-error');
  const name = input('iam-policy-name', { required: true, placeholder: 'read-reports' });
  const ed = policyEditor('identity', 'iam-policy-editor', STARTER, 'Policy document (JSON)');
  const save = button('Save policy', 'iam-policy-save', async () => {
    err.show(null);
    await busy(save, async () => {
      const v = await ed.check();
      if (!v.valid) return;
      try {
        const p = await post(`${base()}/policies`, { name: name.value, document: ed.area.value });
        toast(`Policy ${p.name} saved`);
        await paint();
      } catch (ex) { err.show(ex); }
    });
  }, { class: 'primary' });

  const attachPolicy = select('iam-attach-policy', [], '');
  const attachKind = select('iam-attach-kind', [['users', 'user'], ['groups', 'group'], ['roles', 'role']], 'users');
  const attachTo = input('iam-attach-to', { placeholder: 'alice' });
  const attachErr = errorBox('iam-attach-error');
  const attach = button('Attach', 'iam-attach-submit', async () => {
    attachErr.show(null);
    await busy(attach, async () => {
      try {
        await put(`${base()}/${attachKind.value}/${enc(attachTo.value)}/attached/${enc(attachPolicy.value)}`);
        toast(`${attachPolicy.value} attached to ${attachTo.value}`);
        await paint();
      } catch (ex) { attachErr.show(ex); }
    });
  });

  const paint = async () => {
    const ps = await get(`${base()}/policies`);
    replace(attachPolicy, ...ps.map((p) => h('option', { value: p.name }, p.name)));
    replace(body, table('iam-policies', [
      { label: 'Policy', class: 'name', cell: (p) => p.name },
      { label: 'ARN', cell: (p) => h('code', { class: 'mono' }, p.arn) },
      { label: 'Version in force', cell: (p) => p.default_version },
      { label: 'Attachments', cell: (p) => String(p.attachment_count) },
      { label: 'Updated', cell: (p) => when(p.updated) },
    ], ps, 'No managed policy yet.'));
  };
  await paint();
  ed.check();
  return h('div', null, pageHeader('Policies'), body,
    h('h2', null, 'New policy'),
    h('p', { class: 'hint' }, 'An identity-based policy in the AWS policy language, checked as you type by the parser that decides requests.'),
    field('Name', name), ed.el, err,
    h('div', { class: 'actions' }, save),
    h('h2', null, 'Attach a policy'),
    h('div', { class: 'inline-form' }, field('Policy', attachPolicy), field('To a', attachKind), field('Named', attachTo), attach),
    attachErr);
}

export async function rolesPage() {
  const body = h('div', { 'data-testid': 'iam-roles-body' }, loading());
  const err = errorBox('iam-role-error');
  const name = input('iam-role-name', { placeholder: 'auditor' });
  const trust = policyEditor('trust', 'iam-trust-editor', `{
  "Version": "2012-10-17",
  "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::${myTenant()}:user/USER"}, "Action": "sts:AssumeRole"}
  ]
}`, 'Trust policy: who may assume the role');
  const create = button('Create role', 'iam-role-create', async () => {
    err.show(null);
    await busy(create, async () => {
      const v = await trust.check();
      if (!v.valid) return;
      try {
        await post(`${base()}/roles`, { name: name.value, trust_policy: trust.area.value });
        toast(`Role ${name.value} created`);
        await paint();
      } catch (ex) { err.show(ex); }
    });
  }, { class: 'primary' });
  const paint = async () => {
    const rs = await get(`${base()}/roles`);
    const detailed = await Promise.all(rs.map((r) => get(`${base()}/roles/${enc(r.name)}`)));
    replace(body, table('iam-roles', [
      { label: 'Role', class: 'name', cell: (r) => r.name },
      { label: 'ARN', cell: (r) => h('code', { class: 'mono' }, r.arn) },
      { label: 'Policies', cell: (r) => [...(r.policies.inline || []), ...(r.policies.attached || []).map((p) => p.name)].join(', ') || '–' },
      { label: 'Max session', cell: (r) => `${r.max_session_duration / 3600} h` },
      { label: 'Trust policy', cell: (r) => h('details', null, h('summary', null, 'Show'), h('pre', { class: 'mono' }, r.trust_policy)) },
    ], detailed, 'No role yet.'));
  };
  await paint();
  trust.check();
  return h('div', null, pageHeader('Roles'), body,
    h('h2', null, 'New role'),
    field('Name', name), trust.el, err,
    h('div', { class: 'actions' }, create));
}

export async function groupsPage() {
  const body = h('div', { 'data-testid': 'iam-groups-body' }, loading());
  const err = errorBox('iam-group-error');
  const name = input('iam-group-name', { placeholder: 'analysts' });
  const create = button('Create group', 'iam-group-create', async () => {
    err.show(null);
    await busy(create, async () => {
      try {
        await post(`${base()}/groups`, { name: name.value });
        toast(`Group ${name.value} created`);
        await paint();
      } catch (ex) { err.show(ex); }
    });
  }, { class: 'primary' });
  const memberGroup = select('iam-member-group', [], '');
  const member = input('iam-member-user', { placeholder: 'alice' });
  const add = button('Add member', 'iam-member-add', async () => {
    err.show(null);
    await busy(add, async () => {
      try {
        await put(`${base()}/groups/${enc(memberGroup.value)}/members/${enc(member.value)}`);
        await paint();
      } catch (ex) { err.show(ex); }
    });
  });
  const paint = async () => {
    const gs = await get(`${base()}/groups`);
    const detailed = await Promise.all(gs.map((g) => get(`${base()}/groups/${enc(g.name)}`)));
    replace(memberGroup, ...gs.map((g) => h('option', { value: g.name }, g.name)));
    replace(body, table('iam-groups', [
      { label: 'Group', class: 'name', cell: (g) => g.name },
      { label: 'Members', cell: (g) => (g.members || []).join(', ') || '–' },
      { label: 'Policies', cell: (g) => [...(g.policies.inline || []), ...(g.policies.attached || []).map((p) => p.name)].join(', ') || '–' },
      { label: 'Created', cell: (g) => when(g.created) },
    ], detailed, 'No group yet.'));
  };
  await paint();
  return h('div', null, pageHeader('Groups'), body,
    h('h2', null, 'New group'), h('div', { class: 'inline-form' }, field('Name', name), create),
    h('h2', null, 'Members'), h('div', { class: 'inline-form' }, field('Group', memberGroup), field('User', member), add), err);
}

export async function explainPage() {
  const err = errorBox('explain-error');
  const kind = select('explain-kind', [['user', 'User'], ['role', 'Role']], 'user');
  const who = input('explain-user', { placeholder: 'alice' });
  const action = input('explain-action', { value: 's3:GetObject' });
  const resource = input('explain-resource', { placeholder: 'bucket/key' });
  const context = h('textarea', { rows: 3, class: 'mono', 'data-testid': 'explain-context', placeholder: 'aws:SourceIp=10.1.2.3' });
  const out = h('div', { 'data-testid': 'explain-result', 'aria-live': 'polite' });
  const ask = button('Explain', 'explain-submit', async () => {
    err.show(null);
    await busy(ask, async () => {
      const ctx = {};
      for (const line of context.value.split('\n').map((l) => l.trim()).filter(Boolean)) {
        const i = line.indexOf('=');
        if (i <= 0) { err.show(new Error(`${line}: want KEY=VALUE`)); return; }
        (ctx[line.slice(0, i)] ||= []).push(line.slice(i + 1));
      }
      try {
        const x = await post(`${base()}/explain`, { [kind.value]: who.value, action: action.value, resource: resource.value, context: ctx });
        const cls = x.allowed ? 'ok' : 'bad';
        replace(out,
          h('p', null, h('code', { class: 'mono' }, x.principal), ` ${x.action} on `, h('code', { class: 'mono' }, x.resource), ': ',
            h('span', { class: 'badge ' + cls, 'data-testid': 'explain-decision' }, x.decision)),
          x.statements.length ? h('ol', { class: 'statements', 'data-testid': 'explain-statements' }, x.statements.map((s) => h('li', { 'data-testid': 'explain-statement' },
            h('span', { class: 'badge ' + (s.effect === 'Allow' ? 'ok' : 'bad') }, s.effect), ' ',
            s.sid ? h('strong', null, s.sid + ' ') : '', s.from.label, s.start && s.start.line ? `, line ${s.start.line}` : '',
            s.text ? h('pre', { class: 'mono' }, s.text) : '')))
            : h('p', { class: 'empty', 'data-testid': 'explain-none' }, 'No statement applies: nothing allows it (an implicit deny).'));
      } catch (ex) { err.show(ex); }
    });
  }, { class: 'primary' });
  return h('div', null, pageHeader('Why?'),
    h('p', { class: 'hint' }, 'Asks the evaluation that decides every request whether a user or role may do something now, and shows each statement that applied.'),
    h('div', { class: 'inline-form' }, field('Who', kind), field('Name', who), field('Action', action), field('Resource', resource)),
    field('Condition keys (KEY=VALUE, one a line)', context), err,
    h('div', { class: 'actions' }, ask), out);
}
