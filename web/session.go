package web

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"unroll/lessons"
	"unroll/sim"
)

// Timing and sizes of a lesson websocket (docs/architecture.md, "A websocket session").
const (
	handshakeTimeout = 10 * time.Second // an upgrade that takes longer is not a browser
	writeWait        = 3 * time.Second  // a write that takes longer means the page is gone
	// pongWait is how long a connection may be silent — no pong to our pings, no
	// message, no heartbeat — before the server counts the page gone (issue 22: both
	// sides notice a dead connection within 5 s). A browser answers pings by itself,
	// even in a background tab whose timers are throttled, so silence means the
	// network, not a busy page.
	pongWait = 4 * time.Second
	// pingPeriod: four pings per pongWait, so three lost or late pongs are not fatal.
	// A ping is 2 bytes on the wire and its pong 6: 500 followers cost 500 small
	// writes and reads a second (BenchmarkHeartbeat, docs/protocol.md "Heartbeat").
	pingPeriod    = pongWait / 4
	closeGrace    = time.Second              // how long to wait for the page's reply to our close
	shutdownWait  = 2*writeWait + closeGrace // every session can flush and close; under cmd/server's 10 s
	outboxSize    = 8                        // unsent messages; frames coalesce, so this is rarely reached
	commandBuffer = 4                        // decoded commands waiting for the simulator
)

// Close codes of docs/protocol.md beyond gorilla's names.
const (
	noCloseFrame  = -1   // the close frame was already sent (gorilla's 1009, the echo of the page's close)
	closeReplaced = 4001 // the page reconnected on another connection, which now owns the run
)

// upgrader accepts lesson websockets from pages of this server only.
var upgrader = websocket.Upgrader{
	HandshakeTimeout: handshakeTimeout,
	CheckOrigin:      sameOrigin,
	Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
		msg := strings.TrimPrefix(reason.Error(), "websocket: ")
		if status == http.StatusForbidden {
			msg = "websocket connections are accepted only from this server's own pages"
		}
		writeError(w, status, msg)
	},
}

// Close codes and reasons for a session the server will not open.
const (
	closeFull         = websocket.CloseTryAgainLater // 1013: the page shows the reason and tries again
	closeFullText     = "the server is full: it has no memory for another lesson now; this page tries again by itself"
	closeForkFullText = "the server is full: it has no memory for your own copy of the class's model now; this page tries again by itself"
)

// refuseFull closes a session the budget has no room for (closeFull, with why).
func refuseFull(conn *websocket.Conn, text string) {
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(closeFull, text), time.Now().Add(writeWait))
	_ = conn.Close()
}

