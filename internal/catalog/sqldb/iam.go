package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var (
	_ catalog.IAM              = (*Store)(nil)
	_ catalog.IdentityPolicies = (*Store)(nil)
	_ catalog.PrincipalTags    = (*Store)(nil)
)

// A principal's row is locked for update by every change that counts
// against its limits (groups, attachments, tags), so that two changes at
// once on PostgreSQL cannot both pass a count; an entity a change refers
// to (a group joined, a policy attached) is locked for share, so that
// deleting it waits for the change or sees it.

// principalKey is how the IAM tables name a principal: a user by its
// name (user names keep their case, as the catalog's), a group or role
// by its lower-case name.
func principalKey(kind, name string) string {
	if kind == catalog.PrincipalUser {
		return name
	}
	return strings.ToLower(name)
}

// lockPrincipal checks that a principal exists, locking its row with
// lock ("{{forupdate}}" or "{{forshare}}").
func (s *Store) lockPrincipal(ctx context.Context, tx *sql.Tx, tenant, kind, name, lock string) error {
	var query string
	missing := catalog.ErrNoSuchEntity
	switch kind {
	case catalog.PrincipalUser:
		query, missing = `SELECT 1 FROM users WHERE tenant = ? AND name = ? `, catalog.ErrNoSuchUser
	case catalog.PrincipalGroup:
		query = `SELECT 1 FROM iam_groups WHERE tenant = ? AND lname = ? `
	case catalog.PrincipalRole:
		query = `SELECT 1 FROM iam_roles WHERE tenant = ? AND lname = ? `
	default:
		return fmt.Errorf("sqldb: unknown principal kind %q", kind)
	}
	var one int
	err := s.row(ctx, tx, s.q(query+lock), tenant, principalKey(kind, name)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return missing
	}
	return err
}

func (s *Store) tenantExists(ctx context.Context, tx *sql.Tx, tenant string) error {
	var one int
	err := s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ? {{forshare}}`), tenant).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return catalog.ErrNoSuchTenant
	}
	return err
}

// countRows runs a SELECT COUNT(*).
func (s *Store) countRows(ctx context.Context, tx *sql.Tx, query string, args ...any) (int, error) {
	var n int
	err := s.row(ctx, tx, s.q(query), args...).Scan(&n)
	return n, err
}

// inUse returns ErrDeleteConflict if any of the queries counts a row.
func (s *Store) inUse(ctx context.Context, tx *sql.Tx, queries []string, args ...any) error {
	for _, q := range queries {
		n, err := s.countRows(ctx, tx, q, args...)
		if err != nil {
			return err
		}
		if n > 0 {
			return catalog.ErrDeleteConflict
		}
	}
	return nil
}

func (s *Store) SetUserPath(ctx context.Context, tenant, user, path string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE users SET iam_path = ? WHERE tenant = ? AND name = ?`), path, tenant, user)
		return affected(res, err, catalog.ErrNoSuchUser)
	})
	return wrap("set user path", err)
}

func (s *Store) UserPath(ctx context.Context, tenant, user string) (string, error) {
	var p string
	err := s.row(ctx, nil, s.q(`SELECT iam_path FROM users WHERE tenant = ? AND name = ?`), tenant, user).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", catalog.ErrNoSuchUser
	}
	return p, wrap("user path", err)
}

func (s *Store) UserPaths(ctx context.Context, tenant string) (map[string]string, error) {
	type np struct{ name, path string }
	rows, err := queryAll(ctx, s, "user paths", func(sc interface{ Scan(...any) error }) (np, error) {
		var r np
		return r, sc.Scan(&r.name, &r.path)
	}, `SELECT name, iam_path FROM users WHERE tenant = ?`, tenant)
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.name] = r.path
	}
	return out, err
}

