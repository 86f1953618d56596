package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// roomServer serves the test lessons with opts.
func roomServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// startRoom starts a room on lesson slug as the instructor's page does, and returns
// its answer and the instructor's secret cookie.
func startRoom(t testing.TB, ts *httptest.Server, slug string) (roomCreated, *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/rooms", strings.NewReader(`{"lesson":"`+slug+`"}`))
	req.Header.Set("Origin", ts.URL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/v1/rooms: %d %s", resp.StatusCode, body)
	}
	var out roomCreated
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range resp.Cookies() {
		if c.Name == roomCookie(out.Code) {
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("the secret's cookie is not HttpOnly and SameSite=Strict: %+v", c)
			}
			return out, c
		}
	}
	t.Fatalf("no secret cookie in %v", resp.Header)
	return out, nil
}

// peer is a test's websocket client: a goroutine reads every message into in, so
// that a wait that times out leaves the connection usable (gorilla's is not after a
// read deadline passes).
type peer struct {
	c    *websocket.Conn
	in   chan raw
	done chan struct{} // closed when the connection ends; err says how
	err  error
}

// raw is one server message as it came: its bytes and its decoded header.
type raw struct {
	data []byte
	h    sim.Header
}

func watch(c *websocket.Conn) *peer {
	p := &peer{c: c, in: make(chan raw, 1024), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				p.err = err
				return
			}
			m, err := sim.DecodeMessage(data)
			if err != nil {
				p.err = err
				return
			}
			p.in <- raw{data: data, h: m.Header}
		}
	}()
	return p
}

// next returns the next message within d.
func (p *peer) next(d time.Duration) (raw, error) {
	select {
	case m := <-p.in:
		return m, nil
	default:
	}
	select {
	case m := <-p.in:
		return m, nil
	case <-p.done:
		select {
		case m := <-p.in:
			return m, nil
		default:
		}
		return raw{}, p.err
	case <-time.After(d):
		return raw{}, fmt.Errorf("nothing within %v", d)
	}
}

// closed waits for the connection to end and returns its close error.
func (p *peer) closed(t testing.TB) error {
	t.Helper()
	select {
	case <-p.done:
		return p.err
	case <-time.After(10 * time.Second):
		t.Fatal("the connection did not close")
		return nil
	}
}

// dialWith opens a websocket with extra headers; it fails the test unless it opens.
func dialWith(t testing.TB, ts *httptest.Server, path string, h http.Header) *peer {
	t.Helper()
	return watch(dialRaw(t, ts, path, h))
}

// dialRaw is dialWith without the reading goroutine: nothing reads until the test
// does (a slow phone).
func dialRaw(t testing.TB, ts *httptest.Server, path string, h http.Header) *websocket.Conn {
	t.Helper()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Origin", ts.URL)
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+path, h)
	if err != nil {
		body := ""
		if resp != nil {
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
		}
		t.Fatalf("dial %s: %v %s", path, err, body)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// leadDial opens the instructor's lesson websocket on room code.
func leadDial(t testing.TB, ts *httptest.Server, path, code string, secret *http.Cookie) *peer {
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return dialWith(t, ts, path+sep+"room="+code, http.Header{"Cookie": {secret.Name + "=" + secret.Value}})
}

// do sends one command.
func (p *peer) do(t testing.TB, cmd sim.Command) { t.Helper(); send(t, p.c, cmd) }

// until reads messages until one satisfies ok and returns all read (it included).
func until(t testing.TB, p *peer, what string, ok func(sim.Header) bool) []raw {
	t.Helper()
	var got []raw
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, err := p.next(time.Until(deadline))
		if err != nil {
			t.Fatalf("waiting for %s: %v (after %d messages)", what, err, len(got))
		}
		got = append(got, m)
		if ok(m.h) {
			return got
		}
	}
}

// quiet checks that no message but room news arrives on p for d.
func quiet(t testing.TB, p *peer, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		m, err := p.next(time.Until(deadline))
		if err != nil {
			return
		}
		if m.h.Type != roomMessage {
			t.Fatalf("got a %s message (seq %d), want nothing", m.h.Type, m.h.Seq)
		}
	}
}

func isType(t sim.MessageType) func(sim.Header) bool {
	return func(h sim.Header) bool { return h.Type == t }
}

func roomCounts(following, exploring int) func(sim.Header) bool {
	return func(h sim.Header) bool {
		return h.Type == roomMessage && h.Meta["following"] == float64(following) && h.Meta["exploring"] == float64(exploring)
	}
}

// runMessages keeps the messages of the run (snapshots, frames, progress).
func runMessages(ms []raw) []raw {
	var out []raw
	for _, m := range ms {
		switch m.h.Type {
		case sim.SnapshotMessage, sim.FrameMessage, sim.TrainMessage:
			out = append(out, m)
		}
	}
	return out
}