// lessonSocket serves GET /lessons/{slug}/ws: it builds the lesson's run from the
// query (the page's state), or takes back the run its page left when the connection
// dropped, or starts from a copy of a room's run (fork=CODE: a student exploring on
// their own, room_fork.go), and runs the session until the connection ends. A
// session is admitted only while the server's memory budget has room for it.
func (s *Server) lessonSocket(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lesson(r.PathValue("slug"))
	if !ok {
		writeError(w, http.StatusNotFound, "there is no lesson "+strconv.Quote(r.PathValue("slug")))
		return
	}
	if !s.ready.Load() {
		writeError(w, http.StatusServiceUnavailable, "the server is shutting down; reload the page in a moment")
		return
	}
	q := r.URL.Query()
	values, problem := l.Params.Parse(q)
	start := q.Get("step")                             // a bad step is step 0 (or the last), and the page is told (sim.Run.StartAt)
	seen, _ := strconv.ParseUint(q.Get("seq"), 10, 64) // a reconnecting page's last seq; numbers continue after it
	replay, err := trainedSteps(q, l.MaxTrained)
	if err != nil && problem == nil {
		problem = err
	}
	rm, refused := s.roomOfQuery(r, q)       // room=CODE: the instructor's page leads a room (room.go)
	forkFrom, forkErr := s.forkOfQuery(r, q) // fork=CODE: a student's own copy of a room's run (room_fork.go)
	conn, err := upgrader.Upgrade(hijacker(w), r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	client := clientOf(r)
	// A reconnecting page, on an upgraded socket of the same lesson: its run, if still
	// here. Its old session (if the server has not noticed the drop) hands it over.
	var run *sim.Run
	cost := footprint(l, false) + sessionOverhead
	if name := q.Get("session"); name != "" {
		s.sessions.release(name, l.Slug, takeoverWait)
		if parked, bytes, ok := s.parked.take(name, l.Slug); ok {
			run, cost = parked, bytes+sessionOverhead
		}
	}
	roomTrained := run != nil
	charged, forked := false, false // the fork's memory is taken before the room is asked
	if run == nil && forkFrom != nil {
		copied, bytes, full, err := s.takeFork(r.Context(), forkFrom, l)
		switch {
		case full:
			refuseFull(conn, closeForkFullText)
			s.log.Warn("lesson websocket refused: the memory budget is full", "lesson", l.Slug, "fork", true, "in_use", s.memory.inUse())
			return
		case err != nil:
			forkErr = err
		default:
			run, cost, roomTrained, charged, forked = copied, bytes, copied.Trained() > 0, true, true
		}
	}
	if rm != nil { // the room's run, kept while this page reconnected
		if held, bytes, trained, ok := rm.claim(l); !ok {
			rm, refused = nil, noRoom.msg // it ended meanwhile
		} else if held != nil {
			run, cost, roomTrained = held, bytes+sessionOverhead, trained
		}
	}
	if !charged && !s.memory.take(cost) {
		if run != nil { // not lost: it waits for a later try
			s.parked.park(run.Session(), l.Slug, client, run, cost-sessionOverhead)
		}
		refuseFull(conn, closeFullText)
		s.log.Warn("lesson websocket refused: the memory budget is full", "lesson", l.Slug, "in_use", s.memory.inUse())
		return
	}
	ss := newSession(s, conn, l, values, problem, start)
	ss.run, ss.seen, ss.replay, ss.client, ss.charged = run, min(seen, sim.MaxSeq), replay, client, cost
	ss.trainCharged = roomTrained // a parked run has trained, and was counted so
	switch {
	case forked:
		run.SetSession(ss.name) // a new page's run
	case run != nil:
		ss.name = run.Session() // the run keeps its name, so the page can come back again
	}
	if forkErr != nil {
		ss.notice = &sim.CommandError{Msg: "the class's model could not be copied (" + forkErr.Error() + "), so this page starts from its link"}
	}
	if !s.sessions.add(ss) {
		ss.closeWith(websocket.CloseGoingAway, "the server is shutting down")
	} else {
		ss.joinRoom(rm, refused)
	}
	ss.serve()
	s.sessions.remove(ss)
	s.memory.give(ss.charged)
}

// hijacker finds the http.Hijacker under the wrappers ServeHTTP adds (the status
// recorder), which gorilla/websocket needs to take over the connection.
func hijacker(w http.ResponseWriter) http.ResponseWriter {
	for {
		if _, ok := w.(http.Hijacker); ok {
			return w
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// incoming is one command from the reader: decoded, or the reason it was not.
type incoming struct {
	cmd sim.Command
	err error
}

// session is one lesson websocket: a reader, a simulator and a writer sharing a
// context. Each ends when the context is cancelled; run joins them.
type session struct {
	srv     *Server
	conn    *websocket.Conn
	lesson  *lessons.Lesson
	values  sim.Values
	problem error    // an invalid value in the URL, reported after the first snapshot
	start   string   // the step in the URL, as it is there
	seen    uint64   // the last seq the page drew before it reconnected, or 0
	replay  int      // training steps the URL says the model had taken (trained=N), retaken on start
	notice  error    // told after the first snapshot whatever the run: why a fork=CODE was not honoured
	run     *sim.Run // a parked run the page reconnected to, or nil: build one from values
	name    string   // the run's session name, for a page that reconnects
	client  string   // the address the page connects from (clientOf), for parking
	room    *room    // the room this session leads (room.go), or nil; set before serve
	simDone chan struct{}

	// charged is the memory this session holds of the server's budget, its run's
	// footprint and sessionOverhead; trainCharged says it includes the lesson's
	// TrainedBytes (taken when training starts). Both belong to the simulator until
	// it ends.
	charged      int
	trainCharged bool

	ctx      context.Context
	closer   // cancel (ends the goroutines) and the close frame the writer sends
	commands chan incoming
	forks    chan forkRequest   // copies of the run asked for by students leaving the room it leads
	uploads  chan uploadRequest // a student's own model for the run (yours.go)
	box      *outbox
}

func newSession(s *Server, conn *websocket.Conn, l *lessons.Lesson, v sim.Values, problem error, start string) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{
		srv: s, conn: conn, lesson: l, values: v, problem: problem, start: start, name: rand.Text(),
		ctx: ctx, closer: closer{cancel: cancel}, commands: make(chan incoming, commandBuffer), forks: make(chan forkRequest, forkBuffer), uploads: make(chan uploadRequest, 1), box: newOutbox(outboxSize),
		simDone: make(chan struct{}),
	}
}

// parkOnExit reports whether the session ended because its connection broke, or
// because its page reconnected elsewhere, so that its run should wait for the page.
// A page that closed the socket, a shutdown and a failed model leave nothing to resume.
func (ss *session) parkOnExit() bool {
	code, _ := ss.closing()
	return code == 0 || code == closeReplaced
}

// closer ends a connection's goroutines (cancel, its context's) and keeps the close
// frame its writer sends: a lesson session's and a room follower's.
type closer struct {
	cancel context.CancelFunc
	mu     sync.Mutex
	code   int // 0 = none chosen yet
	text   string
}

// closeWith chooses the close frame (the first choice wins) and ends the connection.
func (c *closer) closeWith(code int, text string) {
	c.mu.Lock()
	if c.code == 0 {
		c.code, c.text = code, text
	}
	c.mu.Unlock()
	c.cancel()
}

// closing is the close frame chosen, code 0 when none is.
func (c *closer) closing() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.code, c.text
}

// serve starts the three goroutines and returns when all have ended and the connection
// is closed.
func (ss *session) serve() {
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		ss.read()
	}()
	var wg sync.WaitGroup
	wg.Go(ss.simulate)
	wg.Go(ss.write)
	<-ss.ctx.Done()
	wg.Wait() // the writer has sent the close frame (or the connection is broken)
	awaitReader(ss.conn, readerDone)
}

// read is the reader goroutine (readFrom): it decodes each command and hands it to
// the simulator; a view command of a room's instructor goes to the room.
func (ss *session) read() {
	readFrom(ss.conn, &ss.closer, ss.box, func(typ int, data []byte) bool {
		var in incoming
		if typ == websocket.TextMessage {
			if ss.room != nil { // the instructor's view for the followers
				if handled, err := ss.room.command(ss, data); handled {
					if err == nil {
						return true
					}
					in.err = &sim.CommandError{Command: "view", Msg: err.Error()}
				}
			}
			if in.err == nil {
				in.cmd, in.err = sim.DecodeCommand(data)
				if in.err == nil && in.cmd.Type == sim.PingCommand { // a heartbeat spelled otherwise
					answerPing(ss.box)
					return true
				}
			}
		} else {
			in.err = &sim.CommandError{Msg: "commands are JSON text messages, not binary ones"}
		}
		select {
		case ss.commands <- in:
			return true
		case <-ss.ctx.Done():
			return false
		}
	})
}

// readFrom is a connection's reader goroutine, a lesson session's or a room
// follower's: it reads messages of at most sim.MaxCommandBytes, answers the page's
// heartbeat (a pong on box) and hands every other message to each, until each returns
// false or a read fails (which ends the connection). The read deadline, pongWait,
// moves forward with every pong and every message. A message over the limit
// and the page's own close are answered by gorilla (1009, or the echo of the close), so
// no close frame of ours follows them.
func readFrom(conn *websocket.Conn, c *closer, box *outbox, each func(typ int, data []byte) bool) {
	defer c.cancel()
	conn.SetReadLimit(sim.MaxCommandBytes)
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		// The deadline runs from here, not from the last message: time spent handing a
		// command on (a busy simulator) is not the page's silence.
		_ = conn.SetReadDeadline(time.Now().Add(pongWait))
		typ, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.Is(err, websocket.ErrReadLimit) || (errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure) {
				c.closeWith(noCloseFrame, "")
			}
			return
		}
		if typ == websocket.TextMessage && sim.IsPing(data) { // the heartbeat, answered here
			answerPing(box)
			continue
		}
		if !each(typ, data) {
			return
		}
	}
}