func (s *Store) RenameUser(ctx context.Context, tenant, user, newName string) error {
	if user == newName {
		_, err := s.GetUser(ctx, tenant, user)
		return err
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalUser, user, "{{forupdate}}"); err != nil {
			return err
		}
		var one int
		err := s.row(ctx, tx, s.q(`SELECT 1 FROM users WHERE tenant = ? AND name = ?`), tenant, newName).Scan(&one)
		if err == nil {
			return catalog.ErrUserExists
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Console sessions and remembered devices name the old user:
		// they end, and the user signs in again under its new name.
		for _, q := range []string{
			`UPDATE users SET name = ? WHERE tenant = ? AND name = ?`,
			`UPDATE access_keys SET user_name = ? WHERE tenant = ? AND user_name = ?`,
			`UPDATE cloud_director_ids SET user_name = ? WHERE tenant = ? AND user_name = ?`,
			`UPDATE iam_group_members SET user_name = ? WHERE tenant = ? AND user_name = ?`,
			`UPDATE iam_inline_policies SET principal = ? WHERE tenant = ? AND kind = 'user' AND principal = ?`,
			`UPDATE iam_attachments SET principal = ? WHERE tenant = ? AND kind = 'user' AND principal = ?`,
			`UPDATE iam_tags SET principal = ? WHERE tenant = ? AND kind = 'user' AND principal = ?`,
		} {
			if _, err := s.exec(ctx, tx, s.q(q), newName, tenant, user); err != nil {
				return err
			}
		}
		_, err = s.exec(ctx, tx, s.q(`UPDATE access_keys SET display_name = ? WHERE tenant = ? AND user_name = ?`), newName, tenant, newName)
		return err
	})
	return wrap("rename user", err)
}

func (s *Store) DeleteIAMUser(ctx context.Context, tenant, user string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalUser, user, "{{forupdate}}"); err != nil {
			return err
		}
		if err := s.inUse(ctx, tx, []string{
			`SELECT COUNT(*) FROM access_keys WHERE tenant = ? AND user_name = ?`,
			`SELECT COUNT(*) FROM iam_inline_policies WHERE tenant = ? AND kind = 'user' AND principal = ?`,
			`SELECT COUNT(*) FROM iam_attachments WHERE tenant = ? AND kind = 'user' AND principal = ?`,
			`SELECT COUNT(*) FROM iam_group_members WHERE tenant = ? AND user_name = ?`,
		}, tenant, user); err != nil {
			return err
		}
		return s.deleteUser(ctx, tx, tenant, user)
	})
	return wrap("delete IAM user", err)
}

// deleteIAMOfUser removes what the IAM tables hold of a user being
// deleted.
func (s *Store) deleteIAMOfUser(ctx context.Context, tx *sql.Tx, tenant, user string) error {
	for _, q := range []string{
		`DELETE FROM iam_group_members WHERE tenant = ? AND user_name = ?`,
		`DELETE FROM iam_inline_policies WHERE tenant = ? AND kind = 'user' AND principal = ?`,
		`DELETE FROM iam_attachments WHERE tenant = ? AND kind = 'user' AND principal = ?`,
		`DELETE FROM iam_tags WHERE tenant = ? AND kind = 'user' AND principal = ?`,
	} {
		if _, err := s.exec(ctx, tx, s.q(q), tenant, user); err != nil {
			return err
		}
	}
	return nil
}

// iamTables are the tables DeleteTenant empties of the tenant's rows.
var iamTables = []string{"iam_groups", "iam_group_members", "iam_policies", "iam_policy_versions", "iam_attachments",
	"iam_inline_policies", "iam_roles", "iam_oidc_providers", "iam_tags"}

// Groups.

func (s *Store) CreateGroup(ctx context.Context, g catalog.Group) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.tenantExists(ctx, tx, g.Tenant); err != nil {
			return err
		}
		return s.insertOnce(ctx, tx, catalog.ErrEntityExists,
			`INSERT INTO iam_groups (tenant, lname, name, path, id, created) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			g.Tenant, strings.ToLower(g.Name), g.Name, g.Path, g.ID, nanos(g.Created))
	})
	return wrap("create group", err)
}

const groupCols = `tenant, name, path, id, created`

func scanGroup(sc interface{ Scan(...any) error }) (catalog.Group, error) {
	var g catalog.Group
	var created int64
	err := sc.Scan(&g.Tenant, &g.Name, &g.Path, &g.ID, &created)
	g.Created = fromNanos(created)
	return g, err
}

func (s *Store) GetGroup(ctx context.Context, tenant, name string) (catalog.Group, error) {
	g, err := scanGroup(s.row(ctx, nil, s.q(`SELECT `+groupCols+` FROM iam_groups WHERE tenant = ? AND lname = ?`), tenant, strings.ToLower(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return g, catalog.ErrNoSuchEntity
	}
	return g, wrap("get group", err)
}

func byLowerName[T any](list []T, name func(T) string) []T {
	slices.SortFunc(list, func(a, b T) int { return strings.Compare(strings.ToLower(name(a)), strings.ToLower(name(b))) })
	return list
}

func (s *Store) ListGroups(ctx context.Context, tenant string) ([]catalog.Group, error) {
	gs, err := queryAll(ctx, s, "list groups", scanGroup, `SELECT `+groupCols+` FROM iam_groups WHERE tenant = ?`, tenant)
	return byLowerName(gs, func(g catalog.Group) string { return g.Name }), err
}

func (s *Store) DeleteGroup(ctx context.Context, tenant, name string) error {
	lname := strings.ToLower(name)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalGroup, lname, "{{forupdate}}"); err != nil {
			return err
		}
		if err := s.inUse(ctx, tx, []string{
			`SELECT COUNT(*) FROM iam_group_members WHERE tenant = ? AND grp = ?`,
			`SELECT COUNT(*) FROM iam_inline_policies WHERE tenant = ? AND kind = 'group' AND principal = ?`,
			`SELECT COUNT(*) FROM iam_attachments WHERE tenant = ? AND kind = 'group' AND principal = ?`,
		}, tenant, lname); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_groups WHERE tenant = ? AND lname = ?`), tenant, lname)
		return err
	})
	return wrap("delete group", err)
}

