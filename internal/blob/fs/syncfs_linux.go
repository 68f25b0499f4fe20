package fs

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// flushFS makes everything written to the file system holding f durable:
// file data, inodes and directory entries alike, in one journal commit.
func flushFS(f *os.File) error {
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("fs: syncfs: %w", err)
	}
	return nil
}
