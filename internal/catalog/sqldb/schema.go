package sqldb

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate brings the schema up to date inside tx. Drivers call it once at
// open, serialised as their engine allows (PostgreSQL takes an advisory
// lock, so that nodes starting together migrate once).
//
// A migration is SQL common to the dialects, with {{bytes}} and
// {{serial}} for their types; a line that starts with {{postgres}} or
// {{sqlite}} runs only on that engine (one statement to a line there).
func Migrate(ctx context.Context, tx *sql.Tx, d Dialect) error {
	return migrate(ctx, tx, d, "")
}

// migrate applies the migrations up to and including last ("" = all):
// tests build a catalog of an older schema with it.
func migrate(ctx context.Context, tx *sql.Tx, d Dialect, last string) error {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY)`); err != nil {
		return fmt.Errorf("sqldb: create schema_migrations: %w", err)
	}
	entries, err := migrations.ReadDir("migrations")
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		version := strings.TrimSuffix(e.Name(), ".sql")
		if last != "" && version > last {
			break
		}
		var n int
		q := `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`
		if d.Numbered {
			q = strings.Replace(q, "?", "$1", 1)
		}
		if err := tx.QueryRowContext(ctx, q, version).Scan(&n); err != nil {
			return fmt.Errorf("sqldb: read schema_migrations: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			return err
		}
		only := func(name string) string { // a line for one engine: a comment elsewhere
			if d.Name == name {
				return ""
			}
			return "-- "
		}
		text := stripComments(strings.NewReplacer("{{bytes}}", d.Bytes, "{{serial}}", d.Serial,
			"{{postgres}}", only("postgres"), "{{sqlite}}", only("sqlite")).Replace(string(body)))
		for _, stmt := range strings.Split(text, ";") {
			if strings.TrimSpace(stmt) == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("sqldb: migration %s: %w", version, err)
			}
		}
		ins := `INSERT INTO schema_migrations (version) VALUES (?)`
		if d.Numbered {
			ins = strings.Replace(ins, "?", "$1", 1)
		}
		if _, err := tx.ExecContext(ctx, ins, version); err != nil {
			return fmt.Errorf("sqldb: record migration %s: %w", version, err)
		}
	}
	return nil
}

func stripComments(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
