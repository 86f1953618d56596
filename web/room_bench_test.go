package web

import (
	"fmt"
	"testing"

	"unroll/sim"
)

// BenchmarkRoomPublish is the instructor's cost of one frame for a class: the same
// encoded bytes offered to every follower's outbox (where a frame replaces the unsent
// one), the work that runs in the instructor's simulator.
func BenchmarkRoomPublish(b *testing.B) {
	frame := sim.Encoded{Type: sim.FrameMessage, Data: make([]byte, 1244)} // a GRU frame with h = 64
	for _, n := range []int{50, 500} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) {
			f := newLocalFanout(n)
			for range n {
				f.join(newFollower(nil, false))
			}
			f.Catchup(sim.Encoded{Type: sim.SnapshotMessage})
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				frame.Seq = uint64(i)
				f.Publish(frame)
			}
		})
	}
}
