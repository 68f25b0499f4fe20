package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ostiumio/ostium/internal/catalog"
)

var _ catalog.Publications = (*Store)(nil)

const publicationCols = `tenant, name, bucket, prefix, description, auth_user, password_hash, library_id, created, version, digest, indexed`

func scanPublication(sc interface{ Scan(...any) error }) (catalog.Publication, error) {
	var p catalog.Publication
	var prefix []byte
	var created, indexed int64
	err := sc.Scan(&p.Tenant, &p.Name, &p.Bucket, &prefix, &p.Description, &p.User, &p.PasswordHash, &p.LibraryID,
		&created, &p.Version, &p.Digest, &indexed)
	p.Prefix, p.Created = string(prefix), fromNanos(created)
	if indexed != 0 {
		p.Indexed = fromNanos(indexed)
	}
	return p, err
}

// A publication is no identity the nodes cache: its writes are plain
// ones and leave the identity generation alone.
func (s *Store) PutPublication(ctx context.Context, p catalog.Publication) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`UPDATE publications SET bucket = ?, prefix = ?, description = ?, auth_user = ?, password_hash = ?, digest = ''
			WHERE tenant = ? AND name = ?`), p.Bucket, []byte(p.Prefix), p.Description, p.User, p.PasswordHash, p.Tenant, p.Name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		_, err = s.exec(ctx, tx, s.q(`INSERT INTO publications (`+publicationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, '', 0)`),
			p.Tenant, p.Name, p.Bucket, []byte(p.Prefix), p.Description, p.User, p.PasswordHash, p.LibraryID, nanos(p.Created))
		return err
	})
	return wrap("put publication", err)
}

func (s *Store) GetPublication(ctx context.Context, tenant, name string) (catalog.Publication, error) {
	p, err := scanPublication(s.row(ctx, nil, s.q(`SELECT `+publicationCols+` FROM publications WHERE tenant = ? AND name = ?`), tenant, name))
	if errors.Is(err, sql.ErrNoRows) {
		return p, catalog.ErrNoSuchPublication
	}
	return p, wrap("get publication", err)
}

func (s *Store) ListPublications(ctx context.Context, tenant string) ([]catalog.Publication, error) {
	if tenant == "" {
		return queryAll(ctx, s, "list publications", scanPublication, `SELECT `+publicationCols+` FROM publications ORDER BY tenant, name`)
	}
	return queryAll(ctx, s, "list publications", scanPublication, `SELECT `+publicationCols+` FROM publications WHERE tenant = ? ORDER BY name`, tenant)
}

func (s *Store) DeletePublication(ctx context.Context, tenant, name string) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		res, err := s.exec(ctx, tx, s.q(`DELETE FROM publications WHERE tenant = ? AND name = ?`), tenant, name)
		if err := affected(res, err, catalog.ErrNoSuchPublication); err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, s.q(`DELETE FROM publication_docs WHERE tenant = ? AND name = ?`), tenant, name)
		return err
	})
	return wrap("delete publication", err)
}

func (s *Store) SetPublicationIndex(ctx context.Context, tenant, name, prevDigest string, version int64, digest string, indexed time.Time, docs []catalog.PublicationDoc) error {
	err := s.w.Write(ctx, func(tx *sql.Tx) error {
		var cur string
		err := s.row(ctx, tx, s.q(`SELECT digest FROM publications WHERE tenant = ? AND name = ?`), tenant, name).Scan(&cur)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return catalog.ErrNoSuchPublication
		case err != nil:
			return err
		case cur != prevDigest:
			return catalog.ErrPreconditionFailed
		}
		if _, err := s.exec(ctx, tx, s.q(`UPDATE publications SET version = ?, digest = ?, indexed = ? WHERE tenant = ? AND name = ?`),
			version, digest, nanos(indexed), tenant, name); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, s.q(`DELETE FROM publication_docs WHERE tenant = ? AND name = ?`), tenant, name); err != nil {
			return err
		}
		for _, d := range docs {
			if _, err := s.exec(ctx, tx, s.q(`INSERT INTO publication_docs (tenant, name, path, body) VALUES (?, ?, ?, ?)`),
				tenant, name, []byte(d.Path), d.Body); err != nil {
				return err
			}
		}
		return nil
	})
	return wrap("set publication index", err)
}

func (s *Store) PublicationDoc(ctx context.Context, tenant, name, path string) ([]byte, error) {
	var body []byte
	err := s.row(ctx, nil, s.q(`SELECT body FROM publication_docs WHERE tenant = ? AND name = ? AND path = ?`), tenant, name, []byte(path)).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, catalog.ErrNoSuchObject
	}
	return body, wrap("publication doc", err)
}
