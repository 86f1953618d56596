package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"unroll/internal/testkit"
	"unroll/sim"
)

func TestSocketSnapshotOnConnect(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?hidden=4&step=3&unknown=1")
	m := receive(t, c)
	h := m.Header
	if h.Type != sim.SnapshotMessage || h.Step != 3 || h.Steps != 8 || h.Params["hidden"] != "4" || h.Seq != 1 {
		t.Fatalf("got %s step %d/%d hidden %s seq %d, want snapshot step 3/8 hidden 4 seq 1", h.Type, h.Step, h.Steps, h.Params["hidden"], h.Seq)
	}
	if len(m.Arrays) != 12 || m.Arrays[11].Name != "H@3" || len(m.Arrays[11].Data) != 4 {
		t.Errorf("got %d arrays, want R, Z, H_tilde, H for steps 1…3 ending with H@3 of 4 units", len(m.Arrays))
	}
	c.Close()
	waitNoSessions(t, s)
}

func TestSocketBadQueryValue(t *testing.T) {
	_, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?hidden=99")
	if m := receive(t, c); m.Header.Type != sim.SnapshotMessage || m.Header.Params["hidden"] != "8" {
		t.Fatalf("got %s hidden=%s, want a snapshot with the default hidden=8", m.Header.Type, m.Header.Params["hidden"])
	}
	m := receive(t, c)
	if msg, _ := m.Header.Meta["message"].(string); m.Header.Type != sim.ErrorMessage || !strings.Contains(msg, "between 1 and 64") {
		t.Errorf("got %s %v, want an error naming the range", m.Header.Type, m.Header.Meta)
	}
}

func TestSocketCommands(t *testing.T) {
	_, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws")
	receive(t, c) // snapshot
	tests := []struct {
		cmd      sim.Command
		wantType sim.MessageType
		wantStep int
	}{
		{sim.Command{Type: sim.StepCommand}, sim.FrameMessage, 1},
		{sim.Command{Type: sim.StepCommand}, sim.FrameMessage, 2},
		{sim.Command{Type: sim.BackCommand}, sim.FrameMessage, 1},
		{sim.Command{Type: sim.SeekCommand, Step: 7}, sim.FrameMessage, 7},
		{sim.Command{Type: sim.SetCommand, Params: map[string]string{"hidden": "5"}}, sim.SnapshotMessage, 7},
		{sim.Command{Type: sim.ResetCommand}, sim.SnapshotMessage, 0},
		{sim.Command{Type: sim.SeekCommand, Step: 9}, sim.ErrorMessage, 0},
		{sim.Command{Type: sim.PauseCommand}, sim.FrameMessage, 0},
		{sim.Command{Type: sim.ResumeCommand, Seq: 100}, sim.SnapshotMessage, 0},
	}
	var seq uint64 = 1
	for _, tt := range tests {
		send(t, c, tt.cmd)
		m := receive(t, c)
		if m.Header.Type != tt.wantType || m.Header.Step != tt.wantStep {
			t.Errorf("%s: got %s at step %d, want %s at step %d", tt.cmd.Type, m.Header.Type, m.Header.Step, tt.wantType, tt.wantStep)
		}
		if m.Header.Seq <= seq {
			t.Errorf("%s: got seq %d after %d, want increasing", tt.cmd.Type, m.Header.Seq, seq)
		}
		seq = m.Header.Seq
	}
	if seq != 101 {
		t.Errorf("after resume 100: got seq %d, want 101", seq)
	}

	// play runs to the last step at 60 steps/s and pauses there.
	send(t, c, sim.Command{Type: sim.PlayCommand, Speed: 60})
	var steps []int
	for {
		m := receive(t, c)
		steps = append(steps, m.Header.Step)
		if !m.Header.Playing {
			break
		}
	}
	if !slices.Equal(steps, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("play: got frames at steps %v, want 0 (the answer) then 1…8", steps)
	}

	// train: progress then a snapshot.
	send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 5})
	var types []sim.MessageType
	for {
		m := receive(t, c)
		types = append(types, m.Header.Type)
		if m.Header.Type == sim.SnapshotMessage {
			break
		}
		if m.Header.Type != sim.TrainMessage || m.Header.Meta["of"] != 5.0 {
			t.Fatalf("train: got %s %v, want train progress of 5", m.Header.Type, m.Header.Meta)
		}
	}
	if len(types) < 2 || types[len(types)-2] != sim.TrainMessage {
		t.Errorf("train: got %v, want train messages before the snapshot", types)
	}
}

