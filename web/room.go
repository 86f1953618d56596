package web

import (
	"crypto/rand"
	"crypto/subtle"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"unroll/lessons"
	"unroll/sim"
)

// A room is a class following its instructor (docs/api.md, "Rooms"): the instructor's
// page drives one run, in the instructor's own session, and every student's page
// draws the same encoded messages. The room is per instructor, not per lesson: when
// the instructor opens another lesson, the room switches to that page's run and the
// followers' pages follow.

// Limits of rooms, each with its reason.
const (
	// maxRooms bounds the rooms of one server: a laptop in a lecture hall serves a
	// class or two, and each room keeps its instructor's run while they reconnect.
	maxRooms = 64
	// maxRoomsPerClient is how many rooms one address may hold: an instructor has one
	// (two with a second screen); a script that creates more only evicts its own.
	maxRoomsPerClient = 4
	// maxFollowers bounds one room: the largest lecture hall, about 500 seats. Each
	// follower also takes sessionOverhead from the memory budget.
	maxFollowers = 500
	// defaultRoomIdle is how long a room waits for its instructor to come back: a
	// lecture's break; after that the class has gone home (Options.RoomIdle).
	defaultRoomIdle = 30 * time.Minute
	// maxViewKeys and maxViewText bound the view the instructor's page relays to
	// the followers (presenter mode, the spotlight): a handful of small values.
	maxViewKeys = 16
	maxViewText = 128
)

// Close codes of a follower's websocket beyond those of docs/protocol.md.
const (
	closeRoomEnded = 4002 // the room has ended (its instructor left, or ended it); the reason says which
)

// The room's own server messages (docs/protocol.md, "Rooms"): they carry only a
// header, encoded like every other message, and the page's room.js reads them.
const (
	roomMessage sim.MessageType = "room" // who is in the room, the lesson, the instructor's state
	viewMessage sim.MessageType = "view" // the instructor's view beyond the run: presenter mode, spotlight
)

// roomSet is the server's rooms by join code.
type roomSet struct {
	srv     *Server
	idle    time.Duration // Options.RoomIdle
	guesses *guessLimiter

	mu     sync.Mutex
	rooms  map[string]*room
	closed bool           // shutting down: no new rooms or followers
	conns  sync.WaitGroup // follower connections, which shutdown waits for
}

func newRoomSet(s *Server, idle time.Duration) *roomSet {
	if idle <= 0 {
		idle = defaultRoomIdle
	}
	return &roomSet{srv: s, idle: idle, guesses: newGuessLimiter(), rooms: map[string]*room{}}
}

// roomError is why a room cannot be made or found, with its HTTP status.
type roomError struct {
	status int
	msg    string
}

// noRoom is the one answer for a code that is wrong, expired or ended: the same
// text, so that an answer tells a guesser nothing.
var noRoom = &roomError{http.StatusNotFound, "there is no class with that code now: check the code with your instructor (a code ends with its class)"}

var tooManyGuesses = &roomError{http.StatusTooManyRequests, "too many wrong codes from this device: wait a minute, then type the code your instructor shows"}

// create makes a room on lesson l for client.
func (rs *roomSet) create(client string, l *lessons.Lesson) (*room, *roomError) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return nil, &roomError{http.StatusServiceUnavailable, "the server is shutting down"}
	}
	mine := 0
	for _, r := range rs.rooms {
		if r.client == client {
			mine++
		}
	}
	switch {
	case mine >= maxRoomsPerClient:
		return nil, &roomError{http.StatusTooManyRequests, "this computer already has " + itoa(mine) + " rooms open, the most it may have; end one first"}
	case len(rs.rooms) >= maxRooms:
		return nil, &roomError{http.StatusServiceUnavailable, "the server has " + itoa(maxRooms) + " rooms open, the most it holds; try again when a class ends"}
	}
	code := newCode()
	for rs.rooms[code] != nil {
		code = newCode()
	}
	local := newLocalFanout(maxFollowers)
	r := &room{set: rs, code: code, secret: rand.Text(), client: client, out: local, local: local, lesson: l, values: l.Params.Defaults()}
	r.idle = time.AfterFunc(rs.idle, func() { r.end(closeRoomEnded, "the instructor has been away too long, so the class has ended") })
	rs.rooms[code] = r
	return r, nil
}