// TestRoomFiftyFollowers: one instructor and 50 followers. Every message a follower
// gets is byte for byte the instructor's message of that seq (frames encoded once);
// each sees the seqs in order, missing at most coalesced frames and progress; and
// every follower and the instructor end on the same final snapshot.
func TestRoomFiftyFollowers(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws?hidden=4", created.Code, secret)
	leadGot := until(t, lead, "the instructor's first snapshot", isType(sim.SnapshotMessage))

	const n = 50
	followers := make([]*peer, n)
	for i := range followers {
		followers[i] = dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	}
	leadGot = append(leadGot, until(t, lead, "50 followers", roomCounts(n, 0))...)

	var wg sync.WaitGroup
	got := make([][]raw, n)
	finalKnown := make(chan struct{}) // closed once finalSeq is set
	var finalSeq uint64
	for i, c := range followers {
		wg.Go(func() {
			deadline := time.Now().Add(30 * time.Second)
			for {
				m, err := c.next(time.Until(deadline))
				if err != nil {
					t.Errorf("follower %d: %v after %d messages", i, err, len(got[i]))
					return
				}
				got[i] = append(got[i], m)
				if m.h.Type == sim.SnapshotMessage && m.h.Step == 2 && m.h.Params["hidden"] == "6" {
					<-finalKnown
					if m.h.Seq >= finalSeq {
						return
					}
				}
			}
		})
	}

	// The instructor steps, plays, trains, changes a parameter, and asks for a final snapshot.
	for range 3 {
		lead.do(t, stepCommand)
	}
	lead.do(t, sim.Command{Type: sim.PlayCommand, Speed: sim.MaxSpeed})
	leadGot = append(leadGot, until(t, lead, "the end of play", func(h sim.Header) bool { return h.Type == sim.FrameMessage && !h.Playing && h.Step == 8 })...)
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: 300})
	leadGot = append(leadGot, until(t, lead, "the trained snapshot", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 300 })...)
	lead.do(t, sim.Command{Type: sim.SetCommand, Params: map[string]string{"hidden": "6"}})
	lead.do(t, sim.Command{Type: sim.SeekCommand, Step: 1})
	lead.do(t, stepCommand)
	leadGot = append(leadGot, until(t, lead, "step 2", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 2 })...)
	lead.do(t, sim.Command{Type: sim.ResumeCommand, Seq: 0})
	last := until(t, lead, "the final snapshot", isType(sim.SnapshotMessage))
	leadGot = append(leadGot, last...)
	finalSeq = last[len(last)-1].h.Seq
	close(finalKnown)
	wg.Wait()
	if t.Failed() {
		return
	}

	bySeq := map[uint64][]byte{}
	check := func(who string, ms []raw) {
		ms = runMessages(ms)
		var prev uint64
		for i, m := range ms {
			if i > 0 && m.h.Seq <= prev {
				t.Fatalf("%s: seq %d after %d", who, m.h.Seq, prev)
			}
			prev = m.h.Seq
			if b, ok := bySeq[m.h.Seq]; ok && !bytes.Equal(b, m.data) {
				t.Fatalf("%s: message seq %d (%s) differs from another's of the same seq", who, m.h.Seq, m.h.Type)
			}
			bySeq[m.h.Seq] = m.data
		}
	}
	check("instructor", leadGot)
	leadRun := runMessages(leadGot)
	end := leadRun[len(leadRun)-1]
	snapshots := 0
	for _, m := range leadRun {
		if m.h.Type == sim.SnapshotMessage {
			snapshots++
		}
	}
	frames := 0
	for i, ms := range got {
		check(fmt.Sprintf("follower %d", i), ms)
		run := runMessages(ms)
		if !bytes.Equal(run[len(run)-1].data, end.data) {
			t.Errorf("follower %d ends on seq %d, want the instructor's final snapshot seq %d", i, run[len(run)-1].h.Seq, end.h.Seq)
		}
		if run[0].h.Type != sim.SnapshotMessage {
			t.Errorf("follower %d starts with a %s, want a snapshot", i, run[0].h.Type)
		}
		frames += len(run)
		for _, m := range run {
			if m.h.Session != "" {
				t.Fatalf("follower %d got the instructor's session name in a snapshot", i)
			}
		}
	}
	t.Logf("the instructor got %d run messages (%d snapshots); the 50 followers %.1f each on average", len(leadRun), snapshots, float64(frames)/n)
}