func TestSocketBadCommands(t *testing.T) {
	_, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws")
	receive(t, c)
	tests := []struct {
		typ     int
		body    string
		want    string
		command string
	}{
		{websocket.TextMessage, `{"v":1,"type":"step"`, "not a valid JSON object", ""},
		{websocket.TextMessage, `{"v":1,"type":"fly"}`, `Unknown command "fly"`, ""},
		{websocket.TextMessage, `{"v":1,"type":"seek"}`, `needs a "step" field`, "seek"},
		{websocket.TextMessage, `{"v":1,"type":"play","speed":1e-10}`, "from 0.01 to 60", "play"}, // once a 1011: 1 s/speed overflowed the ticker
		{websocket.TextMessage, `{"v":1,"type":"set","params":{"colour":"red"}}`, `no parameter "colour"`, "set"},
		{websocket.TextMessage, `{"v":1,"type":"set","params":{"input":"xyz"}}`, "only use the letters", "set"},
		{websocket.BinaryMessage, `{"v":1,"type":"step"}`, "JSON text messages", ""},
	}
	for _, tt := range tests {
		if err := c.WriteMessage(tt.typ, []byte(tt.body)); err != nil {
			t.Fatal(err)
		}
		m := receive(t, c)
		msg, _ := m.Header.Meta["message"].(string)
		cmd, _ := m.Header.Meta["command"].(string)
		if m.Header.Type != sim.ErrorMessage || !strings.Contains(msg, tt.want) || cmd != tt.command {
			t.Errorf("%s: got %s %q (command %q), want an error containing %q (command %q)", tt.body, m.Header.Type, msg, cmd, tt.want, tt.command)
		}
	}
	send(t, c, sim.Command{Type: sim.StepCommand})
	if m := receive(t, c); m.Header.Type != sim.FrameMessage || m.Header.Step != 1 {
		t.Errorf("after the errors: got %s at step %d, want the frame of step 1 (socket still open)", m.Header.Type, m.Header.Step)
	}
}

func TestSocketOversize(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws")
	receive(t, c)
	big := `{"v":1,"type":"step","x":"` + strings.Repeat("a", sim.MaxCommandBytes) + `"}`
	if err := c.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	if code := closeCode(t, c); code != websocket.CloseMessageTooBig {
		t.Errorf("got close %d, want 1009", code)
	}
	waitNoSessions(t, s)
}

func TestSocketCrossOrigin(t *testing.T) {
	s, ts := newLessonServer(t)
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/lessons/tiny/ws"
	for _, origin := range []string{"http://evil.example", "null", "file://" + strings.TrimPrefix(ts.URL, "http://")} {
		_, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {origin}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("origin %s: got %v, %v; want 403", origin, err, resp)
		}
		body, _ := io.ReadAll(resp.Body)
		var e struct{ Error string }
		if json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "own pages") {
			t.Errorf("origin %s: got body %s, want a JSON error", origin, body)
		}
	}
	if n := len(s.sessions.all()); n != 0 {
		t.Errorf("got %d sessions after refused upgrades, want 0", n)
	}
	// Unknown lesson: 404 before any upgrade.
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/lessons/nope/ws", nil)
	if err == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown lesson: got %v, %v; want 404", err, resp)
	}
}

