package web

import (
	"fmt"
	"testing"
	"time"

	"unroll/sim"
)

func TestParkingTakeExpireAndBound(t *testing.T) {
	var p parking
	t0 := time.Unix(1000, 0)
	run := &sim.Run{}
	p.park("a", "gru", run, t0)
	if _, ok := p.take("a", "lstm", t0); ok {
		t.Errorf("took a gru run for the lstm page")
	}
	if got, ok := p.take("a", "gru", t0.Add(parkTTL)); !ok || got != run {
		t.Errorf("take at parkTTL: got %v %v, want the parked run", got, ok)
	}
	if _, ok := p.take("a", "gru", t0); ok {
		t.Errorf("took the same run twice")
	}
	p.park("b", "gru", run, t0)
	if _, ok := p.take("b", "gru", t0.Add(parkTTL+time.Second)); ok {
		t.Errorf("took a run parked longer than parkTTL")
	}
	for i := range maxParked + 5 {
		p.park(fmt.Sprint(i), "gru", run, t0.Add(time.Duration(i)*time.Millisecond))
	}
	if n := p.len(); n != maxParked {
		t.Errorf("got %d parked runs, want at most %d", n, maxParked)
	}
	if _, ok := p.take("0", "gru", t0); ok {
		t.Errorf("the oldest run is still parked after %d more", maxParked)
	}
	if _, ok := p.take(fmt.Sprint(maxParked+4), "gru", t0); !ok {
		t.Errorf("the newest run is not parked")
	}
}
