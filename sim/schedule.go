package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Priority orders the work that shares a Scheduler's slots, highest first.
type Priority int

// The priorities, highest first (docs/architecture.md, "A websocket session").
const (
	// Interactive is work a person is waiting on: a /cell or /bleu answer, drawing an
	// export.
	Interactive Priority = iota
	// Room is a run that a whole class watches.
	Room
	// Training is one page's private training, or an export replaying it.
	Training
	priorities
)

// TrainSlice is how long work at a background priority (Room, Training) runs before it
// gives its slot back and queues again: a little more than a frame, so a pause is
// obeyed at once and fifty turns a second keep every waiting page's progress bar
// moving. A step that takes longer (a seq2seq minibatch, ~35 ms) is one turn.
const TrainSlice = 20 * time.Millisecond

// Scheduler shares a fixed number of CPU slots between the server's heavy work. A slot
// goes to the oldest waiter of the highest priority, so every waiter of a priority
// gets its turn in order (a run that gives its slot back after a TrainSlice queues
// behind every run already waiting: each gets its fair share). When there are two
// slots or more, background work (Room, Training) holds at most all but one of them,
// so Interactive work never queues behind training. A Scheduler is safe for
// concurrent use.
type Scheduler struct {
	mu         sync.Mutex
	slots      int // slots in all
	background int // slots that Room and Training work may hold at once
	busy       int // slots held
	busyBack   int // slots held by Room and Training work
	queues     [priorities][]*Ticket
}

// NewScheduler returns a Scheduler with slots slots (at least one).
func NewScheduler(slots int) *Scheduler {
	slots = max(1, slots)
	return &Scheduler{slots: slots, background: max(1, slots-1)}
}

// Ticket is one request for a slot: its Ready channel is closed once the slot is
// granted, and Release gives it back (or leaves the queue, if not yet granted).
type Ticket struct {
	s        *Scheduler
	priority Priority
	ready    chan struct{}
	granted  bool // s.mu
	released bool // s.mu
}

// Request queues a ticket at priority p; the caller waits on Ready and must Release.
func (s *Scheduler) Request(p Priority) *Ticket {
	if p < 0 || p >= priorities {
		panic("sim: unknown priority")
	}
	t := &Ticket{s: s, priority: p, ready: make(chan struct{})}
	s.mu.Lock()
	s.queues[p] = append(s.queues[p], t)
	s.dispatch()
	s.mu.Unlock()
	return t
}

// Acquire waits for a slot at priority p, or for ctx to end (then the ticket is
// released and the error is ctx's).
func (s *Scheduler) Acquire(ctx context.Context, p Priority) (*Ticket, error) {
	t := s.Request(p)
	select {
	case <-t.ready:
		return t, nil
	case <-ctx.Done():
		t.Release()
		return nil, ctx.Err()
	}
}

// Ready is closed when the ticket holds a slot.
func (t *Ticket) Ready() <-chan struct{} { return t.ready }

// Release gives the slot back, or takes the ticket out of its queue if it was still
// waiting. Releasing twice does nothing.
func (t *Ticket) Release() {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.released {
		return
	}
	t.released = true
	if !t.granted {
		q := s.queues[t.priority]
		for i, w := range q {
			if w == t {
				s.queues[t.priority] = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		return
	}
	s.busy--
	if t.priority != Interactive {
		s.busyBack--
	}
	s.dispatch()
}

// release is Release that accepts a nil ticket (Replay without a Scheduler).
func (t *Ticket) release() {
	if t != nil {
		t.Release()
	}
}

// dispatch grants free slots to the oldest waiters of the highest priorities; s.mu is
// held.
func (s *Scheduler) dispatch() {
	for s.busy < s.slots {
		var next *Ticket
		for p := range priorities {
			if len(s.queues[p]) == 0 || (p != Interactive && s.busyBack >= s.background) {
				continue
			}
			next = s.queues[p][0]
			s.queues[p][0] = nil
			s.queues[p] = s.queues[p][1:]
			break
		}
		if next == nil {
			return
		}
		next.granted = true
		s.busy++
		if next.priority != Interactive {
			s.busyBack++
		}
		close(next.ready)
	}
}

// Waiting is how many tickets of priority p wait for a slot.
func (s *Scheduler) Waiting(p Priority) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues[p])
}

// Replay trains a model fresh from its Builder n steps, as a Run's train commands
// would, so that an export can show the model a page trained. It takes turns on s at
// Training priority, a TrainSlice at a time (a nil s runs without taking turns), and
// stops with ctx's error within one training step of ctx ending (the client has gone).
func Replay(ctx context.Context, s *Scheduler, m Model, n int) error {
	if n == 0 {
		return nil
	}
	t, ok := m.(Trainer)
	if !ok {
		return errors.New("sim: this lesson's model does not train")
	}
	for done := 0; done < n; {
		var ticket *Ticket
		if s != nil {
			var err error
			if ticket, err = s.Acquire(ctx, Training); err != nil {
				return err
			}
		}
		for end := time.Now().Add(TrainSlice); done < n && ctx.Err() == nil; {
			if _, err := t.TrainStep(); err != nil {
				ticket.release()
				return fmt.Errorf("sim: training step %d of %d: %w", done+1, n, err)
			}
			done++
			if time.Now().After(end) {
				break
			}
		}
		ticket.release()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