// TestSocketSlowReader plays 256 KB frames at 60 per second to a page that reads
// nothing for 1.5 s: the socket buffers fill, the writer blocks, and the outbox must
// stay bounded, dropping frames for newer ones.
func TestSocketSlowReader(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/big/ws")
	send(t, c, sim.Command{Type: sim.PlayCommand, Speed: 60})
	time.Sleep(1500 * time.Millisecond)
	sessions := s.sessions.all()
	if len(sessions) != 1 {
		t.Fatalf("got %d sessions, want 1", len(sessions))
	}
	length, peak, coalesced := sessions[0].box.stats()
	t.Logf("outbox after 1.5 s unread: length %d, peak %d, coalesced %d", length, peak, coalesced)
	if peak > outboxSize || length > outboxSize {
		t.Errorf("got outbox peak %d, want ≤ %d", peak, outboxSize)
	}
	if coalesced == 0 {
		t.Errorf("got no coalesced frames: the writer never blocked, the test proves nothing")
	}
	// The page catches up: frames arrive in order, with gaps where frames were dropped.
	var last uint64
	for range 10 {
		m := receive(t, c)
		if m.Header.Seq <= last {
			t.Fatalf("got seq %d after %d, want increasing", m.Header.Seq, last)
		}
		last = m.Header.Seq
	}
}

func TestSocketDisconnectMidPlay(t *testing.T) {
	s, ts := newLessonServer(t)
	for _, slug := range []string{"tiny", "big"} {
		c := dial(t, ts, "/lessons/"+slug+"/ws")
		receive(t, c)
		send(t, c, sim.Command{Type: sim.PlayCommand, Speed: 60})
		receive(t, c)
		c.NetConn().Close() // the tab closes without a close frame
	}
	waitNoSessions(t, s)
}

func TestSocketCleanClose(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws")
	receive(t, c)
	_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	if code := closeCode(t, c); code != websocket.CloseNormalClosure {
		t.Errorf("got close %d, want the 1000 echoed", code)
	}
	waitNoSessions(t, s)
}

func TestSocketPanicIsolated(t *testing.T) {
	s, ts := newLessonServer(t)
	other := dial(t, ts, "/lessons/tiny/ws")
	receive(t, other)
	c := dial(t, ts, "/lessons/boom/ws")
	receive(t, c)
	send(t, c, sim.Command{Type: sim.SeekCommand, Step: 2})
	m := receive(t, c)
	if msg, _ := m.Header.Meta["message"].(string); m.Header.Type != sim.ErrorMessage || !strings.Contains(msg, "failed") || m.Header.Seq != 2 {
		t.Errorf("got %s seq %d %v, want error seq 2 saying the model failed", m.Header.Type, m.Header.Seq, m.Header.Meta)
	}
	if code := closeCode(t, c); code != websocket.CloseInternalServerErr {
		t.Errorf("got close %d, want 1011", code)
	}
	send(t, other, sim.Command{Type: sim.StepCommand})
	if m := receive(t, other); m.Header.Type != sim.FrameMessage {
		t.Errorf("the other session: got %s, want a frame (it carries on)", m.Header.Type)
	}
	other.Close()
	waitNoSessions(t, s)
}

