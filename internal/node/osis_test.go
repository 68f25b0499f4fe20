package node_test

import (
	"strings"
	"testing"

	"github.com/ostiumio/ostium/internal/node"
)

// osis_console_url is an http(s) URL; unset, getConsole is not served.
func TestOSISConfig(t *testing.T) {
	for _, u := range []string{"console.example.com", "ftp://console.example.com", "https://"} {
		c := node.Config{DataDir: "d", OSIS: true, OSISConsoleURL: u}
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "osis_console_url:") {
			t.Errorf("%q: %v", u, err)
		}
	}
	for _, c := range []node.Config{{DataDir: "d", OSIS: true}, {DataDir: "d", OSIS: true, OSISConsoleURL: "https://console.example.com:9001/"}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
