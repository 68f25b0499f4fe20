package osis

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ostiumio/ostium/internal/admin"
	"github.com/ostiumio/ostium/internal/catalog"
)

// Error is the spec's Error object: a code and a message, sent with the
// HTTP status.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newErr(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func errBadRequest(format string, args ...any) *Error {
	return newErr(http.StatusBadRequest, "E_BAD_REQUEST", format, args...)
}

func errNotFound(format string, args ...any) *Error {
	return newErr(http.StatusNotFound, "E_NOT_FOUND", format, args...)
}

func errNotImplemented(op string) *Error {
	return newErr(http.StatusNotImplemented, "E_NOT_IMPLEMENTED", "The optional API %s is not implemented", op)
}

var (
	errUnauthorized = newErr(http.StatusUnauthorized, "E_UNAUTHORIZED", "Basic authentication with the provider's root access key and secret is required")
	errForbidden    = newErr(http.StatusForbidden, "E_FORBIDDEN", "Only the provider's root credentials may use OSIS")
	errThrottled    = newErr(http.StatusTooManyRequests, "E_TOO_MANY_REQUESTS", "Too many failed authentications from this address; try again later")
	errSlowDown     = newErr(http.StatusServiceUnavailable, "E_SLOW_DOWN", "Please reduce your request rate")
)

// toError maps an admin error (or any other) to the spec's Error.
func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *admin.Error
	if errors.As(err, &ae) {
		switch ae.Status {
		case http.StatusBadRequest:
			return errBadRequest("%s", ae.Message)
		case http.StatusNotFound:
			return errNotFound("%s", ae.Message)
		case http.StatusConflict:
			return newErr(http.StatusConflict, "E_CONFLICT", "%s", ae.Message)
		case http.StatusForbidden:
			return errForbidden
		}
		return newErr(ae.Status, "E_"+ae.Code, "%s", ae.Message)
	}
	if catalog.Unavailable(err) {
		return newErr(http.StatusServiceUnavailable, "E_UNAVAILABLE", "The catalog is unavailable. Please try again.")
	}
	slog.Error("OSIS internal error", "err", err)
	return newErr(http.StatusInternalServerError, "E_INTERNAL", "We encountered an internal error. Please try again.")
}
