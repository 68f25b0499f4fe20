package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.CloudDirector = (*Store)(nil)

func cdKind(user string) string {
	if user == "" {
		return "tenant"
	}
	return "user"
}

func (s *Store) SetCloudDirectorIDs(ctx context.Context, tenant, user string, ids []string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		var one int
		var err error
		if user == "" {
			err = s.row(ctx, tx, s.q(`SELECT 1 FROM tenants WHERE name = ?`), tenant).Scan(&one)
		} else {
			err = s.row(ctx, tx, s.q(`SELECT 1 FROM users WHERE tenant = ? AND name = ?`), tenant, user).Scan(&one)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows) && user == "":
			return catalog.ErrNoSuchTenant
		case errors.Is(err, sql.ErrNoRows):
			return catalog.ErrNoSuchUser
		case err != nil:
			return err
		}
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM cloud_director_ids WHERE kind = ? AND tenant = ? AND user_name = ?`), cdKind(user), tenant, user); err != nil {
			return err
		}
		for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
			err := s.insertOnce(ctx, tx, catalog.ErrCloudDirectorIDTaken,
				`INSERT INTO cloud_director_ids (kind, cd_id, tenant, user_name) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				cdKind(user), id, tenant, user)
			if err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("set Cloud Director ids", err)
}

func (s *Store) CloudDirectorIDs(ctx context.Context, tenant, user string) ([]string, error) {
	ids, err := queryAll(ctx, s, "list Cloud Director ids", func(sc interface{ Scan(...any) error }) (string, error) {
		var id string
		return id, sc.Scan(&id)
	}, `SELECT cd_id FROM cloud_director_ids WHERE kind = ? AND tenant = ? AND user_name = ? ORDER BY cd_id`, cdKind(user), tenant, user)
	if ids == nil {
		ids = []string{}
	}
	slices.Sort(ids) // the engines' collations differ; byte order is the contract
	return ids, err
}

func (s *Store) FindCloudDirectorID(ctx context.Context, user bool, id string) (string, string, error) {
	kind := "tenant"
	if user {
		kind = "user"
	}
	var tenant, name string
	err := s.row(ctx, nil, s.q(`SELECT tenant, user_name FROM cloud_director_ids WHERE kind = ? AND cd_id = ?`), kind, id).Scan(&tenant, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", catalog.ErrNoSuchCloudDirectorID
	}
	return tenant, name, wrap("find Cloud Director id", err)
}
