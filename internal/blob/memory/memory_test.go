package memory_test

import (
	"testing"

	"github.com/ostiumio/ostium/internal/blob"
	"github.com/ostiumio/ostium/internal/blob/blobtest"
	"github.com/ostiumio/ostium/internal/blob/memory"
)

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store { return memory.New() })
}