func (s *Store) AddUserToGroup(ctx context.Context, tenant, group, user string) error {
	lname := strings.ToLower(group)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalGroup, lname, "{{forshare}}"); err != nil {
			return err
		}
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalUser, user, "{{forupdate}}"); err != nil {
			return err
		}
		n, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_group_members WHERE tenant = ? AND user_name = ? AND grp <> ?`, tenant, user, lname)
		if err != nil {
			return err
		}
		if n >= catalog.MaxGroupsPerUser {
			return catalog.ErrLimitExceeded
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO iam_group_members (tenant, grp, user_name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`), tenant, lname, user)
		return err
	})
	return wrap("add user to group", err)
}

func (s *Store) RemoveUserFromGroup(ctx context.Context, tenant, group, user string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_group_members WHERE tenant = ? AND grp = ? AND user_name = ?`), tenant, strings.ToLower(group), user)
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("remove user from group", err)
}

func scanString(sc interface{ Scan(...any) error }) (string, error) {
	var v string
	return v, sc.Scan(&v)
}

func (s *Store) GroupMembers(ctx context.Context, tenant, group string) ([]string, error) {
	if _, err := s.GetGroup(ctx, tenant, group); err != nil {
		return nil, err
	}
	users, err := queryAll(ctx, s, "list group members", scanString,
		`SELECT user_name FROM iam_group_members WHERE tenant = ? AND grp = ?`, tenant, strings.ToLower(group))
	slices.Sort(users)
	return users, err
}

func (s *Store) UserGroups(ctx context.Context, tenant, user string) ([]catalog.Group, error) {
	if _, err := s.GetUser(ctx, tenant, user); err != nil {
		return nil, err
	}
	gs, err := queryAll(ctx, s, "list groups of user", scanGroup, `SELECT `+groupCols+` FROM iam_groups g
		WHERE tenant = ? AND lname IN (SELECT grp FROM iam_group_members WHERE tenant = ? AND user_name = ?)`, tenant, tenant, user)
	return byLowerName(gs, func(g catalog.Group) string { return g.Name }), err
}

// Inline policies.

func (s *Store) PutInlinePolicy(ctx context.Context, tenant, kind, principal, name, document string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, "{{forshare}}"); err != nil {
			return err
		}
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO iam_inline_policies (tenant, kind, principal, lname, name, document) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (tenant, kind, principal, lname) DO UPDATE SET name = excluded.name, document = excluded.document`),
			tenant, kind, principalKey(kind, principal), strings.ToLower(name), name, document)
		return err
	})
	return wrap("put inline policy", err)
}

func (s *Store) GetInlinePolicy(ctx context.Context, tenant, kind, principal, name string) (string, error) {
	var doc string
	err := s.row(ctx, nil, s.q(`SELECT document FROM iam_inline_policies WHERE tenant = ? AND kind = ? AND principal = ? AND lname = ?`),
		tenant, kind, principalKey(kind, principal), strings.ToLower(name)).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.lockPrincipal(ctx, nil, tenant, kind, principal, ""); err != nil {
			return "", err
		}
		return "", catalog.ErrNoSuchEntity
	}
	return doc, wrap("get inline policy", err)
}

