// Package postpolicy checks the policy document of a browser form upload
// (S3's POST Object) against the form, as AWS: its expiration, its
// conditions (exact matches, "eq", "starts-with", "content-length-range")
// and that every field the form carries is covered by one of them. It is
// pure: the caller parses the form and verifies the policy's signature.
package postpolicy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Error is a failed check as S3 answers it: status, code and message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return "postpolicy: " + e.Code + ": " + e.Message }

func invalidPolicy(msg string) *Error {
	return &Error{400, "InvalidPolicyDocument", "Invalid Policy: " + msg}
}

func denied(msg string) *Error {
	return &Error{403, "AccessDenied", "Invalid according to Policy: " + msg}
}

// condition is one entry of the conditions list.
type condition struct {
	op    string // "eq", "starts-with"
	field string // lower case, without '$'
	value string
	raw   string // as written, for the error message
}

// Policy is a parsed policy document.
type Policy struct {
	Expiration time.Time
	conds      []condition
	// MinSize and MaxSize bound the file when HasRange (content-length-range).
	MinSize, MaxSize int64
	HasRange         bool
}

// Parse decodes a policy field (base64 of the JSON document).
func Parse(b64 string) (*Policy, error) {
	doc, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return nil, invalidPolicy("Invalid Policy Encoding.")
	}
	var raw struct {
		Expiration *string            `json:"expiration"`
		Conditions *[]json.RawMessage `json:"conditions"`
	}
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, invalidPolicy("Invalid JSON.")
	}
	if raw.Expiration == nil {
		return nil, invalidPolicy("Policy missing expiration.")
	}
	if raw.Conditions == nil {
		return nil, invalidPolicy("Policy missing conditions.")
	}
	p := &Policy{}
	if p.Expiration, err = parseTime(*raw.Expiration); err != nil {
		return nil, invalidPolicy("Invalid 'expiration' value: '" + *raw.Expiration + "'")
	}
	for _, c := range *raw.Conditions {
		if err := p.add(c); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func parseTime(v string) (time.Time, error) {
	for _, f := range []string{"2006-01-02T15:04:05.000Z", time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(f, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("postpolicy: bad time %q", v)
}

func (p *Policy) add(c json.RawMessage) error {
	var obj map[string]json.RawMessage
	if json.Unmarshal(c, &obj) == nil && obj != nil {
		for k, v := range obj {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return invalidPolicy("Invalid Simple-Condition: value must be a string.")
			}
			p.conds = append(p.conds, condition{op: "eq", field: strings.ToLower(strings.TrimPrefix(k, "$")), value: s,
				raw: fmt.Sprintf("[\"eq\", \"$%s\", \"%s\"]", k, s)})
		}
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(c, &arr) != nil || len(arr) != 3 {
		return invalidPolicy("wrong format of a condition.")
	}
	var op string
	if json.Unmarshal(arr[0], &op) != nil {
		return invalidPolicy("wrong format of a condition.")
	}
	switch strings.ToLower(op) {
	case "content-length-range":
		lo, err1 := number(arr[1])
		hi, err2 := number(arr[2])
		if err1 != nil || err2 != nil || lo < 0 || hi < lo {
			return invalidPolicy("Invalid content-length-range condition.")
		}
		p.MinSize, p.MaxSize, p.HasRange = lo, hi, true
		return nil
	case "eq", "starts-with":
		var field, value string
		if json.Unmarshal(arr[1], &field) != nil || json.Unmarshal(arr[2], &value) != nil {
			return invalidPolicy("Invalid Condition: fields and values must be strings.")
		}
		if !strings.HasPrefix(field, "$") {
			return invalidPolicy("Condition field name must start with '$': " + field)
		}
		p.conds = append(p.conds, condition{op: strings.ToLower(op), field: strings.ToLower(field[1:]), value: value,
			raw: fmt.Sprintf("[\"%s\", \"%s\", \"%s\"]", op, field, value)})
		return nil
	}
	return invalidPolicy("Unknown condition type: " + op)
}

// number reads a content-length-range bound: a JSON integer, or a string
// holding one (as some SDKs write them).
func number(m json.RawMessage) (int64, error) {
	var f float64
	if err := json.Unmarshal(m, &f); err == nil {
		if f != math.Trunc(f) || f > math.MaxInt64 {
			return 0, fmt.Errorf("postpolicy: not an integer")
		}
		return int64(f), nil
	}
	var s string
	if err := json.Unmarshal(m, &s); err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(s), 10, 64)
}

// exempt reports whether a form field needs no condition: the signature
// fields, the file and the policy itself, and x-ignore-* fields (AWS's
// list for SigV4 and SigV2 forms).
func exempt(field string) bool {
	switch field {
	case "x-amz-signature", "signature", "awsaccesskeyid", "file", "policy":
		return true
	}
	return strings.HasPrefix(field, "x-ignore-")
}

// Check holds the form (field names lower case; "bucket" is the request's
// bucket, not a field) to p at time now: not expired, every condition
// met, and no field left uncovered.
func (p *Policy) Check(fields map[string]string, bucket string, now time.Time) error {
	if !now.Before(p.Expiration) {
		return denied("Policy expired.")
	}
	covered := map[string]bool{}
	for _, c := range p.conds {
		covered[c.field] = true
		v, ok := fields[c.field]
		if c.field == "bucket" {
			v, ok = bucket, true
		}
		switch c.op {
		case "eq":
			if v != c.value {
				return denied("Policy Condition failed: " + c.raw)
			}
		case "starts-with":
			if !ok && c.value != "" {
				return denied("Policy Condition failed: " + c.raw)
			}
			if !startsWith(c.field, v, c.value) {
				return denied("Policy Condition failed: " + c.raw)
			}
		}
	}
	var extra []string
	for f := range fields {
		if !exempt(f) && !covered[f] {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return denied("Extra input fields: " + strings.Join(extra, ", "))
	}
	return nil
}

// startsWith is the starts-with test; for Content-Type, each value of a
// comma-separated list must start with the prefix, as AWS documents.
func startsWith(field, v, prefix string) bool {
	if field != "content-type" {
		return strings.HasPrefix(v, prefix)
	}
	for _, part := range strings.Split(v, ",") {
		if !strings.HasPrefix(strings.TrimSpace(part), prefix) {
			return false
		}
	}
	return true
}
