package notify

import "strings"

// events are the event types AWS defines, and whether this endpoint
// produces them. A configuration naming one it does not produce is
// refused rather than accepted and never honoured. The replication
// family stays refused as a whole: its three events about replication's
// time need Replication Time Control and its metrics, which
// PutBucketReplication refuses.
var events = map[string]bool{
	"s3:ObjectCreated:Put":                       true,
	"s3:ObjectCreated:Post":                      true,
	"s3:ObjectCreated:Copy":                      true,
	"s3:ObjectCreated:CompleteMultipartUpload":   true,
	"s3:ObjectRemoved:Delete":                    true,
	"s3:ObjectRemoved:DeleteMarkerCreated":       true,
	"s3:LifecycleExpiration:Delete":              true,
	"s3:LifecycleExpiration:DeleteMarkerCreated": true,

	"s3:ObjectRestore:Post":                            false,
	"s3:ObjectRestore:Completed":                       false,
	"s3:ObjectRestore:Delete":                          false,
	"s3:ReducedRedundancyLostObject":                   false,
	"s3:Replication:OperationFailedReplication":        true,
	"s3:Replication:OperationMissedThreshold":          false,
	"s3:Replication:OperationReplicatedAfterThreshold": false,
	"s3:Replication:OperationNotTracked":               false,
	"s3:LifecycleTransition":                           true,
	"s3:IntelligentTiering":                            false,
	"s3:ObjectTagging:Put":                             true,
	"s3:ObjectTagging:Delete":                          true,
	"s3:ObjectAcl:Put":                                 true,
}

// Produced tells whether an event type, or a family of them
// (s3:ObjectCreated:*), is one this endpoint produces: a family is
// produced if every type in it is.
func Produced(pattern string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		if !strings.HasSuffix(p, ":") {
			return false
		}
		n := 0
		for e, yes := range events {
			if strings.HasPrefix(e, p) {
				if !yes {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	return events[pattern]
}