func (s *Store) DeleteInlinePolicy(ctx context.Context, tenant, kind, principal, name string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, ""); err != nil {
			return err
		}
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_inline_policies WHERE tenant = ? AND kind = ? AND principal = ? AND lname = ?`),
			tenant, kind, principalKey(kind, principal), strings.ToLower(name))
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("delete inline policy", err)
}

func (s *Store) ListInlinePolicies(ctx context.Context, tenant, kind, principal string) ([]string, error) {
	if err := s.lockPrincipal(ctx, nil, tenant, kind, principal, ""); err != nil {
		return nil, wrap("list inline policies", err)
	}
	names, err := queryAll(ctx, s, "list inline policies", scanString,
		`SELECT name FROM iam_inline_policies WHERE tenant = ? AND kind = ? AND principal = ?`, tenant, kind, principalKey(kind, principal))
	return byLowerName(names, func(n string) string { return n }), err
}

// Managed policies.

func versionID(n int) string { return "v" + strconv.Itoa(n) }

func versionNumber(id string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "v"))
	return n, err == nil && strings.HasPrefix(id, "v") && n > 0
}

func (s *Store) CreatePolicy(ctx context.Context, p catalog.ManagedPolicy, document string) (catalog.ManagedPolicy, error) {
	p.DefaultVersion, p.Updated, p.AttachmentCount = versionID(1), p.Created, 0
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.tenantExists(ctx, tx, p.Tenant); err != nil {
			return err
		}
		lname := strings.ToLower(p.Name)
		if err := s.insertOnce(ctx, tx, catalog.ErrEntityExists,
			`INSERT INTO iam_policies (tenant, lname, name, path, id, description, default_version, next_version, created, updated)
			VALUES (?, ?, ?, ?, ?, ?, 1, 2, ?, ?) ON CONFLICT DO NOTHING`,
			p.Tenant, lname, p.Name, p.Path, p.ID, p.Description, nanos(p.Created), nanos(p.Created)); err != nil {
			return err
		}
		// Versions of a policy deleted under this name went with it.
		_, err := s.exec(ctx, tx, s.q(`INSERT INTO iam_policy_versions (tenant, policy, version, document, created) VALUES (?, ?, 1, ?, ?)`),
			p.Tenant, lname, document, nanos(p.Created))
		return err
	})
	return p, wrap("create policy", err)
}

const policyCols = `tenant, name, path, id, description, default_version, created, updated,
	(SELECT COUNT(*) FROM iam_attachments a WHERE a.tenant = p.tenant AND a.policy = p.lname)`

func scanPolicy(sc interface{ Scan(...any) error }) (catalog.ManagedPolicy, error) {
	var p catalog.ManagedPolicy
	var created, updated int64
	var def int
	err := sc.Scan(&p.Tenant, &p.Name, &p.Path, &p.ID, &p.Description, &def, &created, &updated, &p.AttachmentCount)
	p.DefaultVersion, p.Created, p.Updated = versionID(def), fromNanos(created), fromNanos(updated)
	return p, err
}

func (s *Store) GetPolicy(ctx context.Context, tenant, name string) (catalog.ManagedPolicy, error) {
	p, err := scanPolicy(s.row(ctx, nil, s.q(`SELECT `+policyCols+` FROM iam_policies p WHERE tenant = ? AND lname = ?`), tenant, strings.ToLower(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ErrNoSuchEntity
	}
	return p, wrap("get policy", err)
}

func (s *Store) ListPolicies(ctx context.Context, tenant string) ([]catalog.ManagedPolicy, error) {
	ps, err := queryAll(ctx, s, "list policies", scanPolicy, `SELECT `+policyCols+` FROM iam_policies p WHERE tenant = ?`, tenant)
	return byLowerName(ps, func(p catalog.ManagedPolicy) string { return p.Name }), err
}

// lockPolicy checks that a policy exists, locking its row, and returns
// its default and next version numbers.
func (s *Store) lockPolicy(ctx context.Context, tx *sql.Tx, tenant, lname, lock string) (def, next int, err error) {
	err = s.row(ctx, tx, s.q(`SELECT default_version, next_version FROM iam_policies WHERE tenant = ? AND lname = ? `+lock), tenant, lname).Scan(&def, &next)
	if errors.Is(err, sql.ErrNoRows) {
		err = catalog.ErrNoSuchEntity
	}
	return def, next, err
}

func (s *Store) DeletePolicy(ctx context.Context, tenant, name string) error {
	lname := strings.ToLower(name)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if _, _, err := s.lockPolicy(ctx, tx, tenant, lname, "{{forupdate}}"); err != nil {
			return err
		}
		if err := s.inUse(ctx, tx, []string{`SELECT COUNT(*) FROM iam_attachments WHERE tenant = ? AND policy = ?`}, tenant, lname); err != nil {
			return err
		}
		n, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_policy_versions WHERE tenant = ? AND policy = ?`, tenant, lname)
		if err != nil {
			return err
		}
		if n > 1 {
			return catalog.ErrDeleteConflict
		}
		for _, q := range []string{`DELETE FROM iam_policies WHERE tenant = ? AND lname = ?`, `DELETE FROM iam_policy_versions WHERE tenant = ? AND policy = ?`} {
			if _, err := s.exec(ctx, tx, s.q(q), tenant, lname); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("delete policy", err)
}

