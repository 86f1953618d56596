package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"unroll/sim"
)

// Timing of one load client's websocket.
const (
	handshakeWait = 10 * time.Second // the websocket upgrade; a server that takes longer is refusing work
	// firstWait bounds the wait for the first snapshot: the server builds the page's
	// model before it, and a class arriving at once queues for the CPU (60 seq2seq pages,
	// each scoring its untrained model on held-out pairs, took up to 10 s on 2 busy cores).
	firstWait    = 30 * time.Second
	writeWait    = 3 * time.Second  // as the server's own: a command that cannot be sent in 3 s means the server is gone
	readSlack    = 30 * time.Second // how long past the window's end a client keeps reading (the end phase is shorter)
	closeWait    = 2 * time.Second  // the server's echo of our close frame
	readBufBytes = 4 << 10          // a gru frame is ~0.6 KB, a seq2seq progress message a few KB
	// maxLeading bounds the room and view messages a socket may send before its first
	// snapshot: a room's socket sends its news first, and they coalesce in its outbox.
	maxLeading = 16
)

// A room's own messages (docs/protocol.md, "Rooms"): they carry the seq of the last
// run message the room published and never advance it.
const (
	roomMessage sim.MessageType = "room"
	viewMessage sim.MessageType = "view"
)

// roomNews reports whether t is one of a room's own messages.
func roomNews(t sim.MessageType) bool { return t == roomMessage || t == viewMessage }

// header is what the load generator reads of a server message's JSON header
// (docs/protocol.md); the arrays are not decoded.
type header struct {
	Type    sim.MessageType `json:"type"`
	Seq     uint64          `json:"seq"`
	Step    int             `json:"step"`
	Steps   int             `json:"steps"`
	Playing bool            `json:"playing"`
	Sent    sim.UnixMillis  `json:"sent"`
	Meta    struct {
		Done    int    `json:"done"` // train: steps taken of "of"
		Of      int    `json:"of"`
		Message string `json:"message"`
		Ended   string `json:"ended"` // room: why it has ended (or refused this page)
	} `json:"meta"`
}

// parseHeader reads the header of a binary message: a uint32 little-endian length,
// then the JSON.
func parseHeader(b []byte) (header, error) {
	var h header
	if len(b) < 4 {
		return h, errors.New("loadtest: a message shorter than its length prefix")
	}
	n := int(binary.LittleEndian.Uint32(b))
	if n > len(b)-4 {
		return h, fmt.Errorf("loadtest: header length %d in a message of %d bytes", n, len(b))
	}
	if err := json.Unmarshal(b[4:4+n], &h); err != nil {
		return h, fmt.Errorf("loadtest: message header: %w", err)
	}
	return h, nil
}

// clientStats is what one client saw. The reader goroutine writes it; it is read
// only after the reader has ended (client.done).
type clientStats struct {
	messages   int           // every server message in the window
	frames     int           // frame messages in the window
	snapshots  int           // snapshots in the window: a follower that fell behind gets one
	news       int           // a room's room and view messages in the window
	coalesced  int           // seq numbers skipped: messages the server replaced with newer ones
	unstamped  int           // frames without "sent": their delay is unknown
	bad        int           // messages that do not follow docs/protocol.md (undecodable, seq going back)
	errors     []string      // the error messages' sentences (the first few)
	errorCount int           // error messages in all
	delays     histogram     // frame delay: receive time minus "sent"
	trained    int           // the last train message's "done": steps of the train command taken within the window
	longestGap time.Duration // the longest time without a train message in the window
	lastTrain  time.Time     // the last train message (or the window's start)
	finished   bool          // a train message said the command was done ("done" = "of")
	last       header        // the last message's header (a room's news aside)
	lastSeq    uint64
	dropped    error // why reading ended, when it was not our close
}

// keptErrors is how many error sentences a client keeps for the report.
const keptErrors = 3

// client is one page's websocket: the run dials it, starts its reader, and closes it.
type client struct {
	id     int
	conn   *websocket.Conn
	first  header // the snapshot the server sent on connect (a room's name, for its followers)
	role   role
	window *window

	closing atomic.Bool   // we are closing: a read error is the end, not a drop
	wmu     sync.Mutex    // data messages are sent by the run (begin, end) and the reader (a player's replay)
	done    chan struct{} // closed when the reader has ended
	stats   clientStats

	// latest is the last run message's header, window open or not, and moved is
	// signalled after each: what a role's end waits on (a room's final frame).
	latest atomic.Pointer[header]
	moved  chan struct{}
	// onFinal: the role's end found the room's final frame on this follower (set by
	// end, read once every client has ended).
	onFinal bool
}

// window is the measurement window all clients share: messages are counted while it
// is open, and roles react to them only then.
type window struct {
	open  atomic.Bool
	start time.Time // set before open
}