// TestRoomSlowFollower: a follower that reads one message every 300 ms (a phone on a
// weak signal) does not slow the instructor or another follower, its outbox stays
// within outboxSize (frames coalesce), and it ends on the same state as everyone.
func TestRoomSlowFollower(t *testing.T) {
	s, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "big")
	lead := leadDial(t, ts, "/lessons/big/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	fast := watch(dialRaw(t, ts, "/rooms/"+created.Code+"/ws", nil))
	slowConn := dialRaw(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, lead, "two followers", roomCounts(2, 0))
	isEnd := func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Seq > 1 && h.Step == 0 }
	reader := func(c *websocket.Conn, pause time.Duration, out chan<- []raw) {
		var ms []raw
		defer func() { out <- ms }()
		for {
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, data, err := c.ReadMessage()
			if err != nil {
				t.Errorf("follower: %v", err)
				return
			}
			m, _ := sim.DecodeMessage(data)
			ms = append(ms, raw{data: data, h: m.Header})
			if isEnd(m.Header) {
				return
			}
			time.Sleep(pause)
		}
	}
	fastGot, slowGot := make(chan []raw, 1), make(chan []raw, 1)
	go func() { // the fast follower's own goroutine reads as it comes
		var ms []raw
		defer func() { fastGot <- ms }()
		for {
			m, err := fast.next(30 * time.Second)
			if err != nil {
				t.Errorf("fast follower: %v", err)
				return
			}
			ms = append(ms, m)
			if isEnd(m.h) {
				return
			}
		}
	}()
	go reader(slowConn, 300*time.Millisecond, slowGot)
	// The slow follower is a page on a slow downlink: its pongs to the server's pings
	// wait behind the megabytes queued for it, but its own heartbeat goes up on time,
	// as socket.js sends it each second, and that is what tells the server it is there.
	beat := time.NewTicker(time.Second)
	beatDone := make(chan struct{})
	defer func() { close(beatDone); beat.Stop() }()
	go func() {
		for {
			select {
			case <-beatDone:
				return
			case <-beat.C:
				_ = slowConn.SetWriteDeadline(time.Now().Add(time.Second))
				if slowConn.WriteMessage(websocket.TextMessage, []byte(`{"v":1,"type":"ping"}`)) != nil {
					return
				}
			}
		}
	}()

	const frames = 60 // 256 KB each: 15 MB, more than the slow follower's socket buffers hold
	began := time.Now()
	for i := 1; i <= frames; i++ {
		lead.do(t, sim.Command{Type: sim.SeekCommand, Step: i})
		until(t, lead, fmt.Sprintf("frame %d", i), func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == i })
	}
	took := time.Since(began)
	lead.do(t, sim.Command{Type: sim.SeekCommand, Step: 0})
	until(t, lead, "frame 0", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 0 })
	lead.do(t, sim.Command{Type: sim.ResumeCommand, Seq: 0})
	end := until(t, lead, "the final snapshot", isType(sim.SnapshotMessage))
	t.Logf("the instructor stepped %d frames of 256 KB in %v beside a follower reading one message every 300 ms", frames, took)
	if took > 15*time.Second {
		t.Errorf("the instructor took %v for %d frames: the slow follower held it up", took, frames)
	}
	fastMs := <-fastGot

	rm := s.rooms.rooms[created.Code]
	rm.local.mu.Lock()
	for fl := range rm.local.followers {
		if _, peak, _ := fl.box.stats(); peak > outboxSize {
			t.Errorf("a follower's outbox held %d messages, more than %d", peak, outboxSize)
		}
	}
	rm.local.mu.Unlock()

	slowMs := <-slowGot
	if t.Failed() {
		return
	}
	last := end[len(end)-1].data
	if !bytes.Equal(slowMs[len(slowMs)-1].data, last) || !bytes.Equal(fastMs[len(fastMs)-1].data, last) {
		t.Errorf("the followers do not end on the instructor's final snapshot")
	}
	nSlow, nFast := len(runMessages(slowMs)), len(runMessages(fastMs))
	t.Logf("fast follower: %d run messages; slow follower: %d", nFast, nSlow)
	if nSlow >= nFast {
		t.Errorf("the slow follower got %d messages, the fast one %d: nothing was coalesced", nSlow, nFast)
	}
}