func (s *Store) CreatePolicyVersion(ctx context.Context, tenant, policy, document string, setDefault bool) (catalog.PolicyVersion, error) {
	lname := strings.ToLower(policy)
	v := catalog.PolicyVersion{Document: document, Default: setDefault, Created: time.Now().UTC()}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		_, next, err := s.lockPolicy(ctx, tx, tenant, lname, "{{forupdate}}")
		if err != nil {
			return err
		}
		n, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_policy_versions WHERE tenant = ? AND policy = ?`, tenant, lname)
		if err != nil {
			return err
		}
		if n >= catalog.MaxPolicyVersions {
			return catalog.ErrLimitExceeded
		}
		v.ID = versionID(next)
		if _, err := s.exec(ctx, tx, s.q(`INSERT INTO iam_policy_versions (tenant, policy, version, document, created) VALUES (?, ?, ?, ?, ?)`),
			tenant, lname, next, document, nanos(v.Created)); err != nil {
			return err
		}
		set := `next_version = next_version + 1, updated = ?`
		if setDefault {
			set += `, default_version = next_version`
		}
		_, err = s.exec(ctx, tx, s.q(`UPDATE iam_policies SET `+set+` WHERE tenant = ? AND lname = ?`), nanos(v.Created), tenant, lname)
		return err
	})
	return v, wrap("create policy version", err)
}

func (s *Store) GetPolicyVersion(ctx context.Context, tenant, policy, version string) (catalog.PolicyVersion, error) {
	vs, err := s.ListPolicyVersions(ctx, tenant, policy)
	if err != nil {
		return catalog.PolicyVersion{}, err
	}
	for _, v := range vs {
		if v.ID == version {
			return v, nil
		}
	}
	return catalog.PolicyVersion{}, catalog.ErrNoSuchEntity
}

func (s *Store) ListPolicyVersions(ctx context.Context, tenant, policy string) ([]catalog.PolicyVersion, error) {
	lname := strings.ToLower(policy)
	def, _, err := s.lockPolicy(ctx, nil, tenant, lname, "")
	if err != nil {
		return nil, wrap("list policy versions", err)
	}
	vs, err := queryAll(ctx, s, "list policy versions", func(sc interface{ Scan(...any) error }) (catalog.PolicyVersion, error) {
		var v catalog.PolicyVersion
		var n int
		var created int64
		err := sc.Scan(&n, &v.Document, &created)
		v.ID, v.Default, v.Created = versionID(n), n == def, fromNanos(created)
		return v, err
	}, `SELECT version, document, created FROM iam_policy_versions WHERE tenant = ? AND policy = ? ORDER BY version DESC`, tenant, lname)
	return vs, err
}

func (s *Store) DeletePolicyVersion(ctx context.Context, tenant, policy, version string) error {
	lname := strings.ToLower(policy)
	n, ok := versionNumber(version)
	if !ok {
		return catalog.ErrNoSuchEntity
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		def, _, err := s.lockPolicy(ctx, tx, tenant, lname, "{{forupdate}}")
		if err != nil {
			return err
		}
		if n == def {
			return catalog.ErrDeleteConflict
		}
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_policy_versions WHERE tenant = ? AND policy = ? AND version = ?`), tenant, lname, n)
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("delete policy version", err)
}

