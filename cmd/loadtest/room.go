package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"unroll/sim"
)

// A room (docs/api.md and docs/protocol.md, "Rooms"): an instructor's page leads it
// and its followers' pages draw the same messages, with the same seq. Issue 12's (b)
// is one room of 500 followers; its (c) has a room beside the students who train.
const (
	roomLesson = "gru" // the lesson the instructor plays to the class
	// classFollowers is the room of scenario (c): a class following the instructor
	// while other students train on their own.
	classFollowers = 30
	// finalWait bounds each wait of a room's end: the instructor's page for the answer
	// to its pause, a follower for the instructor's final frame. A frame that has not
	// arrived seconds after it was sent was left behind.
	finalWait = 5 * time.Second
	// maxAnswerBytes bounds what the generator reads of an HTTP answer: the room's
	// creation is a few hundred bytes, an error a sentence.
	maxAnswerBytes = 64 << 10
)

// roomRun is one run's room, shared by its instructor's and its followers' groups:
// the instructor's group creates it before anyone connects (open), the followers'
// paths name it, and at the end the instructor's page publishes the room's final
// state (settle) for the followers to check theirs against.
type roomRun struct {
	lesson string
	base   string       // the server, set by open
	code   string       // the join code, set by open before any client connects
	cookie *http.Cookie // the room's secret, as the server set it

	settled chan struct{} // closed by settle
	once    sync.Once
	final   header // the room's last run message, once settled; Seq 0: the instructor's page could not settle
}

func newRoomRun(lesson string) *roomRun {
	return &roomRun{lesson: lesson, settled: make(chan struct{})}
}

// groups are the room's clients: its instructor's page, then n followers (who need
// the room to exist: groups connect in order).
func (rm *roomRun) groups(n int) []group {
	return []group{
		{name: "instructor", count: 1, path: rm.instructorPath, header: rm.header, required: true,
			open: rm.open, close: rm.end, role: func() role { return &instructor{rm: rm} }},
		{name: "followers", count: n, path: rm.followerPath, role: func() role { return follower{rm} }},
	}
}

// open creates the room as the instructor's page does: POST /api/v1/rooms from the
// server's own origin; the answer's cookie holds the room's secret.
func (rm *roomRun) open(ctx context.Context, base string) error {
	rm.base = base
	resp, err := rm.post(ctx, "/api/v1/rooms", fmt.Sprintf(`{"lesson": %q}`, rm.lesson))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("loadtest: POST /api/v1/rooms: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	var created struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(body, &created); err != nil || created.Code == "" {
		return fmt.Errorf("loadtest: POST /api/v1/rooms answered %q (%v), want the room's code", body, err)
	}
	rm.code = created.Code
	for _, c := range resp.Cookies() {
		if c.Name == "unroll_room_"+rm.code {
			rm.cookie = c
		}
	}
	if rm.cookie == nil {
		return fmt.Errorf("loadtest: POST /api/v1/rooms set no cookie unroll_room_%s", rm.code)
	}
	return nil
}

// end ends the room as its instructor does (POST /api/v1/rooms/{code}/end with the
// cookie), once every client has closed: a running server is left without it.
func (rm *roomRun) end(ctx context.Context, _ string) error {
	resp, err := rm.post(ctx, "/api/v1/rooms/"+rm.code+"/end", "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("loadtest: ending room %s: HTTP %d: %s", rm.code, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}

// post sends a POST as the instructor's browser would: from the server's own
// origin, with the room's cookie once it has one.
func (rm *roomRun) post(ctx context.Context, path, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rm.base+path, strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", rm.base)
	if rm.cookie != nil {
		req.AddCookie(rm.cookie)
	}
	resp, err := (&http.Client{Timeout: handshakeWait}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("loadtest: POST %s: %w", path, err)
	}
	return resp, nil
}

// header is what the instructor's page sends with its handshake: the room's cookie
// and the server's own origin.
func (rm *roomRun) header(int) http.Header {
	h := http.Header{}
	h.Set("Origin", rm.base)
	h.Set("Cookie", rm.cookie.Name+"="+rm.cookie.Value)
	return h
}

// instructorPath is the instructor's lesson socket, leading the room.
func (rm *roomRun) instructorPath(int) string {
	return "/lessons/" + rm.lesson + "/ws?room=" + rm.code
}

// followerPath is a follower's socket.
func (rm *roomRun) followerPath(int) string { return "/rooms/" + rm.code + "/ws" }

// settle publishes the room's final state (the first call wins).
func (rm *roomRun) settle(h header) {
	rm.once.Do(func() {
		rm.final = h
		close(rm.settled)
	})
}

// instructor leads the room: it plays the lesson at playSpeed, and again from the
// start each time it ends, as an instructor running an example for the class. At the
// end it pauses and then asks for a snapshot (resume): the server answers commands in
// order, so that snapshot comes after the pause's frame and nothing follows it; it is
// the room's final state.
type instructor struct {
	rm     *roomRun
	mu     sync.Mutex // a replay (the reader) is sent before the end's pause, or not at all
	ending bool
}

func (in *instructor) begin(c *client) error {
	return c.send(sim.Command{Type: sim.PlayCommand, Speed: playSpeed})
}

func (in *instructor) message(c *client, h *header) {
	if h.Type == sim.FrameMessage && !h.Playing && h.Step == h.Steps {
		in.mu.Lock()
		defer in.mu.Unlock()
		if !in.ending {
			_ = c.send(sim.Command{Type: sim.PlayCommand, Speed: playSpeed}) // a failed send shows as a drop
		}
	}
}

func (in *instructor) end(c *client) error {
	in.mu.Lock()
	in.ending = true
	in.mu.Unlock()
	before := c.latest.Load().Seq
	err := c.send(sim.Command{Type: sim.PauseCommand})
	if err == nil {
		err = c.send(sim.Command{Type: sim.ResumeCommand, Seq: before})
	}
	if err != nil {
		in.rm.settle(header{})
		return err
	}
	h, ok := waitFor(c, func(h *header) bool { return h.Type == sim.SnapshotMessage && h.Seq > before })
	if !ok {
		in.rm.settle(header{})
		return fmt.Errorf("loadtest: the instructor's page got no snapshot within %v of its pause and resume", finalWait)
	}
	in.rm.settle(*h)
	return nil
}

// follower follows the room and sends nothing. At the end it waits for the
// instructor's final state, then up to finalWait for its own page to show it: a
// message at least as new, at the same step (a follower that fell behind may be
// given a fresher snapshot of the same state).
type follower struct{ rm *roomRun }

func (follower) begin(*client) error { return nil }

func (follower) message(*client, *header) {}

func (f follower) end(c *client) error {
	select {
	case <-f.rm.settled:
	case <-time.After(2 * finalWait): // the instructor's page waits finalWait itself
		return nil
	}
	want := f.rm.final
	if want.Seq == 0 {
		return nil // the instructor's page failed, and says so
	}
	h, ok := waitFor(c, func(h *header) bool { return h.Seq >= want.Seq })
	c.onFinal = ok && h.Step == want.Step && h.Steps == want.Steps
	return nil
}

// waitFor waits up to finalWait for the client's latest run message to satisfy
// done, and returns it.
func waitFor(c *client, done func(*header) bool) (*header, bool) {
	timeout := time.NewTimer(finalWait)
	defer timeout.Stop()
	for {
		h := c.latest.Load()
		if done(h) {
			return h, true
		}
		select {
		case <-c.moved:
		case <-c.done: // the reader has ended: nothing more comes
			h = c.latest.Load()
			return h, done(h)
		case <-timeout.C:
			return h, false
		}
	}
}