// TestRoomFollowerRefused: a follower's step, set, train or anything else is refused
// with an error saying why, the instructor's run does not change, and a follower
// cannot open the instructor's socket without the secret.
func TestRoomFollowerRefused(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	lead.do(t, stepCommand)
	until(t, lead, "step 1", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 1 })
	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, f, "the snapshot", isType(sim.SnapshotMessage))
	until(t, lead, "one follower", roomCounts(1, 0))

	for _, cmd := range []string{
		`{"v":1,"type":"step"}`, `{"v":1,"type":"set","params":{"hidden":"3"}}`,
		`{"v":1,"type":"train","steps":5}`, `{"v":1,"type":"play","speed":4}`, `{"v":1,"type":"view","view":{"present":true}}`, `not json`,
	} {
		if err := f.c.WriteMessage(websocket.TextMessage, []byte(cmd)); err != nil {
			t.Fatal(err)
		}
		m := until(t, f, "the refusal of "+cmd, isType(sim.ErrorMessage))
		msg, _ := m[len(m)-1].h.Meta["message"].(string)
		if !strings.Contains(msg, "following the instructor") || !strings.Contains(msg, "Explore on my own") {
			t.Errorf("%s: refused with %q, want a sentence about following", cmd, msg)
		}
	}
	quiet(t, lead, 300*time.Millisecond) // the run did not move
	lead.do(t, stepCommand)
	if m := until(t, lead, "a frame", isType(sim.FrameMessage)); m[len(m)-1].h.Step != 2 || m[len(m)-1].h.Params != nil {
		t.Errorf("after the refusals the instructor's step goes to %d, want 2", m[len(m)-1].h.Step)
	}
	until(t, f, "the follower sees step 2", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 2 })

	// Driving the room takes the instructor's secret: without it the socket is a
	// private page's, told why, and what it does reaches no follower.
	for _, cookie := range []string{"", roomCookie(created.Code) + "=" + strings.Repeat("A", 26)} {
		h := http.Header{}
		if cookie != "" {
			h.Set("Cookie", cookie)
		}
		other := dialWith(t, ts, "/lessons/tiny/ws?room="+created.Code, h)
		got := until(t, other, "the refusal", isType(roomMessage))
		if why, _ := got[len(got)-1].h.Meta["ended"].(string); !strings.Contains(why, "only the instructor's browser drives") {
			t.Errorf("cookie %q: told %q", cookie, why)
		}
		until(t, other, "its own snapshot", isType(sim.SnapshotMessage))
		other.do(t, stepCommand)
		until(t, other, "its own frame", isType(sim.FrameMessage))
		quiet(t, f, 200*time.Millisecond)
	}
	// Nor does the join answer, the follower's page or any message show the secret.
	page := get(t, ts, "/rooms/"+created.Code)
	if strings.Contains(page, secret.Value) {
		t.Error("the follower's page shows the instructor's secret")
	}
}

// get fetches path and returns the body.
func get(t testing.TB, ts *httptest.Server, path string) string {
	t.Helper()
	resp, err := http.Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestRoomLateJoiner: a follower who joins after the instructor has stepped and
// trained gets the current state at once, with the view the instructor published.
func TestRoomLateJoiner(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws?hidden=5", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: 20})
	until(t, lead, "trained", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 20 })
	for range 3 {
		lead.do(t, stepCommand)
	}
	until(t, lead, "step 3", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 3 })
	if err := lead.c.WriteMessage(websocket.TextMessage, []byte(`{"v":1,"type":"view","view":{"present":true,"spot":"gates"}}`)); err != nil {
		t.Fatal(err)
	}
	// A follower already in the room says when the room has the view (it is
	// broadcast to the class): the late joiner comes after that.
	early := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, early, "the view, broadcast", func(h sim.Header) bool { return h.Type == viewMessage && h.Meta["present"] == true })
	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	got := until(t, f, "a snapshot", isType(sim.SnapshotMessage))
	var view, status sim.Header
	for _, m := range got {
		switch m.h.Type {
		case viewMessage:
			view = m.h
		case roomMessage:
			status = m.h
		}
	}
	snap := got[len(got)-1].h
	if snap.Step != 3 || snap.Trained != 20 || snap.Params["hidden"] != "5" {
		t.Errorf("the late joiner's snapshot: step %d trained %d hidden %s, want step 3 trained 20 hidden 5", snap.Step, snap.Trained, snap.Params["hidden"])
	}
	if view.Meta["present"] != true || view.Meta["spot"] != "gates" {
		t.Errorf("the late joiner's view: %v, want present and the gates spotlight", view.Meta)
	}
	if status.Meta["instructor"] != "here" || status.Meta["lesson"] != "tiny" || status.Meta["code"] != created.Code {
		t.Errorf("the late joiner's room message: %v", status.Meta)
	}
}