// find looks a student's code up. A wrong code costs the client one of its guesses;
// a client out of guesses is refused even a right one for a while.
func (rs *roomSet) find(client, code string) (*room, *roomError) {
	if rs.guesses.blocked(client) {
		return nil, tooManyGuesses
	}
	rs.mu.Lock()
	r := rs.rooms[normalCode(code)]
	rs.mu.Unlock()
	if r == nil {
		rs.guesses.missed(client)
		return nil, noRoom
	}
	return r, nil
}

// remove forgets r (it has ended).
func (rs *roomSet) remove(r *room) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.rooms[r.code] == r {
		delete(rs.rooms, r.code)
	}
}

// track counts a follower's connection for shutdown; it reports false when the
// server is shutting down.
func (rs *roomSet) track() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return false
	}
	rs.conns.Add(1)
	return true
}

// closeAll ends every room, telling each follower why, and waits at most wait for
// their connections to close; it reports whether they all did.
func (rs *roomSet) closeAll(wait time.Duration) bool {
	rs.mu.Lock()
	rs.closed = true
	all := make([]*room, 0, len(rs.rooms))
	for _, r := range rs.rooms {
		all = append(all, r)
	}
	rs.mu.Unlock()
	for _, r := range all {
		r.end(websocket.CloseGoingAway, "the server is shutting down")
	}
	return waitAtMost(&rs.conns, wait)
}

// count is how many rooms are open.
func (rs *roomSet) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.rooms)
}

// room is one class. Its run lives in the instructor's session (lead) while the
// instructor's page is connected, and in the room itself (run) while it reconnects.
type room struct {
	set    *roomSet
	code   string // what the students type: codeLength letters of codeAlphabet
	secret string // what the instructor's browser holds (a cookie): 130 random bits
	client string // the address that made it (maxRoomsPerClient)
	// out carries the room to its followers; local is the followers connected to this
	// server. In-process, the default, they are the same localFanout; over a broker,
	// out would publish to the broker and each server's local would subscribe.
	out   fanout
	local *localFanout

	mu       sync.Mutex
	lesson   *lessons.Lesson // the lesson the room shows
	values   sim.Values      // its parameter values, as of the last snapshot
	lead     *session        // the instructor's session; nil while it reconnects
	run      *sim.Run        // the run kept while the instructor reconnects
	runBytes int             // what run holds of the memory budget
	trained  bool            // runBytes include the lesson's TrainedBytes
	lastSeq  uint64          // the seq of the last message published: room messages carry it
	view     map[string]any  // the instructor's view (presenter mode, spotlight)
	idle     *time.Timer     // ends the room when its instructor has been away too long
	ended    bool
}

// authorize checks the secret an instructor's browser presents (its cookie) in
// constant time.
func (r *room) authorize(req *http.Request) bool {
	c, err := req.Cookie(roomCookie(r.code))
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.secret)) == 1
}

// roomCookie is the name of the cookie that holds room code's secret.
func roomCookie(code string) string { return "unroll_room_" + code }

