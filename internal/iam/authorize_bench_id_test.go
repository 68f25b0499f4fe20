package iam_test

import (
	"testing"

	"github.com/ostiumio/ostium/internal/iam"
	"github.com/ostiumio/ostium/internal/iam/bucketpolicy"
)

// homeFolder is id with a home-folder policy attached.
func homeFolder(b *testing.B, id *iam.Identity) *iam.Identity {
	p, err := bucketpolicy.ParseIdentity([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:PutObject"],"Resource":"arn:aws:s3:::shared/${aws:username}/*"}]}`))
	if err != nil {
		b.Fatal(err)
	}
	c := *id
	c.Policies = []*bucketpolicy.Policy{p}
	return &c
}