// TestSocketResume: a page whose connection broke reconnects naming its session and
// its last seq (as socket.js does) and gets one snapshot of the run it left, trained
// weights included, numbered after what it drew — not a rebuild from its URL.
func TestSocketResume(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?hidden=5")
	name := receive(t, c).Header.Session
	if name == "" {
		t.Fatal("the first snapshot names no session")
	}
	send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 5})
	for receive(t, c).Header.Type != sim.SnapshotMessage {
	}
	var last sim.Message
	for range 3 {
		send(t, c, sim.Command{Type: sim.StepCommand})
		last = receive(t, c)
	}
	c.NetConn().Close() // the Wi-Fi drops: no close frame
	waitParked(t, s, 1)

	// The URL's step is stale on purpose: the parked run, not the URL, says where the page was.
	c2 := dial(t, ts, fmt.Sprintf("/lessons/tiny/ws?hidden=5&step=1&session=%s&seq=%d", name, last.Header.Seq))
	m := receive(t, c2)
	if m.Header.Type != sim.SnapshotMessage || m.Header.Step != 3 || m.Header.Seq != last.Header.Seq+1 || m.Header.Session != name {
		t.Fatalf("got %s at step %d seq %d session %q, want a snapshot at step 3, seq %d, session %q",
			m.Header.Type, m.Header.Step, m.Header.Seq, m.Header.Session, last.Header.Seq+1, name)
	}
	h := m.Arrays[len(m.Arrays)-1]
	if h.Name != "H@3" || !slices.Equal(h.Data, last.Arrays[3].Data) {
		t.Errorf("got %s = %v, want the trained run's H@3 = %v", h.Name, h.Data, last.Arrays[3].Data)
	}
	untrained := dial(t, ts, "/lessons/tiny/ws?hidden=5&step=3")
	if u := receive(t, untrained); slices.Equal(u.Arrays[len(u.Arrays)-1].Data, h.Data) {
		t.Errorf("a fresh run from the URL has the same H@3 as the trained one: the test shows nothing")
	}
	send(t, c2, stepCommand)
	if m := receive(t, c2); m.Header.Type != sim.FrameMessage || m.Header.Step != 4 || m.Header.Seq != last.Header.Seq+2 {
		t.Errorf("after resuming: got %s at step %d seq %d, want the frame of step 4, seq %d", m.Header.Type, m.Header.Step, m.Header.Seq, last.Header.Seq+2)
	}
	if n, _ := s.parked.stats(); n != 0 {
		t.Errorf("%d runs still parked after the page took its own back, want 0", n)
	}

	// The resumed session is the same run under the same name: a second reconnect,
	// before the server notices the drop, takes it over again.
	c3 := dial(t, ts, fmt.Sprintf("/lessons/tiny/ws?hidden=5&session=%s&seq=%d", name, last.Header.Seq+2))
	if m := receive(t, c3); m.Header.Type != sim.SnapshotMessage || m.Header.Step != 4 || m.Header.Session != name {
		t.Errorf("second reconnect: got %s at step %d session %q, want the run at step 4 under %q", m.Header.Type, m.Header.Step, m.Header.Session, name)
	}
	if code := closeCode(t, c2); code != closeReplaced {
		t.Errorf("the first reconnect's socket: got close %d, want %d", code, closeReplaced)
	}
}

// TestSocketResumeUnknownSession: after a server restart (or parkTTL) the run is gone;
// the page gets a run built from its URL, still numbered after its last seq.
func TestSocketResumeUnknownSession(t *testing.T) {
	_, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws?hidden=5&step=3&session=gone&seq=41")
	m := receive(t, c)
	if m.Header.Type != sim.SnapshotMessage || m.Header.Step != 3 || m.Header.Seq != 42 || m.Header.Session == "gone" {
		t.Errorf("got %s at step %d seq %d session %q, want a new session's snapshot at step 3 with seq 42", m.Header.Type, m.Header.Step, m.Header.Seq, m.Header.Session)
	}
}

// TestSocketTakeover: a page may reconnect before the server notices its old
// connection is dead; the old session is closed with 4001 and its (trained) run
// handed over.
func TestSocketTakeover(t *testing.T) {
	s, ts := newLessonServer(t)
	old := dial(t, ts, "/lessons/tiny/ws")
	name := receive(t, old).Header.Session
	send(t, old, sim.Command{Type: sim.TrainCommand, Steps: 1})
	for receive(t, old).Header.Type != sim.SnapshotMessage {
	}
	send(t, old, sim.Command{Type: sim.SeekCommand, Step: 5})
	last := receive(t, old)
	code := make(chan int, 1)
	go func() { code <- closeCode(t, old) }()
	c := dial(t, ts, fmt.Sprintf("/lessons/tiny/ws?session=%s&seq=%d", name, last.Header.Seq))
	if m := receive(t, c); m.Header.Type != sim.SnapshotMessage || m.Header.Step != 5 || m.Header.Seq != last.Header.Seq+1 {
		t.Errorf("got %s at step %d seq %d, want the old run's snapshot at step 5, seq %d", m.Header.Type, m.Header.Step, m.Header.Seq, last.Header.Seq+1)
	}
	if got := <-code; got != closeReplaced {
		t.Errorf("the old connection: got close %d, want %d", got, closeReplaced)
	}
	testkit.Eventually(t, 5*time.Second, "one open session (the old one ends)", func() bool { return len(s.sessions.all()) == 1 })
}

