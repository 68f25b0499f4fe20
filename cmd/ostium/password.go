package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// passwordInput is where `admin user password` reads the password: a
// terminal (echo off) or whatever is piped in, one line.
var passwordInput io.Reader = os.Stdin

// readPassword reads one line. On a terminal it prompts on stderr and
// turns echo off while the line is typed, so the password is neither
// shown nor left in the shell's history, as passwd(1) does.
func readPassword() (string, error) {
	if f, ok := passwordInput.(*os.File); ok {
		if t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			fmt.Fprint(os.Stderr, "New password: ")
			quiet := *t
			quiet.Lflag &^= unix.ECHO
			quiet.Lflag |= unix.ICANON | unix.ISIG
			if err := unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, &quiet); err == nil {
				defer func() {
					unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, t)
					fmt.Fprintln(os.Stderr)
				}()
			}
		}
	}
	line, err := bufio.NewReader(io.LimitReader(passwordInput, 4096)).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("read the password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