func (s *Store) SetDefaultPolicyVersion(ctx context.Context, tenant, policy, version string) error {
	lname := strings.ToLower(policy)
	n, ok := versionNumber(version)
	if !ok {
		return catalog.ErrNoSuchEntity
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if _, _, err := s.lockPolicy(ctx, tx, tenant, lname, "{{forupdate}}"); err != nil {
			return err
		}
		if c, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_policy_versions WHERE tenant = ? AND policy = ? AND version = ?`, tenant, lname, n); err != nil || c == 0 {
			return errors.Join(err, catalog.ErrNoSuchEntity)
		}
		_, err := s.exec(ctx, tx, s.q(`UPDATE iam_policies SET default_version = ? WHERE tenant = ? AND lname = ?`), n, tenant, lname)
		return err
	})
	return wrap("set default policy version", err)
}

// Attachments.

func (s *Store) AttachPolicy(ctx context.Context, tenant, kind, principal, policy string) error {
	lname, key := strings.ToLower(policy), principalKey(kind, principal)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if _, _, err := s.lockPolicy(ctx, tx, tenant, lname, "{{forshare}}"); err != nil {
			return err
		}
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, "{{forupdate}}"); err != nil {
			return err
		}
		n, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_attachments WHERE tenant = ? AND kind = ? AND principal = ? AND policy <> ?`, tenant, kind, key, lname)
		if err != nil {
			return err
		}
		if n >= catalog.MaxAttachedPolicies {
			return catalog.ErrLimitExceeded
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO iam_attachments (tenant, kind, principal, policy) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`), tenant, kind, key, lname)
		return err
	})
	return wrap("attach policy", err)
}

func (s *Store) DetachPolicy(ctx context.Context, tenant, kind, principal, policy string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, ""); err != nil {
			return err
		}
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_attachments WHERE tenant = ? AND kind = ? AND principal = ? AND policy = ?`),
			tenant, kind, principalKey(kind, principal), strings.ToLower(policy))
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("detach policy", err)
}

func (s *Store) AttachedPolicies(ctx context.Context, tenant, kind, principal string) ([]catalog.ManagedPolicy, error) {
	if err := s.lockPrincipal(ctx, nil, tenant, kind, principal, ""); err != nil {
		return nil, wrap("list attached policies", err)
	}
	ps, err := queryAll(ctx, s, "list attached policies", scanPolicy, `SELECT `+policyCols+` FROM iam_policies p
		WHERE tenant = ? AND lname IN (SELECT policy FROM iam_attachments WHERE tenant = ? AND kind = ? AND principal = ?)`,
		tenant, tenant, kind, principalKey(kind, principal))
	return byLowerName(ps, func(p catalog.ManagedPolicy) string { return p.Name }), err
}

// Roles.

func (s *Store) CreateRole(ctx context.Context, r catalog.Role) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.tenantExists(ctx, tx, r.Tenant); err != nil {
			return err
		}
		return s.insertOnce(ctx, tx, catalog.ErrEntityExists,
			`INSERT INTO iam_roles (tenant, lname, name, path, id, description, trust_policy, max_session, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			r.Tenant, strings.ToLower(r.Name), r.Name, r.Path, r.ID, r.Description, r.TrustPolicy, r.MaxSessionDuration, nanos(r.Created))
	})
	return wrap("create role", err)
}

const roleCols = `tenant, name, path, id, description, trust_policy, max_session, created`

func scanRole(sc interface{ Scan(...any) error }) (catalog.Role, error) {
	var r catalog.Role
	var created int64
	err := sc.Scan(&r.Tenant, &r.Name, &r.Path, &r.ID, &r.Description, &r.TrustPolicy, &r.MaxSessionDuration, &created)
	r.Created = fromNanos(created)
	return r, err
}

func (s *Store) GetRole(ctx context.Context, tenant, name string) (catalog.Role, error) {
	r, err := scanRole(s.row(ctx, nil, s.q(`SELECT `+roleCols+` FROM iam_roles WHERE tenant = ? AND lname = ?`), tenant, strings.ToLower(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return r, catalog.ErrNoSuchEntity
	}
	return r, wrap("get role", err)
}

func (s *Store) ListRoles(ctx context.Context, tenant string) ([]catalog.Role, error) {
	rs, err := queryAll(ctx, s, "list roles", scanRole, `SELECT `+roleCols+` FROM iam_roles WHERE tenant = ?`, tenant)
	return byLowerName(rs, func(r catalog.Role) string { return r.Name }), err
}

func (s *Store) SetRoleTrustPolicy(ctx context.Context, tenant, name, document string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE iam_roles SET trust_policy = ? WHERE tenant = ? AND lname = ?`), document, tenant, strings.ToLower(name))
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("set role trust policy", err)
}

