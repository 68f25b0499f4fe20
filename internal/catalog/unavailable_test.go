package catalog

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
)

type stateErr string

func (e stateErr) Error() string    { return "SQLSTATE " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

// A catalog out of reach is told from a request's own failure, however
// the driver wraps it; the checks run on the errors pgx returns.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{stateErr("57P01"), true},  // admin shutdown: a fast restart
		{stateErr("57P03"), true},  // starting up
		{stateErr("08006"), true},  // connection failure
		{stateErr("25006"), true},  // read-only transaction: a standby
		{stateErr("23505"), false}, // unique violation: the write's own
		{stateErr("40P01"), false}, // deadlock: retried by the writer
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{io.ErrUnexpectedEOF, true},
		{driver.ErrBadConn, true},
		{context.Canceled, false},
		{errors.New("sqldb: no such bucket"), false},
		{nil, false},
	} {
		wrapped := fmt.Errorf("sqldb: put object: %w", tc.err)
		if tc.err == nil {
			wrapped = nil
		}
		if got := Unavailable(wrapped); got != tc.want {
			t.Errorf("Unavailable(%v) = %v, want %v", wrapped, got, tc.want)
		}
	}
}