// dial opens a websocket to url, sending hdr with the handshake (nil: none), and
// reads the first snapshot (first is its header), after the room and view messages a
// room's socket sends before it; or the server's 1013 "full" close (refused reports
// true). A room message that says the room refused this page is an error: the page
// would go on as a private one.
func dial(ctx context.Context, url string, hdr http.Header) (conn *websocket.Conn, first header, refused bool, err error) {
	d := websocket.Dialer{HandshakeTimeout: handshakeWait, ReadBufferSize: readBufBytes, WriteBufferSize: readBufBytes}
	ctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	conn, resp, err := d.DialContext(ctx, url, hdr)
	if err != nil {
		if resp != nil {
			return nil, first, false, fmt.Errorf("loadtest: %s: %v (HTTP %d)", url, err, resp.StatusCode)
		}
		return nil, first, false, fmt.Errorf("loadtest: %s: %w", url, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(firstWait))
	for range maxLeading + 1 {
		_, data, err := conn.ReadMessage()
		if err != nil {
			conn.Close()
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code == websocket.CloseTryAgainLater {
				return nil, first, true, nil
			}
			return nil, first, false, fmt.Errorf("loadtest: %s: the first message: %w", url, err)
		}
		first, err = parseHeader(data)
		switch {
		case err == nil && first.Type == roomMessage && first.Meta.Ended != "":
			conn.Close()
			return nil, first, false, fmt.Errorf("loadtest: %s: the room refused the page: %s", url, first.Meta.Ended)
		case err == nil && roomNews(first.Type):
			continue
		case err == nil && first.Type == sim.SnapshotMessage:
			return conn, first, false, nil
		}
		conn.Close()
		return nil, first, false, fmt.Errorf("loadtest: %s: the first message is %q (%v), want a snapshot", url, first.Type, err)
	}
	conn.Close()
	return nil, first, false, fmt.Errorf("loadtest: %s: %d room messages and no snapshot", url, maxLeading+1)
}

func newClient(id int, conn *websocket.Conn, first header, r role, w *window) *client {
	c := &client{id: id, conn: conn, first: first, role: r, window: w, done: make(chan struct{}), moved: make(chan struct{}, 1)}
	c.stats.lastSeq, c.stats.last = first.Seq, first
	c.latest.Store(&first)
	return c
}

// send writes one command as a JSON text message.
func (c *client) send(cmd sim.Command) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	return c.conn.WriteMessage(websocket.TextMessage, b)
}

// read is the client's reader goroutine: it reads until the connection ends (close,
// or the deadline readSlack past the window), counts what the window brings, and
// passes each message to the role. The run owns it: close ends it.
func (c *client) read(until time.Time) {
	defer close(c.done)
	s := &c.stats
	_ = c.conn.SetReadDeadline(until)
	for {
		typ, data, err := c.conn.ReadMessage()
		now := time.Now()
		if err != nil {
			if !c.closing.Load() {
				s.dropped = err
			}
			return
		}
		if typ != websocket.BinaryMessage {
			s.bad++
			continue
		}
		h, err := parseHeader(data)
		if err == nil && roomNews(h.Type) {
			// Numbered with the last seq the room published, which may trail a frame
			// already queued for the instructor's page: no order to check.
			if c.window.open.Load() {
				s.messages++
				s.news++
			}
			continue
		}
		if err != nil || (s.lastSeq != 0 && h.Seq <= s.lastSeq) {
			s.bad++
			continue
		}
		skipped := 0
		if s.lastSeq != 0 {
			skipped = int(h.Seq - s.lastSeq - 1)
		}
		s.lastSeq, s.last = h.Seq, h
		if h.Type != sim.ErrorMessage { // an error answers this page's command: not the run's
			latest := h
			c.latest.Store(&latest)
			select {
			case c.moved <- struct{}{}:
			default:
			}
		}
		if !c.window.open.Load() {
			continue
		}
		s.messages++
		s.coalesced += skipped // within the window (a room's end replaces the pause's frame with a snapshot)
		switch h.Type {
		case sim.SnapshotMessage:
			s.snapshots++
		case sim.FrameMessage:
			s.frames++
			if h.Sent == 0 {
				s.unstamped++
			} else {
				s.delays.add(max(0, now.Sub(h.Sent.Time())))
			}
		case sim.TrainMessage:
			if s.lastTrain.IsZero() {
				s.lastTrain = c.window.start
			}
			s.longestGap = max(s.longestGap, now.Sub(s.lastTrain))
			s.lastTrain = now
			s.trained, s.finished = h.Meta.Done, h.Meta.Done == h.Meta.Of
		case sim.ErrorMessage:
			if s.errorCount++; len(s.errors) < keptErrors {
				s.errors = append(s.errors, h.Meta.Message)
			}
		}
		c.role.message(c, &h)
	}
}

// close sends a normal close frame, waits a little for the server's echo (the reader
// sees it and ends), then closes the connection and waits for the reader.
func (c *client) close() {
	c.closing.Store(true)
	_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(writeWait))
	select {
	case <-c.done:
	case <-time.After(closeWait):
	}
	c.conn.Close()
	<-c.done
}
