// Package testenv chooses what tests run against, so that the whole suite
// can run once on SQLite and once on PostgreSQL (OSTIUM_TEST_CATALOG).
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresURL is the server tests use (OSTIUM_TEST_POSTGRES), "" if none.
func PostgresURL() string { return os.Getenv("OSTIUM_TEST_POSTGRES") }

// CatalogURL returns the catalog a test node should use: "" (SQLite in the
// node's data directory) unless OSTIUM_TEST_CATALOG=postgres, in which case a
// fresh PostgreSQL database is created and dropped when the test ends.
func CatalogURL(t testing.TB) string {
	t.Helper()
	if os.Getenv("OSTIUM_TEST_CATALOG") != "postgres" {
		return ""
	}
	return FreshPostgres(t)
}

// FreshPostgres creates an empty database on OSTIUM_TEST_POSTGRES for the
// test and returns its URL; the test is skipped when the variable is unset.
func FreshPostgres(t testing.TB) string {
	t.Helper()
	base := PostgresURL()
	if base == "" {
		t.Skip("OSTIUM_TEST_POSTGRES is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", base, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	rand.Read(b[:])
	name := "ostium_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", base, err)
	}
	u.Path = "/" + name
	return u.String()
}
