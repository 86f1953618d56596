package web

import (
	"fmt"
	"testing"
	"time"

	"unroll/internal/testkit"
	"unroll/sim"
)

func TestParkingTakeAndExpire(t *testing.T) {
	p := newParking()
	p.ttl = 30 * time.Millisecond
	run := &sim.Run{}
	p.park("a", "gru", "10.0.0.1", run, 100)
	if _, _, ok := p.take("a", "lstm"); ok {
		t.Errorf("took a gru run for the lstm page")
	}
	if got, bytes, ok := p.take("a", "gru"); !ok || got != run || bytes != 100 {
		t.Errorf("take: got %v %d %v, want the parked run and its 100 bytes", got, bytes, ok)
	}
	if _, _, ok := p.take("a", "gru"); ok {
		t.Errorf("took the same run twice")
	}
	// Expiry is on a timer: nobody parks or takes, and the memory is freed anyway.
	p.park("b", "gru", "10.0.0.1", run, 100)
	testkit.Eventually(t, 5*time.Second, "the parked run freed after its time limit", func() bool { n, bytes := p.stats(); return n == 0 && bytes == 0 })
}

func TestParkingPerClient(t *testing.T) {
	// One client's 500 drops evict nobody else's run, only its own oldest.
	p := newParking()
	p.park("victim", "gru", "10.0.0.2", &sim.Run{}, 1000)
	for i := range 500 {
		p.park(fmt.Sprint("attack", i), "gru", "10.0.0.66", &sim.Run{}, 1000)
	}
	if _, _, ok := p.take("victim", "gru"); !ok {
		t.Errorf("another client's 500 parked runs evicted the victim's")
	}
	if n, _ := p.stats(); n != maxParkedPerClient {
		t.Errorf("the attacker has %d runs parked, want its limit of %d", n, maxParkedPerClient)
	}
	if _, _, ok := p.take(fmt.Sprint("attack", 499), "gru"); !ok {
		t.Errorf("the attacker's newest run is not parked")
	}
	if _, _, ok := p.take("attack0", "gru"); ok {
		t.Errorf("the attacker's oldest run is still parked")
	}
	p.clear()
}

func TestParkingBytes(t *testing.T) {
	p := newParking()
	p.limit = 10_000
	// 200 students drop at once, one run each: all fit and all come back.
	for i := range 200 {
		if !p.park(fmt.Sprint("s", i), "gru", fmt.Sprint("10.1.", i), &sim.Run{}, 50) {
			t.Fatalf("student %d's run was refused", i)
		}
	}
	for i := range 200 {
		if _, _, ok := p.take(fmt.Sprint("s", i), "gru"); !ok {
			t.Fatalf("student %d's run is gone", i)
		}
	}
	// When the bytes run out, the client holding the most loses its oldest first.
	p.park("small", "gru", "10.0.0.1", &sim.Run{}, 2000)
	for i := range 4 {
		p.park(fmt.Sprint("big", i), "seq2seq", "10.0.0.9", &sim.Run{}, 2000)
	}
	p.park("new", "gru", "10.0.0.3", &sim.Run{}, 2000)
	if _, bytes := p.stats(); bytes > p.limit {
		t.Errorf("%d bytes parked, over the limit of %d", bytes, p.limit)
	}
	for _, name := range []string{"small", "new", "big1", "big2", "big3"} {
		if _, _, ok := p.take(name, map[bool]string{true: "seq2seq", false: "gru"}[name[0] == 'b']); !ok {
			t.Errorf("%s was evicted; the largest holder's oldest (big0) should have gone", name)
		}
	}
	if p.park("huge", "gru", "10.0.0.1", &sim.Run{}, p.limit+1) {
		t.Errorf("parked a run larger than the whole limit")
	}
}
