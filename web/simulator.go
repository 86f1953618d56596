package web

import (
	"runtime/debug"
	"time"

	"github.com/gorilla/websocket"

	"unroll/lessons"
	"unroll/sim"
)

// simulate is the simulator goroutine, the only owner of the sim.Run: it answers
// commands, ticks while playing, trains one step at a time between commands, copies
// the run for the students who explore its room on their own (before its next
// training turn: room_fork.go), and puts every encoded message on the outbox. A panic
// in the lesson's model ends this session only: the page gets an error message and
// close code 1011.
func (ss *session) simulate() {
	defer close(ss.simDone)
	sm := &simulator{ss: ss, run: ss.run}
	defer sm.exit()
	defer sm.stop()
	if !sm.start() {
		return
	}
	for {
		if sm.forkWaiting() { // a student waiting for a copy of the run goes before the next training turn
			continue
		}
		tick, ready := sm.schedule()
		ok := true
		select {
		case <-ss.ctx.Done():
			return
		case in := <-ss.commands:
			ok = sm.send(ss.apply(sm.run, in)...)
		case <-ready:
			ok = sm.train()
		case <-tick:
			ok = sm.tick()
		case <-ss.roomWants(): // a follower joined late, or fell behind
			ss.room.answer(ss, sm.run)
		case req := <-ss.forks: // a student explores on their own from this run
			req.reply <- ss.forkOf(sm.run)
		case req := <-ss.uploads: // a student's own model (yours.go)
			ok = sm.upload(req)
		}
		if !ok {
			return
		}
	}
}

// simulator is what the simulator goroutine (simulate) holds: the run, which a
// student's own model replaces (yours.go), the last seq sent, the play timer, and a
// training turn on the server's scheduler.
type simulator struct {
	ss   *session
	run  *sim.Run    // nil until start builds it, unless the page reconnected to a parked run
	last uint64      // the last seq sent, for the message after a panic
	pace pacer       // ticks while the run plays
	turn *sim.Ticket // a training turn: asked for, or held; nil when not training
}

// start builds the run from the URL unless the session has one (parked, a room's or a
// fork), and sends the page its first messages: the snapshot (after a reconnect its
// seq continues after the page's last one), why the URL or a fork was not honoured,
// and the training the URL replays (trained=N). It reports false when the session
// ended meanwhile.
func (sm *simulator) start() bool {
	ss := sm.ss
	if sm.run == nil {
		sm.run = ss.newRun()
	} else {
		ss.problem = nil // the parked run's values are the page's, already checked
	}
	if ss.room != nil {
		sm.run.SetSession("") // a room's snapshots reach every follower: its page comes back with the room's secret instead
	}
	first, _ := sm.run.Apply(sim.Command{Type: sim.ResumeCommand, Seq: ss.seen})
	if !sm.send(first...) {
		return false
	}
	if ss.problem != nil && !sm.send(sm.run.Error(ss.problem)) {
		return false
	}
	if ss.notice != nil && !sm.send(sm.run.Error(ss.notice)) {
		return false
	}
	if ss.run == nil && ss.replay > 0 {
		// The URL shows a model trained N steps: train it again, with the progress on screen.
		return sm.send(ss.apply(sm.run, incoming{cmd: sim.Command{Type: sim.TrainCommand, Steps: ss.replay}})...)
	}
	return true
}

// newRun builds the session's run from the URL's values at the URL's step; values
// that build no model, or a bad step, are kept in ss.problem for the page, and the
// run starts from the lesson's defaults or at step 0.
func (ss *session) newRun() *sim.Run {
	r, err := sim.NewRun(ss.lesson.Params, ss.lesson.Model, ss.values)
	if err != nil { // the URL's values build no model: start from the defaults
		ss.problem = err
		r, err = sim.NewRun(ss.lesson.Params, ss.lesson.Model, ss.lesson.Params.Defaults())
		if err != nil {
			panic(err) // the defaults must build: a bug in the lesson
		}
	}
	if err := r.StartAt(ss.start); err != nil && ss.problem == nil {
		ss.problem = err
	}
	r.SetSession(ss.name)
	r.SetTrainLimit(ss.lesson.MaxTrained)
	r.SetClock(time.Now) // every message says when it was made ("sent"): clients can measure delivery
	return r
}

// send puts msgs on the outbox in order, and hands each to the room the session
// leads; it reports false when the session has ended.
func (sm *simulator) send(msgs ...sim.Encoded) bool {
	for _, m := range msgs {
		if err := sm.ss.box.push(sm.ss.ctx, m); err != nil {
			return false
		}
		sm.last = m.Seq
		if sm.ss.room != nil {
			sm.ss.room.publish(sm.ss, m, sm.run)
		}
	}
	return true
}

// forkWaiting answers a student waiting for a copy of the run, if one is, and reports
// whether it did.
func (sm *simulator) forkWaiting() bool {
	select {
	case req := <-sm.ss.forks:
		req.reply <- sm.ss.forkOf(sm.run)
		return true
	default:
		return false
	}
}

// schedule is what the next wait listens to besides commands: the play ticker while
// the run plays, or while it trains the start of a training turn, which takes turns
// with every other page's on the server's scheduler, a TrainSlice at a time (commands,
// such as pause, are answered while it waits and between steps). A turn no longer
// needed is given back. A nil channel never fires.
func (sm *simulator) schedule() (tick <-chan time.Time, ready <-chan struct{}) {
	tick = sm.pace.follow(sm.run)
	switch {
	case sm.run.Training():
		if sm.turn == nil {
			sm.turn = sm.ss.srv.sched.Request(sm.ss.trainPriority())
		}
		return nil, sm.turn.Ready()
	case sm.turn != nil:
		sm.turn.Release()
		sm.turn = nil
	}
	return tick, nil
}

