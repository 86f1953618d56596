package web

import (
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// sessionSet is the open sessions, so that Shutdown can close them all.
type sessionSet struct {
	mu     sync.Mutex
	open   map[*session]struct{}
	closed bool // shutting down: no new sessions
	wg     sync.WaitGroup
}

// add registers ss; it reports false when the server is shutting down.
func (set *sessionSet) add(ss *session) bool {
	set.mu.Lock()
	defer set.mu.Unlock()
	if set.closed {
		return false
	}
	if set.open == nil {
		set.open = map[*session]struct{}{}
	}
	set.open[ss] = struct{}{}
	set.wg.Add(1)
	return true
}

func (set *sessionSet) remove(ss *session) {
	set.mu.Lock()
	defer set.mu.Unlock()
	if _, ok := set.open[ss]; ok {
		delete(set.open, ss)
		set.wg.Done()
	}
}

// all returns the open sessions.
func (set *sessionSet) all() []*session {
	set.mu.Lock()
	defer set.mu.Unlock()
	out := make([]*session, 0, len(set.open))
	for ss := range set.open {
		out = append(out, ss)
	}
	return out
}

// find is the open session of the lesson slug named name, or nil.
func (set *sessionSet) find(name, slug string) *session {
	set.mu.Lock()
	defer set.mu.Unlock()
	for ss := range set.open {
		if ss.name == name && ss.lesson.Slug == slug {
			return ss
		}
	}
	return nil
}

// release ends the open session of the lesson slug named name, if any (its page has
// reconnected on another connection), and waits at most wait for it to park its run.
func (set *sessionSet) release(name, slug string, wait time.Duration) {
	set.mu.Lock()
	var old *session
	for ss := range set.open {
		if ss.name == name && ss.lesson.Slug == slug {
			old = ss
			break
		}
	}
	set.mu.Unlock()
	if old == nil {
		return
	}
	old.closeWith(closeReplaced, "the page connected again")
	select {
	case <-old.simDone:
	case <-time.After(wait):
	}
}

// closeAll sends every open session a 1001 close and waits for them to end, at most
// wait; it reports whether they all did.
func (set *sessionSet) closeAll(wait time.Duration) bool {
	set.mu.Lock()
	set.closed = true
	for ss := range set.open {
		ss.closeWith(websocket.CloseGoingAway, "the server is shutting down")
	}
	set.mu.Unlock()
	return waitAtMost(&set.wg, wait)
}

// waitAtMost waits for wg at most wait, and reports whether wg's count reached zero;
// the goroutine it starts ends when the count does.
func waitAtMost(wg *sync.WaitGroup, wait time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}
