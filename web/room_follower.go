package web

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// follower is one student's websocket on a room: a writer (the handler's goroutine)
// that sends its outbox, and a reader that answers its commands. Both end with the
// connection's context. An explorer (explore=1) has forked the room into a private
// page and only hears about the room (the counts, the instructor, the end).
type follower struct {
	conn    *websocket.Conn
	box     *outbox
	explore bool
	ctx     context.Context

	// waiting belongs to the fanout (its mutex): the follower needs a snapshot
	// before frames. lastSeq is the seq of the last run message it was given.
	waiting bool
	lastSeq atomic.Uint64

	closer // cancel (ends the reader and the writer) and the close frame
}

func newFollower(conn *websocket.Conn, explore bool) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	return &follower{conn: conn, box: newOutbox(outboxSize), explore: explore, ctx: ctx, closer: closer{cancel: cancel}}
}

// followRefused is the answer to a follower's command that would change the room.
const followRefused = "you are following the instructor, whose page drives this one; press “Explore on my own” to change things yourself"

// roomSocket serves GET /rooms/{code}/ws: a student's page following the room, or
// (explore=1) a page exploring on its own that still counts in the room.
func (s *Server) roomSocket(w http.ResponseWriter, r *http.Request) {
	rm, rerr := s.rooms.find(clientOf(r), r.PathValue("code"))
	if rerr != nil {
		writeError(w, rerr.status, rerr.msg)
		return
	}
	if !s.ready.Load() {
		writeError(w, http.StatusServiceUnavailable, "the server is shutting down; reload the page in a moment")
		return
	}
	conn, err := upgrader.Upgrade(hijacker(w), r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	if !s.memory.take(sessionOverhead) {
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(closeFull, closeFullText), time.Now().Add(writeWait))
		_ = conn.Close()
		return
	}
	defer s.memory.give(sessionOverhead)
	fl := newFollower(conn, r.URL.Query().Get("explore") == "1")
	if !s.rooms.track() {
		fl.closeWith(websocket.CloseGoingAway, "the server is shutting down")
	} else {
		defer s.rooms.conns.Done()
		if !rm.join(fl) {
			fl.closeWith(closeRoomEnded, "the class has ended, or it is full")
		}
	}
	fl.serve(rm)
	rm.leave(fl)
}

// serve runs the reader and the writer until the connection ends, then closes it.
func (fl *follower) serve(rm *room) {
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		fl.read(rm)
	}()
	fl.write()
	awaitReader(fl.conn, readerDone)
}

// read reads the follower's commands (readFrom): a ping gets a pong (the heartbeat,
// which readFrom answers itself when spelled as the page spells it), a resume (its
// page missed frames) gets a fresh snapshot; anything that would change the room is refused, and the room
// is unchanged.
func (fl *follower) read(rm *room) {
	readFrom(fl.conn, &fl.closer, fl.box, func(typ int, data []byte) bool {
		cmd, err := sim.DecodeCommand(data)
		switch {
		case typ == websocket.TextMessage && err == nil && cmd.Type == sim.PingCommand:
			answerPing(fl.box) // the heartbeat, spelled otherwise than socket.js does
		case typ == websocket.TextMessage && err == nil && cmd.Type == sim.ResumeCommand:
			rm.resync(fl)
		default:
			fl.refuse(string(cmd.Type), followRefused)
		}
		return true
	})
}

// refuse queues an error message for this follower only.
func (fl *follower) refuse(command, msg string) {
	meta := map[string]any{"message": (&sim.CommandError{Msg: msg}).Sentence()}
	if command != "" {
		meta["command"] = command
	}
	seq := fl.lastSeq.Load()
	offer(fl.box, sim.Encoded{Type: sim.ErrorMessage, Seq: seq, Data: sim.EncodeMessage(nil, sim.Header{Type: sim.ErrorMessage, Seq: seq, Meta: meta}, nil)})
}

// write is the follower's writer goroutine (writeOut); the room message that says why
// it closes comes before the close frame.
func (fl *follower) write() {
	writeOut(fl.ctx, fl.conn, fl.box, &fl.closer, func(int) bool { return true })
}
