package catalog

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
)

// Unavailable tells whether err says the catalog could not be reached or
// cannot take writes now (a restart, a failover, a network cut) rather
// than that a request was wrong: such a request changed nothing the
// client was told of, and may be retried once the catalog is back. It
// reads the drivers' errors by their behaviour, as database/sql leaves
// them: a server's SQLSTATE (pgx and lib/pq expose SQLState), an error
// raised before anything was sent (pgx's SafeToRetry), or a broken
// connection.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		code := state.SQLState()
		switch {
		case strings.HasPrefix(code, "08"): // connection exception
			return true
		case code == "57P01", code == "57P02", code == "57P03": // shutting down, crashed, starting up
			return true
		case code == "25006": // read-only transaction: a standby, or a primary being demoted
			return true
		case code == "53300": // too many connections
			return true
		}
		return false
	}
	var retry interface{ SafeToRetry() bool }
	if errors.As(err, &retry) && retry.SafeToRetry() {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
