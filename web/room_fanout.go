package web

import (
	"sync"

	"unroll/sim"
)

// fanout carries one room's messages from its instructor's session to the followers,
// and what the followers need back: a room publishes messages and receives requests.
// Every message is encoded once (sim.Encoded) and the same bytes go to every follower.
// localFanout, the followers connected to this server, is the one implementation; a
// later one carries a room across servers over a message broker, with the same pages
// and the same messages (docs/protocol.md, "Rooms").
type fanout interface {
	// Publish hands m to every follower, each through its own bounded outbox (frames
	// and progress coalesce there: a slow follower gets fewer, never late ones). The
	// last view and room messages are kept for followers who join later.
	Publish(m sim.Encoded)
	// Catchup hands a snapshot of the room's run to the followers that wait for one
	// (late joiners, and followers that fell behind) and keeps it for the next joiner
	// while nothing newer has been published.
	Catchup(snapshot sim.Encoded)
	// Wants is signalled when a follower waits for a snapshot: the instructor's
	// session answers with Catchup.
	Wants() <-chan struct{}
	// Waiting reports whether a follower waits for a snapshot.
	Waiting() bool
	// Counts is how many follow the room and how many explore on their own.
	Counts() (following, exploring int)
	// Close ends every follower's connection with a close frame that says why.
	Close(code int, text string)
}

// localFanout is the in-process fanout: the followers are this server's websockets.
type localFanout struct {
	mu        sync.Mutex
	followers map[*follower]struct{}
	snap      sim.Encoded                     // the last snapshot published or caught up
	fresh     bool                            // nothing but view and room messages since snap
	sticky    map[sim.MessageType]sim.Encoded // the last view and room messages
	wants     chan struct{}
	closed    bool
	limit     int // maxFollowers; tests lower it
}

func newLocalFanout(limit int) *localFanout {
	return &localFanout{followers: map[*follower]struct{}{}, sticky: map[sim.MessageType]sim.Encoded{},
		wants: make(chan struct{}, 1), limit: limit}
}

// Publish implements fanout. A follower whose outbox is full even after coalescing
// (it reads nothing) is not waited for: its queue is dropped and it waits for a
// fresh snapshot, so nobody's memory grows with a slow client.
func (f *localFanout) Publish(m sim.Encoded) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	switch m.Type {
	case sim.SnapshotMessage:
		f.snap, f.fresh = m, true
	case viewMessage, roomMessage:
		f.sticky[m.Type] = m
	default:
		f.fresh = false
	}
	behind := false
	for fl := range f.followers {
		if fl.explore && m.Type != roomMessage {
			continue // an explorer has its own run: it hears only about the room
		}
		if fl.waiting && m.Type != viewMessage && m.Type != roomMessage && m.Type != sim.SnapshotMessage {
			continue // frames before its snapshot would be drawn on nothing
		}
		if m.Type == sim.SnapshotMessage {
			fl.waiting = false
		}
		if !f.give(fl, m) {
			behind = true
		}
	}
	if behind {
		signal(f.wants)
	}
}

// give offers m to fl's outbox without waiting; when it is full, fl is reset to
// wait for a snapshot, and give reports false unless fl is an explorer (who needs
// none). f.mu is held.
func (f *localFanout) give(fl *follower, m sim.Encoded) bool {
	if offer(fl.box, m) {
		if m.Type != viewMessage && m.Type != roomMessage {
			fl.lastSeq.Store(m.Seq)
		}
		return true
	}
	fl.box.drop()
	fl.waiting = !fl.explore
	for _, t := range []sim.MessageType{roomMessage, viewMessage} { // what a snapshot does not carry
		if s, ok := f.sticky[t]; ok && (t == roomMessage || !fl.explore) {
			offer(fl.box, s)
		}
	}
	return fl.explore
}

// Catchup implements fanout.
func (f *localFanout) Catchup(m sim.Encoded) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.snap, f.fresh = m, true
	for fl := range f.followers {
		if fl.waiting {
			fl.waiting = false
			if !f.give(fl, m) {
				signal(f.wants)
			}
		}
	}
}

func (f *localFanout) Wants() <-chan struct{} { return f.wants }

func (f *localFanout) Waiting() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for fl := range f.followers {
		if fl.waiting {
			return true
		}
	}
	return false
}

func (f *localFanout) Counts() (following, exploring int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for fl := range f.followers {
		if fl.explore {
			exploring++
		} else {
			following++
		}
	}
	return following, exploring
}

func (f *localFanout) Close(code int, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for fl := range f.followers {
		fl.closeWith(code, text)
	}
}

// join adds fl and gives it what the room shows now: the room and view messages,
// and the last snapshot if nothing has happened since (else it waits for one, and
// Wants is signalled). It reports false when the room has ended or is full.
func (f *localFanout) join(fl *follower) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || len(f.followers) >= f.limit {
		return false
	}
	f.followers[fl] = struct{}{}
	if s, ok := f.sticky[roomMessage]; ok {
		f.give(fl, s)
	}
	if fl.explore {
		return true
	}
	if s, ok := f.sticky[viewMessage]; ok {
		f.give(fl, s)
	}
	if f.fresh {
		f.give(fl, f.snap)
	} else {
		fl.waiting = true
		signal(f.wants)
	}
	return true
}

// leave forgets fl.
func (f *localFanout) leave(fl *follower) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.followers, fl)
}

// resync makes fl wait for a snapshot (its page asked for one: it missed frames).
func (f *localFanout) resync(fl *follower) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl.explore {
		return
	}
	if f.fresh {
		f.give(fl, f.snap)
		return
	}
	fl.waiting = true
	signal(f.wants)
}

// offer queues m on o if the outbox's coalescing rules leave room, without waiting.
func offer(o *outbox, m sim.Encoded) bool {
	o.mu.Lock()
	ok := o.add(m)
	o.mu.Unlock()
	if ok {
		signal(o.ready)
	}
	return ok
}

// drop empties o: its reader fell behind and will get a fresh snapshot instead.
func (o *outbox) drop() {
	o.mu.Lock()
	o.coalesced += len(o.queue)
	clear(o.queue)
	o.queue = o.queue[:0]
	o.mu.Unlock()
	signal(o.space)
}
