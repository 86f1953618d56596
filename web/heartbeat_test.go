package web

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// detectWithin is issue 22's bound: both ends notice a dead connection within 5 s.
const detectWithin = 5 * time.Second

// TestHeartbeatPong: every socket a page opens answers the page's heartbeat with a
// pong — a lesson socket, a follower's and an explorer's (explore=1) — whether the
// ping is spelled as socket.js spells it or otherwise; a pong is not numbered like
// the run's messages (seq 0). Numbered commands are acknowledged: the run's messages
// carry the id of the last one it carried out or refused.
func TestHeartbeatPong(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the instructor's snapshot", isType(sim.SnapshotMessage))
	follower := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, follower, "the follower's snapshot", isType(sim.SnapshotMessage))
	explorer := dialWith(t, ts, "/rooms/"+created.Code+"/ws?explore=1", nil)
	until(t, explorer, "the explorer's room message", isType(roomMessage))
	private := dialWith(t, ts, "/lessons/tiny/ws", nil)
	until(t, private, "a private page's snapshot", isType(sim.SnapshotMessage))

	for name, p := range map[string]*peer{"instructor": lead, "follower": follower, "explorer": explorer, "private": private} {
		for _, ping := range []string{`{"v":1,"type":"ping"}`, `{ "type": "ping", "v": 1 }`} {
			if err := p.c.WriteMessage(websocket.TextMessage, []byte(ping)); err != nil {
				t.Fatal(err)
			}
			got := until(t, p, name+"'s pong to "+ping, isType(sim.PongMessage))
			if h := got[len(got)-1].h; h.Seq != 0 || len(h.Arrays) != 0 {
				t.Errorf("%s: the pong is seq %d with %d arrays, want seq 0 and none", name, h.Seq, len(h.Arrays))
			}
		}
	}

	private.do(t, sim.Command{Type: sim.StepCommand, ID: 7})
	if got := until(t, private, "the step's frame", isType(sim.FrameMessage)); got[len(got)-1].h.Ack != 7 {
		t.Errorf("the frame that answers command 7 acknowledges %d", got[len(got)-1].h.Ack)
	}
	private.do(t, sim.Command{Type: sim.SeekCommand, Step: 99, ID: 8})
	if got := until(t, private, "the refusal", isType(sim.ErrorMessage)); got[len(got)-1].h.Ack != 8 {
		t.Errorf("the refusal of command 8 acknowledges %d: a refused command must not be sent again either", got[len(got)-1].h.Ack)
	}
}

// TestHeartbeatSilentPage: a page whose connection goes silent — it stops reading,
// so it answers no ping and sends nothing, while its TCP connection stays open, as
// behind a Wi-Fi that holds every packet — is noticed by the server within 5 s: the
// instructor's session ends and its run goes back to the room (the followers are told
// the instructor is away), a follower's ends and the counts drop. A page that answers
// the pings but sends nothing for longer stays connected.
func TestHeartbeatSilentPage(t *testing.T) {
	s, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")

	// A page that answers pings and says nothing, connected first.
	var pings atomic.Int32
	alive := dialRaw(t, ts, "/rooms/"+created.Code+"/ws", nil)
	alive.SetPingHandler(func(data string) error {
		pings.Add(1)
		return alive.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(writeWait))
	})
	aliveIn := watch(alive)

	// The instructor: its snapshot read, then silence.
	lead := dialRaw(t, ts, "/lessons/tiny/ws?room="+created.Code, http.Header{"Cookie": {secret.Name + "=" + secret.Value}})
	for {
		if m := receive(t, lead); m.Header.Type == sim.SnapshotMessage {
			break
		}
	}
	until(t, aliveIn, "the instructor here", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "here" })
	silentSince := time.Now()
	until(t, aliveIn, "the instructor away", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "away" })
	if took := time.Since(silentSince); took > detectWithin {
		t.Errorf("the server noticed the silent instructor after %v, want within %v", took.Round(time.Millisecond), detectWithin)
	} else {
		t.Logf("the silent instructor noticed after %v", took.Round(time.Millisecond))
	}
	rm, _ := s.rooms.find("", created.Code)
	rm.mu.Lock()
	kept := rm.run != nil && rm.lead == nil
	rm.mu.Unlock()
	if !kept {
		t.Error("the room did not keep the silent instructor's run")
	}

	// A follower: its snapshot read, then silence.
	silent := dialRaw(t, ts, "/rooms/"+created.Code+"/ws", nil)
	for {
		if m := receive(t, silent); m.Header.Type == sim.SnapshotMessage {
			break
		}
	}
	silentSince = time.Now()
	until(t, aliveIn, "two following", roomCounts(2, 0))
	until(t, aliveIn, "the silent follower dropped", roomCounts(1, 0))
	if took := time.Since(silentSince); took > detectWithin {
		t.Errorf("the server noticed the silent follower after %v, want within %v", took.Round(time.Millisecond), detectWithin)
	} else {
		t.Logf("the silent follower noticed after %v", took.Round(time.Millisecond))
	}

	// The page that answers pings has said nothing for longer than pongWait, and is
	// still there: it gets the room's news and its heartbeat's answer.
	for pings.Load() < int32(2*pongWait/pingPeriod) {
		if _, err := aliveIn.next(detectWithin); err != nil && !strings.HasPrefix(err.Error(), "nothing within") {
			t.Fatalf("the follower that answers pings was dropped after %d pings: %v", pings.Load(), err)
		}
	}
	if err := alive.WriteMessage(websocket.TextMessage, []byte(`{"v":1,"type":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	until(t, aliveIn, "a pong after 2 × pongWait of answering pings only", isType(sim.PongMessage))
}

// BenchmarkHeartbeat is one heartbeat round trip on a follower's socket over loopback:
// the page's ping read and answered (IsPing, no JSON decoding), the pong written, and
// the client's own read and write — an upper bound on what the server spends per
// follower per PING_EVERY_MS (1 s), beside the protocol ping it sends every pingPeriod.
func BenchmarkHeartbeat(b *testing.B) {
	_, ts := roomServer(b, Options{})
	created, _ := startRoom(b, ts, "tiny")
	c := dialRaw(b, ts, "/rooms/"+created.Code+"/ws", nil)
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			b.Fatal(err)
		}
		if m, _ := sim.DecodeMessage(data); m.Header.Type == roomMessage { // no instructor: no snapshot comes
			break
		}
	}
	ping := []byte(`{"v":1,"type":"ping"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.WriteMessage(websocket.TextMessage, ping); err != nil {
			b.Fatal(err)
		}
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				b.Fatal(err)
			}
			if len(data) == len(sim.Pong()) {
				break
			}
		}
	}
}
