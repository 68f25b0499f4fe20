//go:build unix && !linux

package fs

import (
	"os"
	"syscall"
)

// flushFS falls back to sync(2) where syncfs(2) does not exist.
func flushFS(*os.File) error {
	syscall.Sync()
	return nil
}
