package iam

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password hashing: argon2id with RFC 9106's second recommended option
// (3 passes over 64 MiB, 4 lanes), a 16-byte salt and a 32-byte tag,
// encoded as a PHC string so that the parameters can be raised later
// and hashes made before still verify.
const (
	argonTime    = 3
	argonMemory  = 64 << 10 // KiB
	argonThreads = 4
	argonSaltLen = 16
	argonKeyLen  = 32

	MinPassword = 8
	MaxPassword = 256
)

// ErrPasswordLength refuses a password too short or too long.
var ErrPasswordLength = fmt.Errorf("a password is %d to %d characters", MinPassword, MaxPassword)

// ValidPassword checks a new password's length (in characters).
func ValidPassword(p string) error {
	if n := utf8.RuneCountInString(p); n < MinPassword || n > MaxPassword || !utf8.ValidString(p) {
		return ErrPasswordLength
	}
	return nil
}

// HashPassword returns the PHC string of password.
func HashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		panic("iam: crypto/rand failed: " + err.Error())
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding.EncodeToString
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64(salt), b64(key))
}

// dummyHash is verified against when there is no hash to verify, so
// that an unknown user costs what a known one does and the time of an
// answer does not tell which names exist.
var dummyHash = sync.OnceValue(func() string { return HashPassword("ostium: no such user") })

// CheckPassword reports whether password matches the PHC string hash;
// an empty or unreadable hash matches nothing, in the same time.
func CheckPassword(hash, password string) bool {
	ok, err := checkPassword(hash, password)
	if err != nil {
		checkPassword(dummyHash(), password)
		return false
	}
	return ok
}

func checkPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("not an argon2id PHC string")
	}
	var v int
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return false, errors.New("unknown argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || t == 0 || p == 0 || m > 1<<22 || t > 64 {
		return false, errors.New("bad argon2 parameters")
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, err
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 || len(want) > 128 {
		return false, errors.New("bad argon2 tag")
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