// train uses a training turn: steps until sim.TrainSlice has passed, training ends or
// a command or a fork request waits; then it gives the turn back and sends the
// progress. It reports false when the session has ended.
func (sm *simulator) train() bool {
	run, ss := sm.run, sm.ss
	for end := time.Now().Add(sim.TrainSlice); run.Training() && len(ss.commands) == 0 && len(ss.forks) == 0 && time.Now().Before(end); {
		if !sm.send(run.Continue()...) {
			return false
		}
	}
	sm.turn.Release()
	sm.turn = nil
	if m, ok := run.Progress(); ok {
		return sm.send(m)
	}
	return true
}

// tick plays one step; it reports false when the session has ended.
func (sm *simulator) tick() bool {
	if m, ok := sm.run.Tick(); ok {
		return sm.send(m)
	}
	return true
}

// upload puts a student's own model in the run's place (yours.go) and answers req;
// it reports false when the session has ended.
func (sm *simulator) upload(req uploadRequest) bool {
	r, msgs, err := sm.ss.withUpload(sm.run, req.up, sm.last)
	req.reply <- err
	if err != nil {
		return true
	}
	sm.run = r
	return sm.send(msgs...)
}

// stop gives back a training turn and stops the play timer.
func (sm *simulator) stop() {
	if sm.turn != nil {
		sm.turn.Release()
	}
	sm.pace.stop()
}

// exit is the simulator's last word, deferred: after a panic in the lesson's model it
// logs it, sends the page an error message and closes with 1011; otherwise it keeps
// the run for a page that may come back (keep).
func (sm *simulator) exit() {
	p := recover()
	if p == nil {
		sm.keep()
		return
	}
	ss := sm.ss
	ss.srv.log.Error("lesson model panicked", "lesson", ss.lesson.Slug, "query", ss.values.Query(),
		"panic", p, "stack", string(debug.Stack()))
	var step, steps int
	if sm.run != nil {
		step, steps = sm.run.Step(), sm.run.Steps()
	}
	msg := sim.EncodeMessage(nil, sim.Header{Type: sim.ErrorMessage, Seq: sm.last + 1, Step: step, Steps: steps, Meta: map[string]any{
		"message": "The lesson's model failed. This is a bug in Unroll and has been logged; reload the page to start again.",
	}}, nil)
	ss.box.pushFinal(sim.Encoded{Type: sim.ErrorMessage, Seq: sm.last + 1, Data: msg})
	ss.closeWith(websocket.CloseInternalServerErr, "the lesson's model failed")
}

// keep hands the run of a room's instructor back to the room, which keeps it while the
// instructor's page reconnects or opens another lesson (not on shutdown); else it
// parks a run its page should come back to (parkOnExit) that the URL cannot rebuild:
// one that has trained, or runs a student's own model (yours.go).
func (sm *simulator) keep() {
	ss, run := sm.ss, sm.run
	if run == nil {
		return
	}
	if code, _ := ss.closing(); ss.room != nil && code != websocket.CloseGoingAway && ss.room.handBack(ss, run) {
		return
	}
	if ss.parkOnExit() {
		if up := lessons.UploadOf(run.Model()); run.Trained() > 0 || run.Training() || up != nil {
			ss.srv.parked.park(run.Session(), ss.lesson.Slug, ss.client, run, footprint(ss.lesson, true)+uploadCost(up))
		}
	}
}

// apply carries out one incoming command; one that could not be decoded is answered
// with an error message. Training first takes the memory a trained model holds (its
// own weights) from the server's budget, and is refused when there is none.
func (ss *session) apply(run *sim.Run, in incoming) []sim.Encoded {
	if in.err != nil {
		return []sim.Encoded{run.Error(in.err)}
	}
	if in.cmd.Type == sim.TrainCommand && !ss.trainCharged && ss.lesson.TrainedBytes > 0 {
		if !ss.srv.memory.take(ss.lesson.TrainedBytes) {
			return []sim.Encoded{run.Error(&sim.CommandError{Command: string(sim.TrainCommand),
				Msg: "the server is full: it has no memory to train another model now; try again in a minute"})}
		}
		ss.charged += ss.lesson.TrainedBytes
		ss.trainCharged = true
	}
	msgs, _ := run.Apply(in.cmd) // a refused command's answer is its error message
	return msgs
}

// pacer is the play timer: a ticker at the run's speed while it plays, none otherwise.
type pacer struct {
	ticker *time.Ticker
	speed  float64
}

// follow starts, retimes or stops the ticker to match the run and returns its channel
// (nil, which never fires, when paused).
func (p *pacer) follow(run *sim.Run) <-chan time.Time {
	if !run.Playing() {
		p.stop()
		return nil
	}
	period := time.Duration(float64(time.Second) / run.Speed())
	switch {
	case p.ticker == nil:
		p.ticker = time.NewTicker(period)
	case p.speed != run.Speed():
		p.ticker.Reset(period)
	}
	p.speed = run.Speed()
	return p.ticker.C
}

func (p *pacer) stop() {
	if p.ticker != nil {
		p.ticker.Stop()
		p.ticker = nil
	}
}
