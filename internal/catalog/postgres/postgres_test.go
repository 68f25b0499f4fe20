package postgres_test

import (
	"context"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
	"github.com/ostiumio/ostium/internal/catalog/catalogtest"
	"github.com/ostiumio/ostium/internal/catalog/postgres"
	"github.com/ostiumio/ostium/internal/testenv"
)

func TestConformance(t *testing.T) {
	catalogtest.Run(t, func(t *testing.T) catalog.Store {
		s, err := postgres.Open(context.Background(), testenv.FreshPostgres(t), 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