// TestRoomForkAndRejoin: a follower forks the room (its page's socket names the room
// with fork=CODE): its own session starts from a copy of the room's run, trained
// weights and step included, without a single training step taken again; the fork
// changes, the room does not; and back in the class the follower gets the room's
// snapshot, byte for byte as before.
func TestRoomForkAndRejoin(t *testing.T) {
	s, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws?hidden=6&seed=4", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: 40})
	until(t, lead, "trained", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 40 })
	lead.do(t, sim.Command{Type: sim.SeekCommand, Step: 5})
	until(t, lead, "step 5", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 5 })

	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	got := until(t, f, "the room's snapshot", isType(sim.SnapshotMessage))
	roomSnap := got[len(got)-1]
	until(t, lead, "one follower", roomCounts(1, 0))

	// The fork: the page's own query, as room.js builds it from the follower's URL
	// (trained=N stays for sharing), and the room's code.
	inUse := s.memory.inUse()
	trainedBefore := tinyTrainSteps.Load()
	fork := dialWith(t, ts, "/lessons/tiny/ws?"+forkQuery(roomSnap.h, created.Code), nil)
	forked := until(t, fork, "the forked model", isType(sim.SnapshotMessage))
	if len(forked) != 1 || forked[0].h.Trained != 40 || forked[0].h.Session == "" || forked[0].h.Seq != 1 {
		t.Fatalf("the fork's first message: %+v (after %d others), want a snapshot trained 40, seq 1, with a session of its own", forked[len(forked)-1].h, len(forked)-1)
	}
	if n := tinyTrainSteps.Load() - trainedBefore; n != 0 {
		t.Fatalf("the fork took %d training steps, want none: it is a copy", n)
	}
	if charged, want := s.memory.inUse()-inUse, footprint(tinyLesson, true)+sessionOverhead; charged != want {
		t.Errorf("the fork's session holds %d bytes of the budget, want %d (a trained run's footprint)", charged, want)
	}
	a, _ := sim.DecodeMessage(roomSnap.data)
	b, _ := sim.DecodeMessage(forked[0].data)
	if len(a.Arrays) == 0 || len(a.Arrays) != len(b.Arrays) {
		t.Fatalf("the fork has %d arrays, the room %d", len(b.Arrays), len(a.Arrays))
	}
	for i := range a.Arrays {
		if a.Arrays[i].Name != b.Arrays[i].Name || !slices.Equal(a.Arrays[i].Data, b.Arrays[i].Data) {
			t.Fatalf("array %s of the fork differs from the room's", a.Arrays[i].Name)
		}
	}
	if b.Header.Step != 5 {
		t.Errorf("the fork is at step %d, want 5", b.Header.Step)
	}
	quiet(t, fork, 100*time.Millisecond) // no replay: no training progress, no error
	explorer := dialWith(t, ts, "/rooms/"+created.Code+"/ws?explore=1", nil)
	f.c.Close() // the page navigated to its fork
	until(t, lead, "one explorer", roomCounts(0, 1))

	// The fork is the student's own: it trains and changes, the room does not.
	fork.do(t, sim.Command{Type: sim.TrainCommand, Steps: 3})
	until(t, fork, "the fork trained on", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 43 })
	fork.do(t, sim.Command{Type: sim.SetCommand, Params: map[string]string{"hidden": "2"}})
	until(t, fork, "the fork's new model", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Params["hidden"] == "2" })
	fork.do(t, stepCommand)
	until(t, fork, "the fork's step", isType(sim.FrameMessage))
	quiet(t, lead, 200*time.Millisecond)
	quiet(t, explorer, 200*time.Millisecond) // an explorer hears only room news

	// Back to the class: the same snapshot as before, byte for byte.
	explorer.c.Close()
	back := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	again := until(t, back, "the room's snapshot", isType(sim.SnapshotMessage))
	if !bytes.Equal(again[len(again)-1].data, roomSnap.data) {
		t.Errorf("back in the class, the snapshot differs from the one before the fork")
	}
	until(t, lead, "one follower again", roomCounts(1, 0))
}

// forkQuery is the query of a follower's fork socket, from the room's snapshot h.
func forkQuery(h sim.Header, code string) string {
	return h.Params.Query() + fmt.Sprintf("&step=%d&trained=%d&fork=%s", h.Step, h.Trained, code)
}

// TestRoomForkNoRetraining: students fork a run while the instructor trains it: each
// fork is a copy of the run between two of the instructor's steps, and the only
// training steps the server takes are the instructor's (none is taken again for a
// fork), which carry on undisturbed.
func TestRoomForkNoRetraining(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws?hidden=32&input="+strings.Repeat("abc", 20), created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	const steps = 2000
	before := tinyTrainSteps.Load()
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: steps})
	until(t, lead, "training under way", isType(sim.TrainMessage))
	for i := range 3 {
		start := time.Now()
		fork := dialWith(t, ts, "/lessons/tiny/ws?fork="+created.Code, nil)
		got := until(t, fork, "the fork", isType(sim.SnapshotMessage))
		h := got[len(got)-1].h
		if len(got) != 1 || h.Trained <= 0 || h.Trained > steps || h.Params["hidden"] != "32" {
			t.Fatalf("fork %d: trained %d at hidden=%s after %d messages; want the instructor's run, trained 1 to %d steps", i, h.Trained, h.Params["hidden"], len(got)-1, steps)
		}
		quiet(t, fork, 50*time.Millisecond) // paused, not training, nothing replayed
		t.Logf("fork %d: a copy of the run at %d training steps in %v", i, h.Trained, time.Since(start))
		fork.c.Close()
	}
	until(t, lead, "the end of training", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == steps })
	if taken := tinyTrainSteps.Load() - before; taken != steps {
		t.Errorf("the server took %d training steps, want the instructor's %d only", taken, steps)
	}
}

