package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"unroll/lessons"
	"unroll/sim"
)

// "Explore on my own" (docs/protocol.md, "Rooms"): a student's lesson socket names
// the room it leaves (fork=CODE), and its new private session starts from a copy of
// the room's run — the same values, step and trained weights — taken by the run's
// owner, so nothing is trained again and the room is not touched.

// forkWait bounds how long a student's socket waits for its copy: the instructor's
// simulator answers after the training step under way (a seq2seq step takes ~35 ms)
// once the copies asked before it are made (~1 ms each for the largest model), so a
// class of 50 forking at once waits well under a second; longer means it is stuck.
const forkWait = 5 * time.Second

// forkBuffer is how many fork requests wait for a session's simulator: a class
// pressing "Explore on my own" together queues here, and the simulator cuts its
// training turn short for them; more wait to hand theirs in.
const forkBuffer = 16

// forkRequest asks a session's simulator, the sole owner of its run, for a copy of it.
// The simulator answers on reply, which has room for the answer, so it never waits
// for a requester that has given up; it answers before its session ends.
type forkRequest struct {
	reply chan forkReply
}

type forkReply struct {
	run *sim.Run
	err error
}

// Why a copy could not be made, as the student's page says it (after "the class's
// model could not be copied: ").
var (
	errForkLesson  = errors.New("the class is on another lesson now")
	errForkAway    = errors.New("the instructor's page is reconnecting")
	errForkTimeout = errors.New("the instructor's page did not answer in time")
	errForkEnded   = errors.New("the class has ended")
	errForkFailed  = errors.New("this lesson's model cannot be copied")
	// errForkPrivate: the instructor's run holds their own model file (yours.go), which
	// never leaves their page.
	errForkPrivate = errors.New("the instructor's own model file stays on their page")
	// errLeadGone: the session asked had ended; the room is asked again.
	errLeadGone = errors.New("web: the instructor's session has ended")
)

// fork asks the session's simulator for a copy of its run and waits for it, at most
// until ctx ends.
func (ss *session) fork(ctx context.Context) (*sim.Run, error) {
	req := forkRequest{reply: make(chan forkReply, 1)}
	select {
	case ss.forks <- req:
	case <-ss.simDone:
		return nil, errLeadGone
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case rep := <-req.reply:
		return rep.run, rep.err
	case <-ss.simDone: // it answered every request it took before it ended
		select {
		case rep := <-req.reply:
			return rep.run, rep.err
		default:
			return nil, errLeadGone
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// forkOf is the simulator's answer to a fork request: a copy of run. A model that
// panics while copying is a bug; it is logged, and the instructor's session carries on.
func (ss *session) forkOf(run *sim.Run) (rep forkReply) {
	defer func() {
		if p := recover(); p != nil {
			ss.srv.log.Error("copying a room's run panicked", "lesson", ss.lesson.Slug, "panic", p)
			rep = forkReply{err: errForkFailed}
		}
	}()
	c, err := run.Fork()
	if err != nil {
		ss.srv.log.Warn("a room's run could not be copied", "lesson", ss.lesson.Slug, "error", err)
		return forkReply{err: errForkFailed}
	}
	return forkReply{run: c}
}

// fork is a copy of the room's run for a socket of lesson l (copyRun), refused while
// the run holds the instructor's own model file: followers get frames, never weights.
func (r *room) fork(ctx context.Context, l *lessons.Lesson) (*sim.Run, error) {
	c, err := r.copyRun(ctx, l)
	if err == nil && lessons.UploadOf(c.Model()) != nil {
		return nil, errForkPrivate
	}
	return c, err
}

// copyRun is a copy of the room's run for a socket of lesson l: made by the instructor's
// simulator, or, while the instructor's page reconnects, from the run the room keeps
// (which r.mu guards then). It waits at most until ctx ends.
func (r *room) copyRun(ctx context.Context, l *lessons.Lesson) (*sim.Run, error) {
	for range 3 { // a session that ends meanwhile hands its run to the room, or to the next session
		r.mu.Lock()
		switch {
		case r.ended:
			r.mu.Unlock()
			return nil, errForkEnded
		case r.lesson.Slug != l.Slug:
			r.mu.Unlock()
			return nil, errForkLesson
		case r.lead == nil && r.run == nil:
			r.mu.Unlock()
			return nil, errForkAway
		case r.lead == nil:
			c, err := r.run.Fork()
			r.mu.Unlock()
			if err != nil {
				return nil, errForkFailed
			}
			return c, nil
		}
		lead := r.lead
		r.mu.Unlock()
		c, err := lead.fork(ctx)
		switch {
		case errors.Is(err, errLeadGone):
			continue
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			return nil, errForkTimeout
		}
		return c, err
	}
	return nil, errForkAway
}

// forkOfQuery finds the room a student's lesson socket forks (fork=CODE): nil when
// the query names none. A wrong code costs the client a guess, as joining would; the
// page is then built from its query and told why.
func (s *Server) forkOfQuery(req *http.Request, q url.Values) (*room, error) {
	code := q.Get("fork")
	if code == "" || q.Get("room") != "" { // an instructor's page leads its room instead
		return nil, nil
	}
	r, err := s.rooms.find(clientOf(req), code)
	if err != nil {
		return nil, errors.New(err.msg)
	}
	return r, nil
}

// takeFork copies the room's run for a new session of lesson l, its memory (the
// lesson's footprint, trained or not, and sessionOverhead) taken from the budget
// first: full is true, and nothing is asked of the room, when the budget has no
// room for it. On any other failure nothing is taken and err says why.
func (s *Server) takeFork(ctx context.Context, r *room, l *lessons.Lesson) (run *sim.Run, cost int, full bool, err error) {
	most := footprint(l, l.TrainedBytes > 0) + sessionOverhead // a trained copy's, until we know
	if !s.memory.take(most) {
		return nil, 0, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, forkWait)
	defer cancel()
	run, err = r.fork(ctx, l)
	if err != nil {
		s.memory.give(most)
		return nil, 0, false, err
	}
	cost = footprint(l, run.Trained() > 0) + sessionOverhead
	s.memory.give(most - cost)
	return run, cost, false, nil
}
