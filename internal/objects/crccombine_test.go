package objects

import (
	"math/rand/v2"
	"testing"

	"github.com/ostiumio/ostium/internal/catalog"
)

// The combined checksum of random pieces equals the checksum of their
// concatenation, for every combinable algorithm.
func TestFullObjectChecksumOfPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for algo := range combinable {
		for trial := range 20 {
			var whole []byte
			var parts []catalog.Part
			for range 1 + r.IntN(5) {
				piece := make([]byte, r.IntN(3000)) // empty pieces too
				for i := range piece {
					piece[i] = byte(r.Uint32())
				}
				whole = append(whole, piece...)
				d := newDigester([]string{algo}, true)
				d.Write(piece)
				parts = append(parts, catalog.Part{Size: int64(len(piece)), Checksums: d.checksums()})
			}
			d := newDigester([]string{algo}, true)
			d.Write(whole)
			got, ok := fullObjectChecksum(algo, parts)
			if want := d.checksums()[algo]; !ok || got != want {
				t.Fatalf("%s trial %d: combined %s, whole %s", algo, trial, got, want)
			}
		}
	}
	if _, ok := fullObjectChecksum("SHA256", nil); ok {
		t.Fatal("SHA256 cannot be combined")
	}
}