// TestRoomForkFallback: a fork that cannot be honoured — a wrong code, a room on
// another lesson — builds the page from its query (trained=N trained again) and says
// why, in an error message after the first snapshot.
func TestRoomForkFallback(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	for _, c := range []struct {
		name, path, why string
		trained         int // the URL's trained=N, trained again
	}{
		{"a wrong code", "/lessons/tiny/ws?seed=3&trained=2&fork=ZZZZZZ", "there is no class with that code", 2},
		{"another lesson", "/lessons/big/ws?fork=" + created.Code, "the class is on another lesson now", 0},
	} {
		p := dialWith(t, ts, c.path, nil)
		got := until(t, p, c.name+": the reason", isType(sim.ErrorMessage))
		msg, _ := got[len(got)-1].h.Meta["message"].(string)
		if !strings.HasPrefix(msg, "The class's model could not be copied") || !strings.Contains(msg, c.why) {
			t.Errorf("%s: the page is told %q, want why (%s)", c.name, msg, c.why)
		}
		if c.trained == 0 {
			if got[0].h.Type != sim.SnapshotMessage {
				t.Errorf("%s: the first message is a %s, want the snapshot built from the query", c.name, got[0].h.Type)
			}
		} else { // the first snapshot gave way to the trained one in the outbox, or comes before it
			until(t, p, c.name+": the URL's model trained again", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == c.trained })
		}
		p.c.Close()
	}
}

// TestRoomForkInstructorAway: while the instructor's page reconnects, a fork copies
// the run the room keeps.
func TestRoomForkInstructorAway(t *testing.T) {
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, conns := dropper(t, s)
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws?seed=9", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: 7})
	until(t, lead, "trained", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 7 })
	lead.do(t, sim.Command{Type: sim.SeekCommand, Step: 3})
	until(t, lead, "step 3", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 3 })
	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, f, "the snapshot", isType(sim.SnapshotMessage))
	conns.closeAll()
	until(t, f, "the instructor is reconnecting", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "away" })

	before := tinyTrainSteps.Load()
	fork := dialWith(t, ts, "/lessons/tiny/ws?fork="+created.Code, nil)
	got := until(t, fork, "the fork", isType(sim.SnapshotMessage))
	if h := got[len(got)-1].h; h.Trained != 7 || h.Step != 3 || h.Params["seed"] != "9" || tinyTrainSteps.Load() != before {
		t.Errorf("the fork of the kept run: trained %d, step %d, seed %s, %d steps retrained; want 7, 3, 9, none", h.Trained, h.Step, h.Params["seed"], tinyTrainSteps.Load()-before)
	}
	quiet(t, fork, 100*time.Millisecond)
}

// TestRoomForkFull: a fork the memory budget has no room for is refused with 1013 and
// a reason that says so, before the room is asked; with room again, it opens.
func TestRoomForkFull(t *testing.T) {
	s, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	free := s.memory.limit - s.memory.inUse()
	if !s.memory.take(free) {
		t.Fatal("could not fill the budget")
	}
	p := dialWith(t, ts, "/lessons/tiny/ws?fork="+created.Code, nil)
	var ce *websocket.CloseError
	if err := p.closed(t); !errorsAs(err, &ce) || ce.Code != closeFull || ce.Text != closeForkFullText {
		t.Fatalf("a fork on a full server: got %v, want 1013 %q", err, closeForkFullText)
	}
	s.memory.give(free)
	p = dialWith(t, ts, "/lessons/tiny/ws?fork="+created.Code, nil)
	until(t, p, "the fork", isType(sim.SnapshotMessage))
	quiet(t, p, 100*time.Millisecond)
}

// dropper remembers the hijacked connections of the lesson sockets, to drop them as
// a failing Wi-Fi would.
func dropper(t testing.TB, s *Server) (*httptest.Server, *hijacked) {
	conns := &hijacked{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/lessons/") {
			w = &hijackRecorder{ResponseWriter: w, into: conns}
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, conns
}

// TestRoomInstructorReturns: the instructor's connection drops; the room keeps its
// run (trained, at its step); the followers are told the instructor is reconnecting;
// the instructor's page comes back into the same room and carries on.
func TestRoomInstructorReturns(t *testing.T) {
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, conns := dropper(t, s)
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	lead.do(t, sim.Command{Type: sim.TrainCommand, Steps: 10})
	until(t, lead, "trained", func(h sim.Header) bool { return h.Type == sim.SnapshotMessage && h.Trained == 10 })
	lead.do(t, sim.Command{Type: sim.SeekCommand, Step: 4})
	last := until(t, lead, "step 4", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 4 })
	seq := last[len(last)-1].h.Seq
	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, f, "the snapshot", isType(sim.SnapshotMessage))

	conns.closeAll()
	until(t, f, "the instructor is reconnecting", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "away" })
	late := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil) // a late joiner meanwhile still gets the state
	if m := until(t, late, "the kept snapshot", isType(sim.SnapshotMessage)); m[len(m)-1].h.Step != 4 || m[len(m)-1].h.Trained != 10 {
		t.Errorf("while the instructor is away a joiner gets step %d trained %d, want 4 and 10", m[len(m)-1].h.Step, m[len(m)-1].h.Trained)
	}

	back := leadDial(t, ts, fmt.Sprintf("/lessons/tiny/ws?seq=%d", seq), created.Code, secret)
	got := until(t, back, "the room's run", isType(sim.SnapshotMessage))
	h := got[len(got)-1].h
	if h.Step != 4 || h.Trained != 10 || h.Seq <= seq {
		t.Errorf("back: step %d trained %d seq %d, want step 4, trained 10, seq after %d", h.Step, h.Trained, h.Seq, seq)
	}
	until(t, f, "the instructor is back", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "here" })
	back.do(t, stepCommand)
	until(t, f, "the followers follow again", func(h sim.Header) bool { return h.Type == sim.FrameMessage && h.Step == 5 })

	// The instructor leaves and the class ends: the budget is all given back.
	back.c.Close()
	until(t, f, "the instructor is away", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["instructor"] == "away" })
	endRoom(t, ts, created.Code, secret)
	f.c.Close()
	late.c.Close()
	waitNoFollowers(t, s)
}

