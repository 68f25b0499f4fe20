package policy

import (
	"errors"
	"testing"
)

// FuzzParse checks that no document makes Parse panic or return anything but
// a policy or an *Error, and that a policy that parses evaluates without
// panicking whatever the request carries.
func FuzzParse(f *testing.F) {
	for _, ex := range examples {
		f.Add([]byte(ex.doc), "s3:GetObject", "k", "192.0.2.1")
	}
	for _, c := range malformed {
		f.Add([]byte(c.doc), "s3:ListBucket", "", "true")
	}
	for _, c := range wellFormed {
		f.Add([]byte(c.doc), "s3:PutObject", "home/alice/x", "2020-01-01T00:00:00Z")
	}
	for _, c := range conditionCases {
		f.Add([]byte(stmt("Condition", c.cond)), "s3:GetObject", "a*b", "10")
	}
	f.Fuzz(func(t *testing.T, doc []byte, action, key, value string) {
		p, err := Parse(doc, bucket)
		if err != nil {
			var pe *Error
			if p != nil || !errors.As(err, &pe) || pe.Reason == "" {
				t.Fatalf("Parse = %v, %#v", p, err)
			}
			return
		}
		if p == nil {
			t.Fatal("Parse returned neither policy nor error")
		}
		// Give every key the policy tests, and the usual variables, the
		// fuzzed value, so that conditions are exercised both ways.
		ctx := map[string][]string{"aws:username": {value}, "aws:userid": {value}}
		for _, s := range p.Statements {
			for _, c := range s.Condition {
				ctx[c.Key] = []string{value, key}
			}
		}
		for _, r := range []Request{
			{Anonymous: true, Action: action, Resource: obj(key)},
			{Principals: []string{value, "acme", "arn:aws:iam::acme:root"}, Action: action, Resource: bucketARN, Context: ctx},
			{Principals: []string{alice}, Action: action, Resource: obj(key), Context: ctx},
		} {
			if d := p.Evaluate(r); d != NoMatch && d != Allow && d != Deny {
				t.Fatalf("Evaluate = %v", d)
			}
		}
		p.IsPublic()
	})
}
