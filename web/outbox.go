package web

import (
	"context"
	"sync"

	"unroll/sim"
)

// outbox is a session's bounded queue of encoded messages between the simulator and
// the writer. It never holds more than its capacity, whatever the page's speed:
//   - a frame, train or pong message replaces one of its kind at the back of the
//     queue (the newest wins: a slow page gets fewer frames, never late ones);
//   - a snapshot replaces every queued frame and older snapshot (it redraws
//     everything), keeping error and train messages (the loss is not in a snapshot)
//     and a room's room and view messages, which coalesce like frames;
//   - when the queue is still full, push waits for the writer (or the context).
type outbox struct {
	mu        sync.Mutex
	queue     []sim.Encoded
	size      int
	ready     chan struct{} // has a message for the writer
	space     chan struct{} // the writer took one
	peak      int           // the longest the queue has been
	coalesced int           // messages dropped for a newer one
}

func newOutbox(size int) *outbox {
	return &outbox{size: size, queue: make([]sim.Encoded, 0, size), ready: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

// push queues m as described on outbox; it fails only when ctx ends while waiting.
func (o *outbox) push(ctx context.Context, m sim.Encoded) error {
	for {
		o.mu.Lock()
		if o.add(m) {
			o.mu.Unlock()
			signal(o.ready)
			return nil
		}
		o.mu.Unlock()
		select {
		case <-o.space:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pushFinal queues m even when full (the session's last message, after a panic).
func (o *outbox) pushFinal(m sim.Encoded) {
	o.mu.Lock()
	o.queue = append(o.queue, m)
	o.peak = max(o.peak, len(o.queue))
	o.mu.Unlock()
	signal(o.ready)
}

// add applies the coalescing rules and appends m if there is room; o.mu is held.
func (o *outbox) add(m sim.Encoded) bool {
	switch m.Type {
	case sim.FrameMessage, sim.TrainMessage, roomMessage, viewMessage, sim.PongMessage: // a room's news and pongs: the newest wins too
		if n := len(o.queue); n > 0 && o.queue[n-1].Type == m.Type {
			o.queue[n-1] = m
			o.coalesced++
			return true
		}
	case sim.SnapshotMessage:
		kept := o.queue[:0]
		for _, q := range o.queue {
			if q.Type == sim.ErrorMessage || q.Type == sim.TrainMessage || q.Type == roomMessage || q.Type == viewMessage { // what a snapshot does not say
				kept = append(kept, q)
			} else {
				o.coalesced++
			}
		}
		clear(o.queue[len(kept):])
		o.queue = kept
	}
	if len(o.queue) >= o.size {
		return false
	}
	o.queue = append(o.queue, m)
	o.peak = max(o.peak, len(o.queue))
	return true
}

// pop takes the oldest message.
func (o *outbox) pop() (sim.Encoded, bool) {
	o.mu.Lock()
	if len(o.queue) == 0 {
		o.mu.Unlock()
		return sim.Encoded{}, false
	}
	m := o.queue[0]
	n := copy(o.queue, o.queue[1:])
	o.queue[n] = sim.Encoded{}
	o.queue = o.queue[:n]
	o.mu.Unlock()
	signal(o.space)
	return m, true
}

// stats returns the queue's current and peak length and how many messages were
// coalesced away.
func (o *outbox) stats() (length, peak, coalesced int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.queue), o.peak, o.coalesced
}

// signal wakes the one waiter of a capacity-1 channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