// endRoom ends a room as the instructor's "End the class" does.
func endRoom(t testing.TB, ts *httptest.Server, code string, secret *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/rooms/"+code+"/end", nil)
	req.Header.Set("Origin", ts.URL)
	req.AddCookie(secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("ending the room: %d", resp.StatusCode)
	}
}

// TestRoomIdleEnds: a room whose instructor stays away past RoomIdle ends; its
// followers are told so and closed with 4002 and the reason, and its code then gets
// the same answer as a wrong one.
func TestRoomIdleEnds(t *testing.T) {
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), testCatalog, Options{RoomIdle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ts, conns := dropper(t, s)
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	f := dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil)
	until(t, f, "the snapshot", isType(sim.SnapshotMessage))
	time.Sleep(500 * time.Millisecond) // longer than RoomIdle: an instructor who is here keeps the room
	conns.closeAll()
	got := until(t, f, "the end", func(h sim.Header) bool { return h.Type == roomMessage && h.Meta["ended"] != nil })
	if why, _ := got[len(got)-1].h.Meta["ended"].(string); !strings.Contains(why, "away too long") {
		t.Errorf("the room ended with %q", why)
	}
	err = f.closed(t)
	var ce *websocket.CloseError
	if !errorsAs(err, &ce) || ce.Code != closeRoomEnded || !strings.Contains(ce.Text, "away too long") {
		t.Errorf("the follower's socket ended with %v, want 4002 and the reason", err)
	}
	wrong := get(t, ts, "/join/ZZZZZZ")
	expired := get(t, ts, "/join/"+created.Code)
	if wrong != expired || !strings.Contains(expired, "there is no class with that code now") && !strings.Contains(expired, "There is no class with that code now") {
		t.Errorf("an expired code's page differs from a wrong one's:\n%s\n---\n%s", expired, wrong)
	}
	if s.rooms.count() != 0 {
		t.Errorf("%d rooms left", s.rooms.count())
	}
	lead.c.Close()
	waitNoFollowers(t, s)
}

// waitNoFollowers fails unless every follower's goroutine ends and the memory budget
// is all given back within a few seconds.
func waitNoFollowers(t testing.TB, s *Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		n := strings.Count(stacks, "unroll/web.(*follower)")
		if n == 0 && s.memory.inUse() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d follower goroutines and %d bytes of the budget left after the room ended", n, s.memory.inUse())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func errorsAs(err error, target **websocket.CloseError) bool {
	ce, ok := err.(*websocket.CloseError)
	if ok {
		*target = ce
	}
	return ok
}

// TestRoomCodes: a wrong code and an expired one get the same answer (status and
// body); codes use the alphabet without 0/O/1/I/l; guessing is limited per client.
func TestRoomCodes(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	if len(created.Code) != codeLength || strings.ContainsAny(created.Code, "0O1Il") {
		t.Errorf("code %q", created.Code)
	}
	status := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := status("/join/" + strings.ToLower(created.Code)); code != http.StatusOK {
		t.Errorf("the right code typed in lower case: %d, want the room's page", code)
	}
	// A student cannot end it; the instructor can.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/rooms/"+created.Code+"/end", nil)
	req.Header.Set("Origin", ts.URL)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a student ending the room: %v %v, want 403", resp, err)
	}
	endRoom(t, ts, created.Code, secret)
	wrongCode, wrongBody := status("/join/ZZZZZZ")
	endedCode, endedBody := status("/join/" + created.Code)
	if wrongCode != http.StatusNotFound || endedCode != wrongCode || endedBody != wrongBody {
		t.Errorf("wrong code: %d; ended code: %d; the bodies differ: %v", wrongCode, endedCode, endedBody != wrongBody)
	}
	if wsCode, _ := status("/rooms/" + created.Code + "/ws"); wsCode != http.StatusNotFound {
		t.Errorf("the ended room's socket: %d, want 404", wsCode)
	}
	// 10 wrong guesses pass (3 were spent above), then the client is told to wait.
	codes := []int{}
	for range guessBurst {
		c, _ := status("/join/QQQQQQ")
		codes = append(codes, c)
	}
	if codes[guessBurst-4] != http.StatusNotFound || codes[guessBurst-1] != http.StatusTooManyRequests {
		t.Errorf("wrong guesses answered %v, want 404 then 429", codes)
	}
	other, _ := startRoom(t, ts, "tiny")
	if c, _ := status("/join/" + other.Code); c != http.StatusTooManyRequests {
		t.Errorf("a right code from a client out of guesses: %d, want 429", c)
	}
}

