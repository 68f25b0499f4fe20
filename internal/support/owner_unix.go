//go:build unix

package support

import (
	"fmt"
	"os"
	"syscall"
)

// checkOwner refuses to open the node's files as another user than
// their owner: SQLite would make its -wal and -shm files as that user
// (root, run for the journal), and the node, started again as itself,
// could not open its own catalog.
func checkOwner(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return nil
	}
	return fmt.Errorf("%s belongs to uid %d, and this runs as uid %d: opening it could leave files the node cannot open; "+
		"run the bundle as the node's user (sudo -u ostium ostium support bundle ...) or give --endpoint of the running node", path, st.Uid, os.Geteuid())
}