// claim prepares the room for a new instructor's session of lesson l: the session
// that held it before lets go (it waits at most takeoverWait), and the run the room
// kept is handed over when it is of the same lesson. ok is false when the room has
// ended.
func (r *room) claim(l *lessons.Lesson) (run *sim.Run, bytes int, trained, ok bool) {
	r.mu.Lock()
	old := r.lead
	r.mu.Unlock()
	if old != nil { // the old page has not noticed its connection dropped: it hands the run back
		old.closeWith(closeReplaced, "the page connected again")
		select {
		case <-old.simDone:
		case <-time.After(takeoverWait):
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return nil, 0, false, false
	}
	if r.run != nil && r.lesson.Slug == l.Slug && r.lead == nil {
		run, bytes, trained = r.run, r.runBytes, r.trained
	}
	if r.run != nil { // the session takes the bytes of what it takes over from the budget itself
		r.set.srv.memory.give(r.runBytes)
	}
	r.run, r.runBytes = nil, 0
	return run, bytes, trained, true
}

// attach makes ss the instructor's session; its run is the room's from now on.
// It reports false when the room has ended meanwhile.
func (r *room) attach(ss *session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	if r.lesson != ss.lesson {
		r.view = nil // the new lesson's page publishes its own
	}
	r.lead, r.lesson = ss, ss.lesson
	r.idle.Stop()
	r.status()
	return true
}

// live reports whether ss leads the room now.
func (r *room) leads(ss *session) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lead == ss && !r.ended
}

// publish is called by the instructor's simulator with each message it sends its
// page: snapshots, frames and training progress go to every follower (an error
// answers the instructor's own command and stays on that page).
func (r *room) publish(ss *session, m sim.Encoded, run *sim.Run) {
	if m.Type == sim.ErrorMessage {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lead != ss || r.ended {
		return
	}
	r.lastSeq = m.Seq
	if m.Type == sim.SnapshotMessage {
		r.values = maps.Clone(run.Values())
	}
	r.out.Publish(m)
}

// answer gives the followers that wait for one a snapshot of run (called by the
// instructor's simulator when the fanout wants one).
func (r *room) answer(ss *session, run *sim.Run) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lead != ss || r.ended || !r.out.Waiting() {
		return
	}
	m := run.Snapshot()
	r.lastSeq = m.Seq
	r.out.Catchup(m)
}

// serveWaiting answers waiting followers from the run the room keeps while its
// instructor reconnects (r.mu is held).
func (r *room) serveWaiting() {
	if r.lead == nil && r.run != nil && !r.ended && r.out.Waiting() {
		m := r.run.Snapshot()
		r.lastSeq = m.Seq
		r.out.Catchup(m)
	}
}

// handBack takes the run of the instructor's session ss when it ends, so that the
// room keeps its state while the instructor's page reconnects or opens another
// lesson. It reports false when the room did not take it (the room has ended, or
// ss no longer leads it, or the server has no memory to keep it).
func (r *room) handBack(ss *session, run *sim.Run) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lead != ss || r.ended {
		return false
	}
	r.lead = nil
	r.idle.Reset(r.set.idle)
	trained := run.Trained() > 0 || run.Training()
	bytes := footprint(ss.lesson, trained) + uploadCost(lessons.UploadOf(run.Model())) // and a student's own model (yours.go)
	if r.set.srv.memory.take(bytes) {
		r.run, r.runBytes, r.trained = run, bytes, trained
	}
	r.status()
	r.serveWaiting()
	return r.run == run
}

// command handles a room command from the instructor's page (docs/protocol.md,
// "Rooms"): it reports false when data is not one, for sim to decode.
func (r *room) command(ss *session, data []byte) (bool, error) {
	view, isView, err := decodeView(data)
	if !isView {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lead != ss || r.ended {
		return true, nil
	}
	r.view = view
	r.out.Publish(r.encode(viewMessage, view))
	return true, nil
}

// status publishes the room message to the followers and the instructor (r.mu is held).
func (r *room) status() {
	following, exploring := r.out.Counts()
	instructor := "away"
	if r.lead != nil {
		instructor = "here"
	}
	m := r.encode(roomMessage, map[string]any{
		"code": r.code, "lesson": r.lesson.Slug, "instructor": instructor,
		"following": following, "exploring": exploring,
	})
	r.out.Publish(m)
	if r.lead != nil {
		offer(r.lead.box, m)
	}
}

// encode makes a room or view message, numbered like the last message published.
func (r *room) encode(t sim.MessageType, meta map[string]any) sim.Encoded {
	return sim.Encoded{Type: t, Seq: r.lastSeq, Data: sim.EncodeMessage(nil, sim.Header{Type: t, Seq: r.lastSeq, Meta: meta}, nil)}
}

// join adds a follower; it reports false when the room has ended or is full.
func (r *room) join(fl *follower) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || !r.local.join(fl) {
		return false
	}
	r.status()
	r.serveWaiting()
	return true
}