// TestGuessLimiterPerClient: one client's guesses do not limit another, and the
// limiter forgets clients past maxGuessClients.
func TestGuessLimiterPerClient(t *testing.T) {
	g := newGuessLimiter()
	for range guessBurst {
		g.missed("10.0.0.1")
	}
	if !g.blocked("10.0.0.1") || g.blocked("10.0.0.2") {
		t.Errorf("blocked: %v %v, want the guesser only", g.blocked("10.0.0.1"), g.blocked("10.0.0.2"))
	}
	for i := range maxGuessClients + 10 {
		g.missed(fmt.Sprintf("client-%d", i))
	}
	if n := len(g.byClient); n > maxGuessClients {
		t.Errorf("%d clients remembered, more than %d", n, maxGuessClients)
	}
}

// TestRoomShutdown: every follower gets a room message and a close frame saying the
// server is shutting down.
func TestRoomShutdown(t *testing.T) {
	s, ts := roomServer(t, Options{})
	created, secret := startRoom(t, ts, "tiny")
	lead := leadDial(t, ts, "/lessons/tiny/ws", created.Code, secret)
	until(t, lead, "the first snapshot", isType(sim.SnapshotMessage))
	fs := []*peer{dialWith(t, ts, "/rooms/"+created.Code+"/ws", nil), dialWith(t, ts, "/rooms/"+created.Code+"/ws?explore=1", nil)}
	until(t, lead, "two in the room", roomCounts(1, 1))
	s.Shutdown()
	for i, f := range fs {
		until(t, f, "the news", func(h sim.Header) bool {
			return h.Type == roomMessage && h.Meta["ended"] == "the server is shutting down"
		})
		err := f.closed(t)
		var ce *websocket.CloseError
		if !errorsAs(err, &ce) || ce.Code != websocket.CloseGoingAway || ce.Text != "the server is shutting down" {
			t.Errorf("follower %d: %v, want 1001 the server is shutting down", i, err)
		}
	}
	waitNoFollowers(t, s)
}

// TestJoinHosts: the join URL's address is the instructor's unless it is a loopback
// name; then the LAN addresses (all of them, for the instructor to choose), when the
// server listens beyond loopback.
func TestJoinHosts(t *testing.T) {
	all := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	lan := []net.IP{net.ParseIP("192.168.1.20"), net.ParseIP("10.0.0.5")}
	for _, tc := range []struct {
		host     string
		listen   net.Addr
		lan      []net.IP
		want     []string
		loopback bool
	}{
		{"localhost:8080", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, lan, []string{"localhost:8080"}, true},
		{"192.168.1.20:8080", all, lan, []string{"192.168.1.20:8080"}, false},
		{"unroll.local:8080", all, lan, []string{"unroll.local:8080"}, false},
		{"localhost:8080", all, lan, []string{"192.168.1.20:8080", "10.0.0.5:8080"}, false},
		{"127.0.0.1:8080", all, lan[:1], []string{"192.168.1.20:8080"}, false},
		{"[::1]:8080", all, lan[:1], []string{"192.168.1.20:8080"}, false},
		{"localhost:8080", &net.TCPAddr{IP: net.ParseIP("192.168.1.20"), Port: 9000}, lan, []string{"192.168.1.20:9000"}, false},
		{"localhost:8080", all, nil, []string{"localhost:8080"}, true},
	} {
		got, loopback := joinHosts(tc.host, tc.listen, tc.lan)
		if !slices.Equal(got, tc.want) || loopback != tc.loopback {
			t.Errorf("%s on %v: %v %v, want %v %v", tc.host, tc.listen, got, loopback, tc.want, tc.loopback)
		}
	}
}

// TestRoomLoopbackPanel: a server on loopback says so in the join answer, with the
// command to listen beyond.
func TestRoomLoopbackPanel(t *testing.T) {
	_, ts := roomServer(t, Options{})
	created, _ := startRoom(t, ts, "tiny")
	host := strings.TrimPrefix(ts.URL, "http://")
	if !created.LoopbackOnly || created.Hint != listenHint || len(created.Join) != 1 || created.Join[0].URL != ts.URL+"/join/"+created.Code || created.Join[0].Host != host {
		t.Errorf("join answer on loopback: %+v", created)
	}
}