func (s *Store) DeleteRole(ctx context.Context, tenant, name string) error {
	lname := strings.ToLower(name)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, catalog.PrincipalRole, lname, "{{forupdate}}"); err != nil {
			return err
		}
		if err := s.inUse(ctx, tx, []string{
			`SELECT COUNT(*) FROM iam_inline_policies WHERE tenant = ? AND kind = 'role' AND principal = ?`,
			`SELECT COUNT(*) FROM iam_attachments WHERE tenant = ? AND kind = 'role' AND principal = ?`,
		}, tenant, lname); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM iam_roles WHERE tenant = ? AND lname = ?`, `DELETE FROM iam_tags WHERE tenant = ? AND kind = 'role' AND principal = ?`} {
			if _, err := s.exec(ctx, tx, s.q(q), tenant, lname); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("delete role", err)
}

// OpenID Connect providers.

func (s *Store) CreateOIDCProvider(ctx context.Context, p catalog.OIDCProvider) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.tenantExists(ctx, tx, p.Tenant); err != nil {
			return err
		}
		return s.insertOnce(ctx, tx, catalog.ErrEntityExists,
			`INSERT INTO iam_oidc_providers (tenant, url, client_ids, thumbprints, created) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			p.Tenant, p.URL, strings.Join(p.ClientIDs, "\n"), strings.Join(p.Thumbprints, "\n"), nanos(p.Created))
	})
	return wrap("create OIDC provider", err)
}

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, "\n")
}

func scanOIDC(sc interface{ Scan(...any) error }) (catalog.OIDCProvider, error) {
	var p catalog.OIDCProvider
	var ids, prints string
	var created int64
	err := sc.Scan(&p.Tenant, &p.URL, &ids, &prints, &created)
	p.ClientIDs, p.Thumbprints, p.Created = splitList(ids), splitList(prints), fromNanos(created)
	return p, err
}

const oidcCols = `tenant, url, client_ids, thumbprints, created`

func (s *Store) GetOIDCProvider(ctx context.Context, tenant, url string) (catalog.OIDCProvider, error) {
	p, err := scanOIDC(s.row(ctx, nil, s.q(`SELECT `+oidcCols+` FROM iam_oidc_providers WHERE tenant = ? AND url = ?`), tenant, url))
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ErrNoSuchEntity
	}
	return p, wrap("get OIDC provider", err)
}

func (s *Store) ListOIDCProviders(ctx context.Context, tenant string) ([]catalog.OIDCProvider, error) {
	ps, err := queryAll(ctx, s, "list OIDC providers", scanOIDC, `SELECT `+oidcCols+` FROM iam_oidc_providers WHERE tenant = ?`, tenant)
	slices.SortFunc(ps, func(a, b catalog.OIDCProvider) int { return strings.Compare(a.URL, b.URL) })
	return ps, err
}