// TestSocketClosedPageParksNothing: a page that closes its socket (navigating away)
// and a cross-origin page naming a session leave nothing parked and take nothing.
func TestSocketClosedPageParksNothing(t *testing.T) {
	s, ts := newLessonServer(t)
	c := dial(t, ts, "/lessons/tiny/ws")
	receive(t, c)
	_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "page closed"))
	closeCode(t, c)
	waitNoSessions(t, s)
	if n, _ := s.parked.stats(); n != 0 {
		t.Errorf("got %d parked runs after a normal close, want 0", n)
	}
}

// waitParked waits until n runs are parked.
func waitParked(t *testing.T, s *Server, n int) {
	t.Helper()
	testkit.Eventually(t, 5*time.Second, fmt.Sprintf("%d parked runs", n), func() bool { got, _ := s.parked.stats(); return got == n })
}

func TestShutdownClosesSockets(t *testing.T) {
	s, ts := newLessonServer(t)
	conns := []*websocket.Conn{dial(t, ts, "/lessons/tiny/ws"), dial(t, ts, "/lessons/big/ws")}
	for _, c := range conns {
		receive(t, c)
	}
	send(t, conns[1], sim.Command{Type: sim.PlayCommand, Speed: 60})
	var wg sync.WaitGroup
	codes := make([]int, len(conns))
	for i, c := range conns {
		wg.Go(func() { codes[i] = closeCode(t, c) })
	}
	start := time.Now()
	s.Shutdown()
	took := time.Since(start)
	wg.Wait()
	for i, code := range codes {
		if code != websocket.CloseGoingAway {
			t.Errorf("socket %d: got close %d, want 1001", i, code)
		}
	}
	if took > shutdownWait {
		t.Errorf("Shutdown took %v, want ≤ %v", took, shutdownWait)
	}
	waitNoSessions(t, s)
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/lessons/tiny/ws", nil)
	if err == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after shutdown: got %v, %v; want 503", err, resp)
	}
}

// TestSocketReplaysTrained: a URL with trained=N (a page that trained its model) gets
// the same model back: the server trains it again from the seed, with progress shown.
func TestSocketReplaysTrained(t *testing.T) {
	_, ts := newLessonServer(t)
	trainedBy := func(path string, cmd bool) sim.Message {
		c := dial(t, ts, path)
		first := receive(t, c)
		if cmd {
			send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 3})
		} else if first.Header.Trained != 0 {
			t.Errorf("%s: the first snapshot says trained %d, want 0 (before the replay)", path, first.Header.Trained)
		}
		for {
			m := receive(t, c)
			if m.Header.Type == sim.SnapshotMessage {
				return m
			}
			if m.Header.Type != sim.TrainMessage {
				t.Fatalf("%s: got %s %v, want training progress", path, m.Header.Type, m.Header.Meta)
			}
		}
	}
	want := trainedBy("/lessons/tiny/ws?step=4", true)
	got := trainedBy("/lessons/tiny/ws?step=4&trained=3", false)
	if got.Header.Trained != 3 || want.Header.Trained != 3 || got.Header.Step != 4 {
		t.Fatalf("trained: got %d at step %d (replayed) and %d (commanded), want 3 at step 4", got.Header.Trained, got.Header.Step, want.Header.Trained)
	}
	if !reflect.DeepEqual(got.Arrays, want.Arrays) {
		t.Errorf("the replayed model's snapshot differs from the one trained by a command")
	}
	c := dial(t, ts, "/lessons/tiny/ws?trained=lots")
	receive(t, c)
	if m := receive(t, c); m.Header.Type != sim.ErrorMessage || !strings.Contains(m.Header.Meta["message"].(string), "Trained must be a whole number") {
		t.Errorf("trained=lots: got %s %v, want an error naming trained", m.Header.Type, m.Header.Meta)
	}
}
