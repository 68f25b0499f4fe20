package iam

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	h := HashPassword("correct horse")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=4$") {
		t.Fatalf("hash %q is not RFC 9106's second option as a PHC string", h)
	}
	if h == HashPassword("correct horse") {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if !CheckPassword(h, "correct horse") {
		t.Fatal("the password does not match its hash")
	}
	for _, bad := range []string{"correct horsE", "", "correct horse "} {
		if CheckPassword(h, bad) {
			t.Fatalf("%q matches", bad)
		}
	}
	for _, hash := range []string{"", "plain", "$argon2i$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", "$argon2id$v=19$m=99999999,t=3,p=4$c2FsdA$aGFzaA"} {
		if CheckPassword(hash, "correct horse") {
			t.Fatalf("hash %q matches", hash)
		}
	}
	if ValidPassword("short") == nil || ValidPassword(strings.Repeat("é", 257)) == nil || ValidPassword("eight ch") != nil {
		t.Fatal("ValidPassword's bounds are wrong")
	}
}