// answerPing queues the pong that answers a page's heartbeat (sim.PingCommand). When
// the outbox is full the pong is left out: the messages waiting there answer too.
func answerPing(box *outbox) {
	offer(box, sim.Encoded{Type: sim.PongMessage, Data: sim.Pong()})
}

// awaitReader waits, once the writer has sent the close frame, up to closeGrace for
// the page's answer (the reader ends), then closes conn, which unblocks a reader whose
// page did not answer, and waits for the reader to end.
func awaitReader(conn *websocket.Conn, readerDone <-chan struct{}) {
	select {
	case <-readerDone:
	case <-time.After(closeGrace):
	}
	_ = conn.Close()
	<-readerDone
}

// write is the session's writer goroutine (writeOut); before the close frame it sends
// only the error message of a failed model (code 1011).
func (ss *session) write() {
	writeOut(ss.ctx, ss.conn, ss.box, &ss.closer, func(code int) bool { return code == websocket.CloseInternalServerErr })
}

// writeOut is a connection's writer goroutine, a lesson session's or a room
// follower's, the only one that writes to conn: it sends box's messages and pings,
// each under a deadline, until ctx ends. Then, when a close frame was chosen (c), it
// sends first the messages still queued if flushFirst(code) says they must precede it,
// all within one writeWait (shutdown waits for it), and the frame. A failed write ends
// the connection.
func writeOut(ctx context.Context, conn *websocket.Conn, box *outbox, c *closer, flushFirst func(code int) bool) {
	defer c.cancel()
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	flush := func(end time.Time) bool { // end: one deadline for all, or zero for writeWait each
		for {
			m, ok := box.pop()
			if !ok {
				return true
			}
			deadline := end
			if deadline.IsZero() {
				deadline = time.Now().Add(writeWait)
			}
			_ = conn.SetWriteDeadline(deadline)
			if err := conn.WriteMessage(websocket.BinaryMessage, m.Data); err != nil {
				return false
			}
		}
	}
	for {
		select {
		case <-box.ready:
			if !flush(time.Time{}) {
				return
			}
		case <-ping.C:
			if err := conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				return
			}
		case <-ctx.Done():
			code, text := c.closing()
			if code <= 0 { // none chosen, or already sent (noCloseFrame)
				return
			}
			if flushFirst(code) && !flush(time.Now().Add(writeWait)) {
				return
			}
			_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(writeWait))
			return
		}
	}
}