func (s *Store) DeleteOIDCProvider(ctx context.Context, tenant, url string) error {
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_oidc_providers WHERE tenant = ? AND url = ?`), tenant, url)
		return affected(res, err, catalog.ErrNoSuchEntity)
	})
	return wrap("delete OIDC provider", err)
}

// Tags.

func tagKind(kind string) error {
	if kind != catalog.PrincipalUser && kind != catalog.PrincipalRole {
		return fmt.Errorf("sqldb: %s has no tags", kind)
	}
	return nil
}

func (s *Store) TagPrincipal(ctx context.Context, tenant, kind, principal string, tags []catalog.Tag) error {
	if err := tagKind(kind); err != nil {
		return err
	}
	key := principalKey(kind, principal)
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, "{{forupdate}}"); err != nil {
			return err
		}
		for _, t := range tags {
			if _, err := s.exec(ctx, tx, s.q(`INSERT INTO iam_tags (tenant, kind, principal, lkey, tkey, value) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT (tenant, kind, principal, lkey) DO UPDATE SET tkey = excluded.tkey, value = excluded.value`),
				tenant, kind, key, strings.ToLower(t.Key), t.Key, t.Value); err != nil {
				return err
			}
		}
		n, err := s.countRows(ctx, tx, `SELECT COUNT(*) FROM iam_tags WHERE tenant = ? AND kind = ? AND principal = ?`, tenant, kind, key)
		if err == nil && n > catalog.MaxTags {
			return catalog.ErrLimitExceeded // rolls the whole call back
		}
		return err
	})
	return wrap("tag", err)
}

func (s *Store) UntagPrincipal(ctx context.Context, tenant, kind, principal string, keys []string) error {
	if err := tagKind(kind); err != nil {
		return err
	}
	err := s.identityWrite(ctx, func(tx *sql.Tx) error {
		if err := s.lockPrincipal(ctx, tx, tenant, kind, principal, "{{forupdate}}"); err != nil {
			return err
		}
		for _, k := range keys {
			if _, err := s.exec(ctx, tx, s.q(`DELETE FROM iam_tags WHERE tenant = ? AND kind = ? AND principal = ? AND lkey = ?`),
				tenant, kind, principalKey(kind, principal), strings.ToLower(k)); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("untag", err)
}

func (s *Store) PrincipalTags(ctx context.Context, tenant, kind, principal string) ([]catalog.Tag, error) {
	if err := tagKind(kind); err != nil {
		return nil, err
	}
	if err := s.lockPrincipal(ctx, nil, tenant, kind, principal, ""); err != nil {
		return nil, wrap("list tags", err)
	}
	tags, err := queryAll(ctx, s, "list tags", func(sc interface{ Scan(...any) error }) (catalog.Tag, error) {
		var t catalog.Tag
		return t, sc.Scan(&t.Key, &t.Value)
	}, `SELECT tkey, value FROM iam_tags WHERE tenant = ? AND kind = ? AND principal = ?`, tenant, kind, principalKey(kind, principal))
	if tags == nil {
		tags = []catalog.Tag{}
	}
	return byLowerName(tags, func(t catalog.Tag) string { return t.Key }), err
}

// Identity-based policies, for the evaluation: no lookup fails for a
// principal that is gone, which simply has none.

// attachedDocs selects the default version's document of each managed
// policy attached to principals the condition picks (on a).
const attachedDocs = `SELECT v.document FROM iam_attachments a
	JOIN iam_policies p ON p.tenant = a.tenant AND p.lname = a.policy
	JOIN iam_policy_versions v ON v.tenant = p.tenant AND v.policy = p.lname AND v.version = p.default_version
	WHERE a.tenant = ? AND `

func (s *Store) UserPolicies(ctx context.Context, tenant, user string) ([]string, error) {
	const whose = `((kind = 'user' AND principal = ?) OR (kind = 'group' AND principal IN
		(SELECT grp FROM iam_group_members WHERE tenant = ? AND user_name = ?)))`
	inline, err := queryAll(ctx, s, "user policies", scanString,
		`SELECT document FROM iam_inline_policies WHERE tenant = ? AND `+whose+` ORDER BY kind DESC, principal, lname`, tenant, user, tenant, user)
	if err != nil {
		return nil, err
	}
	attached, err := queryAll(ctx, s, "user policies", scanString,
		attachedDocs+strings.NewReplacer("kind", "a.kind", "principal", "a.principal").Replace(whose)+` ORDER BY a.kind DESC, a.principal, a.policy`,
		tenant, user, tenant, user)
	return append(inline, attached...), err
}

func (s *Store) RolePolicies(ctx context.Context, tenant, role string) ([]string, error) {
	lname := strings.ToLower(role)
	inline, err := queryAll(ctx, s, "role policies", scanString,
		`SELECT document FROM iam_inline_policies WHERE tenant = ? AND kind = 'role' AND principal = ? ORDER BY lname`, tenant, lname)
	if err != nil {
		return nil, err
	}
	attached, err := queryAll(ctx, s, "role policies", scanString,
		attachedDocs+`a.kind = 'role' AND a.principal = ? ORDER BY a.policy`, tenant, lname)
	return append(inline, attached...), err
}

// UserTags and RoleTags give the evaluation a principal's tags by key; a
// principal that is gone has none, as it has no policies.
func (s *Store) UserTags(ctx context.Context, tenant, user string) (map[string]string, error) {
	return s.tagMap(ctx, tenant, catalog.PrincipalUser, user)
}

func (s *Store) RoleTags(ctx context.Context, tenant, role string) (map[string]string, error) {
	return s.tagMap(ctx, tenant, catalog.PrincipalRole, role)
}

func (s *Store) tagMap(ctx context.Context, tenant, kind, name string) (map[string]string, error) {
	tags, err := s.PrincipalTags(ctx, tenant, kind, name)
	if errors.Is(err, catalog.ErrNoSuchEntity) || errors.Is(err, catalog.ErrNoSuchUser) {
		return nil, nil
	}
	if err != nil || len(tags) == 0 {
		return nil, err
	}
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[t.Key] = t.Value
	}
	return m, nil
}