// leave removes a follower.
func (r *room) leave(fl *follower) {
	r.local.leave(fl)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended {
		r.status()
	}
}

// resync sends fl a fresh snapshot (its page missed frames and asked for one).
func (r *room) resync(fl *follower) {
	r.local.resync(fl)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.serveWaiting()
}

// end closes the room: every follower is told why (a room message, then a close
// frame with code and text), the instructor's page too, and the run it kept is let go.
func (r *room) end(code int, text string) {
	// Forget its code first: once a follower hears the room ended, its code already
	// finds no class (TestRoomIdleEnds asks for the join page right after).
	r.set.remove(r)
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return
	}
	r.idle.Stop()
	m := r.encode(roomMessage, map[string]any{"code": r.code, "ended": text})
	r.out.Publish(m)
	if r.lead != nil {
		offer(r.lead.box, m)
	}
	r.ended = true
	r.out.Close(code, text)
	if r.run != nil {
		r.set.srv.memory.give(r.runBytes)
		r.run, r.runBytes = nil, 0
	}
	r.mu.Unlock()
}

// page is what a follower's page opens on: the room's lesson at its values, and the
// instructor's view as a query (present=1, spot=ID: present.js's names).
func (r *room) page() (*lessons.Lesson, sim.Values, url.Values) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := url.Values{}
	if r.view["present"] == true {
		q.Set("present", "1")
	}
	if spot, ok := r.view["spot"].(string); ok {
		q.Set("spot", spot)
	}
	return r.lesson, r.values, q
}

// roomOfQuery finds the room a lesson websocket's query names (room=CODE) and checks
// the instructor's secret (its cookie). No room named is (nil, ""). A room that is
// not there, or not this browser's, is refused: the page goes on as a private page
// and is told why (joinRoom), rather than retrying a socket that cannot open.
func (s *Server) roomOfQuery(req *http.Request, q url.Values) (*room, string) {
	code := q.Get("room")
	if code == "" {
		return nil, ""
	}
	r, err := s.rooms.find(clientOf(req), code)
	if err != nil {
		return nil, err.msg
	}
	if !r.authorize(req) {
		return nil, "only the instructor's browser drives this class's page (this browser does not hold its key); open the join link to follow it"
	}
	return r, ""
}

// joinRoom makes ss lead r (the session's run becomes the room's), unless the room
// was refused or has ended meanwhile: then the page is told so in a room message
// and ss stays a private session.
func (ss *session) joinRoom(r *room, refused string) {
	if r != nil && r.attach(ss) {
		ss.room = r
		return
	}
	if r != nil {
		refused = noRoom.msg
	}
	if refused != "" {
		m := sim.EncodeMessage(nil, sim.Header{Type: roomMessage, Meta: map[string]any{"ended": refused}}, nil)
		offer(ss.box, sim.Encoded{Type: roomMessage, Data: m})
	}
}

// roomWants is the fanout's request channel while ss leads a room, else nil (never).
func (ss *session) roomWants() <-chan struct{} {
	if ss.room == nil {
		return nil
	}
	return ss.room.out.Wants()
}

// trainPriority is the scheduler priority of this session's training: a room's
// training is watched by a class, so it goes before a private page's.
func (ss *session) trainPriority() sim.Priority {
	if ss.room != nil && ss.room.leads(ss) {
		return sim.Room
	}
	return sim.Training
}

// newCode draws a join code: codeLength letters of codeAlphabet, from crypto/rand.
func newCode() string {
	b := make([]byte, codeLength)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b)
}

// normalCode is what a student typed, as a code: upper case, without spaces or dashes.
func normalCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "", "-", "").Replace(s)
	if len(s) != codeLength {
		return ""
	}
	for _, c := range s {
		if !strings.ContainsRune(codeAlphabet, c) {
			return ""
		}
	}
	return s
}
