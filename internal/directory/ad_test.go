package directory

import (
	"strings"
	"testing"

	"github.com/go-ldap/ldap/v3"
)

// Active Directory's disabled flag is bit 2 of userAccountControl
// (ACCOUNTDISABLE), whatever else is set; other directories' a value,
// or any value, of the configured attribute.
func TestDisabled(t *testing.T) {
	ad := Config{Kind: KindAD}.WithDefaults()
	for v, want := range map[string]bool{"512": false, "514": true, "66050": true, "66048": false, "2": true, "junk": false} {
		if got := disabled(ad, []string{v}); got != want {
			t.Errorf("userAccountControl %s: %v, want %v", v, got, want)
		}
	}
	if disabled(ad, nil) {
		t.Error("no userAccountControl: disabled")
	}
	lock := Config{DisabledAttribute: "pwdAccountLockedTime"}
	if !disabled(lock, []string{"000001010000Z"}) || disabled(lock, nil) {
		t.Error("presence of pwdAccountLockedTime")
	}
	typ := Config{DisabledAttribute: "employeeType", DisabledValue: "Disabled"}
	if !disabled(typ, []string{"staff", "disabled"}) || disabled(typ, []string{"staff"}) {
		t.Error("employeeType=disabled")
	}
}

// objectGUID is kept as AD shows it, and searched for by its bytes,
// escaped.
func TestObjectGUID(t *testing.T) {
	raw := []byte{0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	e := ldap.NewEntry("cn=x", nil)
	e.Attributes = []*ldap.EntryAttribute{{Name: "objectGUID", ByteValues: [][]byte{raw}, Values: []string{string(raw)}}}
	id := externalID(e, "objectGUID")
	if id != "00112233-4455-6677-8899-aabbccddeeff" {
		t.Fatalf("GUID %s", id)
	}
	cfg := Config{Kind: KindAD}.WithDefaults()
	if f := idFilter(cfg, id); f != `(objectGUID=\33\22\11\00\55\44\77\66\88\99\aa\bb\cc\dd\ee\ff)` {
		t.Fatalf("filter %s", f)
	}
	if _, err := ldap.CompileFilter(idFilter(cfg, id)); err != nil {
		t.Fatal(err)
	}
	if f := idFilter(cfg, "not-a-guid)(cn=*"); strings.Contains(f, "cn=*") {
		t.Fatalf("a bad id reached the filter: %s", f)
	}
	if f := idFilter(Config{IDAttribute: "entryUUID"}, "x)(uid=*"); f != `(entryUUID=x\29\28uid=\2a)` {
		t.Fatalf("entryUUID filter %s", f)
	}
}

func TestConfigValidate(t *testing.T) {
	base := Config{URL: "ldaps://ldap.example", BindDN: "cn=r,dc=x", UserBase: "dc=x"}.WithDefaults()
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*Config){
		"ldaps with StartTLS": func(c *Config) { c.StartTLS = true },
		"plain ldap":          func(c *Config) { c.URL = "ldap://ldap.example" },
		"http":                func(c *Config) { c.URL = "http://ldap.example" },
		"a path":              func(c *Config) { c.URL = "ldaps://ldap.example/dc=x?uid" },
		"credentials in URL":  func(c *Config) { c.URL = "ldaps://u:p@ldap.example" },
		"bad filter":          func(c *Config) { c.UserFilter = "(uid=*" },
		"bad base":            func(c *Config) { c.UserBase = "not a dn" },
		"no bind DN":          func(c *Config) { c.BindDN = "" },
		"bad attribute":       func(c *Config) { c.LoginAttribute = "uid)(x" },
		"not a CA":            func(c *Config) { c.CA = "hello" },
		"sync too often":      func(c *Config) { c.SyncSeconds = 5 },
		"groups nowhere":      func(c *Config) { c.AdminGroups = []string{"admins"} },
		"timeout":             func(c *Config) { c.TimeoutSeconds = 1000 },
		"kind":                func(c *Config) { c.Kind = "novell" },
		"iam groups nowhere":  func(c *Config) { c.IAMGroups = map[string]string{"devs": "devs"} },
		"not an IAM group": func(c *Config) {
			c.GroupBase, c.IAMGroups = "dc=x", map[string]string{"devs": "devs team"}
		},
		"empty directory group": func(c *Config) { c.GroupBase, c.IAMGroups = "dc=x", map[string]string{" ": "devs"} },
	} {
		c := base
		change(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := base
	ok.URL, ok.StartTLS = "ldap://ldap.example:389", true
	if err := ok.Validate(); err != nil {
		t.Errorf("StartTLS: %v", err)
	}
	ok.StartTLS, ok.AllowPlain = false, true
	if err := ok.Validate(); err != nil {
		t.Errorf("plain where allowed: %v", err)
	}
	ok.GroupBase, ok.IAMGroups = "dc=x", map[string]string{"cn=devs,dc=x": "devs", "ops": "ops+team@x"}
	if err := ok.Validate(); err != nil {
		t.Errorf("iam_groups: %v", err)
	}
}
