package node_test

import (
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
)

// storage_classes is read from the file and checked against the
// platforms: each error names the class.
func TestStorageClassesSetting(t *testing.T) {
	const platforms = "data: d\ndefault_platform: fast\nplatforms:\n  fast: {type: fs, path: /tmp/f}\n  cold: {type: fs, path: /tmp/c}\n"
	c, err := node.ParseConfig([]byte(platforms + "storage_classes:\n  STANDARD_IA: cold\n  GLACIER_IR: cold\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.StorageClasses["STANDARD_IA"] != "cold" || c.StorageClasses["GLACIER_IR"] != "cold" {
		t.Fatalf("parsed %+v", c.StorageClasses)
	}
	for doc, want := range map[string]string{
		"storage_classes:\n  STANDARD_IA: tape\n": `storage_classes.STANDARD_IA: platform "tape" is not configured`,
		"storage_classes:\n  GLACIER: cold\n":     "storage_classes.GLACIER: archive classes cannot be mapped",
		"storage_classes:\n  STANDARD: cold\n":    "storage_classes.STANDARD",
		"storage_classes:\n  COLD: cold\n":        "storage_classes.COLD: not a storage class",
	} {
		_, err := node.ParseConfig([]byte(platforms + doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", doc, err, want)
		}
	}
}
