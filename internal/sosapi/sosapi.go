// Package sosapi computes the documents of Veeam's Smart Object Storage
// API (SOSAPI 1.0): system.xml, which tells Veeam Backup & Replication
// what the repository can do and how to use it, and capacity.xml, how
// much it may still store. Veeam reads them as objects of the bucket
// under one well-known folder; the S3 endpoint serves them computed on
// each read, never stored (internal/s3/sosapi.go), and this package knows
// nothing of HTTP, catalogs or identities.
package sosapi

import (
	"encoding/xml"
	"strings"
)

// Folder is the key prefix SOSAPI reserves in every bucket; SystemKey
// and CapacityKey are the two documents Veeam reads there.
const (
	Folder      = ".system-d26a9498-cb7c-4a87-a44a-8ae204f5ba6c/"
	SystemKey   = Folder + "system.xml"
	CapacityKey = Folder + "capacity.xml"
)

// Reserved tells whether key lies under Folder: such keys are Veeam's
// protocol, never tenants' data, so writes to them are refused.
func Reserved(key string) bool { return strings.HasPrefix(key, Folder) }

// Document tells whether key names one of the two documents.
func Document(key string) bool { return key == SystemKey || key == CapacityKey }

// ProtocolVersion is the SOSAPI version served. The specification's
// examples quote the value inside the element, and Veeam expects it so
// (every implementation serves `"1.0"`), as for ModelName.
const ProtocolVersion = `"1.0"`

// SystemInfo is system.xml.
type SystemInfo struct {
	XMLName              xml.Name     `xml:"SystemInfo"`
	ProtocolVersion      string       `xml:"ProtocolVersion"`
	ModelName            string       `xml:"ModelName"`
	ProtocolCapabilities Capabilities `xml:"ProtocolCapabilities"`
	// SystemRecommendations is optional in the specification; Veeam
	// uses its defaults for what it leaves out.
	SystemRecommendations *Recommendations `xml:"SystemRecommendations,omitempty"`
}

// Capabilities are the optional parts of the protocol a system serves.
type Capabilities struct {
	// CapacityInfo: capacity.xml is served and Veeam should read it.
	CapacityInfo bool `xml:"CapacityInfo"`
	// UploadSessions: the system steers each backup session to a node
	// of its own (a "smart entity"); Ostium's nodes share everything,
	// so there is nothing to steer.
	UploadSessions bool `xml:"UploadSessions"`
	// IAMSTS: IAM and STS endpoints for Veeam's agents; Ostium serves
	// no STS, so false (and no APIEndpoints section).
	IAMSTS bool `xml:"IAMSTS"`
}

// Recommendations are how Veeam should load the repository.
type Recommendations struct {
	// S3ConcurrentTaskLimit bounds the tasks Veeam runs at once against
	// the repository.
	S3ConcurrentTaskLimit int `xml:"S3ConcurrentTaskLimit,omitempty"`
	// KbBlockSize is the size (KiB, before compression) of the blocks
	// Veeam writes, each an object.
	KbBlockSize int `xml:"KbBlockSize"`
}

// CapacityInfo is capacity.xml, in bytes.
type CapacityInfo struct {
	XMLName   xml.Name `xml:"CapacityInfo"`
	Capacity  int64    `xml:"Capacity"`
	Available int64    `xml:"Available"`
	Used      int64    `xml:"Used"`
}

// ModelName is the model Ostium reports, for Veeam's statistics.
const ModelName = `"Ostium"`

// KbBlockSize is the block size Ostium recommends: 4 MiB. Veeam offers
// 256 KiB to 8 MiB (1 MiB by default). Every object Veeam writes costs
// Ostium a catalog row, a commit and a request slot whatever its size,
// while bytes stream through at a fixed cost per byte; 4 MiB blocks cut
// the rows, commits and requests of a repository to a quarter of the
// default's, at the price of larger incremental backups (a changed
// block is written whole), which is the trade other object stores
// serving SOSAPI (MinIO, SeaweedFS) make too.
const KbBlockSize = 4096

// connectionsPerTask is how many requests one Veeam task keeps in flight
// against object storage at most (Veeam documents 64 connections a task).
const connectionsPerTask = 64

// Recommend derives the recommendations from what a tenant may hold of
// the node: tenantSlots, the most request slots one tenant holds at once
// (tenant_share of max_requests). Veeam's tasks each keep up to 64
// requests in flight; more tasks than the slots cover would only queue
// and get 503 SlowDown, which Veeam retries with back-off, so the limit
// is the tasks whose requests fit in the tenant's slots (at least 1).
// Behind a balancer, each node has its slots: the limit is per node,
// and conservative for a cluster.
func Recommend(tenantSlots int) Recommendations {
	return Recommendations{S3ConcurrentTaskLimit: max(1, tenantSlots/connectionsPerTask), KbBlockSize: KbBlockSize}
}

// System returns system.xml: capacity tells whether capacity.xml is
// served for the bucket (it is when a quota bounds it, see Tightest).
func System(rec Recommendations, capacity bool) []byte {
	return encode(SystemInfo{
		ProtocolVersion:       ProtocolVersion,
		ModelName:             ModelName,
		ProtocolCapabilities:  Capabilities{CapacityInfo: capacity},
		SystemRecommendations: &rec,
	})
}

// Quota is a bound on stored bytes and what its scope stores now: a
// bucket's quota and the bucket's bytes, or its tenant's quota and the
// bytes of all the tenant's buckets. Max 0 is no bound.
type Quota struct {
	Max, Used int64
}

// Tightest returns the capacity of the quota that leaves the least room,
// as the quota enforcement will see it: that quota is the repository's
// Capacity, its scope's bytes the Used, and what is left of it (never
// below 0: concurrent writers can overshoot a quota by what they write
// together) the Available. ok is false when no quota bounds the bucket:
// then there is no capacity to report (see Capacity).
func Tightest(qs ...Quota) (c CapacityInfo, ok bool) {
	for _, q := range qs {
		if q.Max <= 0 {
			continue
		}
		avail := max(0, q.Max-q.Used)
		if !ok || avail < c.Available {
			c, ok = CapacityInfo{Capacity: q.Max, Available: avail, Used: q.Used}, true
		}
	}
	return c, ok
}

// Capacity returns capacity.xml.
func Capacity(c CapacityInfo) []byte { return encode(c) }

func encode(v any) []byte {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		// Only fixed types of strings and integers are encoded.
		panic("sosapi: " + err.Error())
	}
	return append([]byte(xml.Header), append(b, '\n')...)
}
