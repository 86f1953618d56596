package sim

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxSteps bounds a model's Steps(): a Run caches every step's frame (so stepping
// back is instant) and a snapshot carries all of them, so a lesson's longest sequence
// must stay small. 512 steps of a GRU with h = 64 is 0.5 MB of cache and a 0.5 MB
// snapshot.
const MaxSteps = 512

// Encoded is one server message, ready to send. Type tells the session which messages
// it may coalesce (frames and training progress: the newest wins).
type Encoded struct {
	Type MessageType
	Seq  uint64
	Data []byte
}

// Run is one lesson model being watched: the current step, whether it is playing and
// how fast, the frame of every step seen so far, and the sequence number of the next
// message. It belongs to one goroutine (a websocket session's simulator); it is not
// safe for concurrent use.
//
// Every method that changes the state returns the messages that tell the browser.
// The same values and the same commands give byte-identical messages.
type Run struct {
	specs  Specs
	build  Builder
	values Values

	model  Model
	passes []Pass // the model's (PassesOf), checked to cover its steps
	static Frame
	frames []*Frame // frames[t-1] is step t's frame, nil until computed

	step       int
	playing    bool
	speed      float64
	train      trainState
	seq        uint64           // the last seq used
	trained    int              // TrainSteps taken since the model was built
	maxTrained int              // the most TrainSteps the model may take since it was built (SetTrainLimit)
	session    string           // the name snapshots carry, set by the owner (SetSession)
	acked      uint64           // the ID of the last numbered command carried out (Header.Ack)
	clock      func() time.Time // stamps every message's "sent" (SetClock); nil: no stamp

	scratch []byte // EncodeMessage's buffer, reused
}

// trainState is an unfinished train command.
type trainState struct {
	left, of int
	dirty    bool  // the model has trained since its frames were cached
	last     Frame // the last TrainStep's frame, until it is reported
	unsent   bool  // last has not been reported yet
}

// trainReports is how many progress messages a train command sends at most: a
// smooth progress bar, without encoding a growing loss curve 10000 times.
const trainReports = 100

// DefaultSpeed is the play speed until the page asks for another: slow enough to
// follow one step at a time.
const DefaultSpeed = 2

// NewRun builds the model for v (checked against specs) and starts at step 0,
// paused, at DefaultSpeed.
func NewRun(specs Specs, build Builder, v Values) (*Run, error) {
	r := &Run{specs: specs, build: build, speed: DefaultSpeed, maxTrained: MaxTrainSteps}
	if err := r.rebuild(v); err != nil {
		return nil, err
	}
	return r, nil
}

// rebuild makes the model for v; on error the run is unchanged.
func (r *Run) rebuild(v Values) error {
	for _, s := range r.specs {
		if _, err := s.Check(v[s.Name]); err != nil {
			return fmt.Errorf("sim: %w", err)
		}
	}
	m, err := r.build(v)
	if err != nil {
		return err
	}
	n := m.Steps()
	if n < 0 || n > MaxSteps {
		return fmt.Errorf("sim: the model has %d steps; a run holds 0 to %d", n, MaxSteps)
	}
	passes := PassesOf(m)
	covered := 0
	for _, p := range passes {
		if p.Steps < 0 || (p.Stages != nil && len(p.Stages) != p.Steps) {
			return fmt.Errorf("sim: pass %q has %d steps and %d stage names", p.Name, p.Steps, len(p.Stages))
		}
		covered += p.Steps
	}
	if covered != n {
		return fmt.Errorf("sim: the model's passes cover %d steps of its %d", covered, n)
	}
	static := m.Static()
	checkFrame("static", static)
	r.values, r.model, r.static, r.passes = v, m, static, passes
	r.frames = make([]*Frame, n)
	r.step = min(r.step, n)
	r.train = trainState{}
	r.trained = 0
	return nil
}

// checkFrame panics when an array's shape does not match its data: a bug in the
// lesson, which the session reports as a failed model.
func checkFrame(where string, f Frame) {
	for _, a := range f.Arrays {
		size := 1
		for _, d := range a.Shape {
			size *= d
		}
		if size != len(a.Data) || strings.Contains(a.Name, "@") {
			panic(fmt.Sprintf("sim: %s array %q: shape %v for %d values (names may not contain @)", where, a.Name, a.Shape, len(a.Data)))
		}
	}
}

// Values is the current parameter values.
func (r *Run) Values() Values { return r.values }

// Model is the current model.
func (r *Run) Model() Model { return r.model }

// Step is the current step, 0 ≤ Step ≤ Steps.
func (r *Run) Step() int { return r.step }

// Steps is the model's number of steps.
func (r *Run) Steps() int { return len(r.frames) }

// Playing reports whether the run is playing.
func (r *Run) Playing() bool { return r.playing }

// Speed is the play pace in steps per second.
func (r *Run) Speed() float64 { return r.speed }

// Training reports whether a train command is unfinished: call Continue.
func (r *Run) Training() bool { return r.train.left > 0 }

// frame returns step t's frame, computing and caching it on first use.
func (r *Run) frame(t int) *Frame {
	r.refresh()
	if f := r.frames[t-1]; f != nil {
		return f
	}
	f := r.model.At(t)
	checkFrame("step "+strconv.Itoa(t), f)
	r.frames[t-1] = &f
	return &f
}

// Apply carries out one command and returns the messages for the browser. When the
// command cannot be carried out the state does not change, the messages are one
// error message, and the error (a *CommandError) says why.
func (r *Run) Apply(c Command) ([]Encoded, error) {
	if c.ID > 0 { // refused or not, it was received: the page must not send it again
		r.acked = c.ID
	}
	if r.Training() {
		switch c.Type {
		case StepCommand, BackCommand, SeekCommand, PlayCommand, TrainCommand:
			return r.refuse(c, "the model is training; pause to stop training first")
		case PauseCommand:
			r.train.left = 0
			return []Encoded{r.Snapshot()}, nil
		}
	}
	switch c.Type {
	case StepCommand:
		if r.step < r.Steps() {
			r.step++
		}
		return []Encoded{r.Frame()}, nil
	case BackCommand:
		if r.step > 0 {
			r.step--
		}
		return []Encoded{r.Frame()}, nil
	case SeekCommand:
		if c.Step > r.Steps() {
			return r.refuse(c, fmt.Sprintf("there are steps 0 to %d; step %d does not exist", r.Steps(), c.Step))
		}
		r.step = c.Step
		return []Encoded{r.Frame()}, nil
	case PlayCommand:
		r.playing, r.speed = true, c.Speed
		if r.step == r.Steps() { // at the end, play starts over
			r.step = 0
		}
		return []Encoded{r.Frame()}, nil
	case PauseCommand:
		r.playing = false
		return []Encoded{r.Frame()}, nil
	case ResetCommand:
		r.step, r.playing, r.train.left = 0, false, 0
		return []Encoded{r.Snapshot()}, nil
	case SetCommand:
		v, err := r.specs.Apply(r.values, c.Params)
		if err == nil {
			err = r.rebuild(v)
		}
		if err != nil {
			return r.refuse(c, strings.TrimPrefix(err.Error(), "sim: "))
		}
		return []Encoded{r.Snapshot()}, nil
	case TrainCommand:
		if _, ok := r.model.(Trainer); !ok {
			return r.refuse(c, "this lesson's model does not train")
		}
		if left := r.maxTrained - r.trained; c.Steps > left {
			msg := fmt.Sprintf("this page trains its model at most %d steps; it has trained %d, so at most %d more. Change a setting (the seed, say) to start again from a new model", r.maxTrained, r.trained, left)
			if left == 0 {
				msg = fmt.Sprintf("this model has trained the %d steps this page allows. Change a setting (the seed, say) to start again from a new model", r.maxTrained)
			}
			return r.refuse(c, msg)
		}
		r.playing = false
		r.train = trainState{left: c.Steps, of: c.Steps, dirty: r.train.dirty}
		return nil, nil
	case ResumeCommand:
		r.seq = max(r.seq, c.Seq)
		return []Encoded{r.Snapshot()}, nil
	}
	return r.refuse(c, fmt.Sprintf("unknown command %q", c.Type))
}

// refuse answers a command that cannot be carried out.
func (r *Run) refuse(c Command, msg string) ([]Encoded, error) {
	err := &CommandError{Command: string(c.Type), Msg: msg}
	return []Encoded{r.Error(err)}, err
}

// Tick advances a playing run by one step and returns its frame; the frame of the
// last step pauses the run. A paused run returns false.
func (r *Run) Tick() (Encoded, bool) {
	if !r.playing {
		return Encoded{}, false
	}
	if r.step < r.Steps() {
		r.step++
	}
	if r.step == r.Steps() {
		r.playing = false
	}
	return r.Frame(), true
}

// Seek moves to step t, clamped to 0…Steps, without a message (for a page that
// opens at the step in its URL).
func (r *Run) Seek(t int) { r.step = max(0, min(t, r.Steps())) }

// StartAt seeks to the step a page's URL names (its step=, raw) and says what it did
// instead when that is not a step of the run: a step past the last one starts at the
// last, anything else at 0. nil when the run starts where the URL says.
func (r *Run) StartAt(raw string) error {
	if raw == "" {
		return nil
	}
	t, err := strconv.Atoi(raw)
	if err != nil || t < 0 {
		r.Seek(0)
		return &CommandError{Msg: fmt.Sprintf("the link's step=%s is not a step (a whole number from 0 to %d), so the page starts at step 0", clip(raw), r.Steps())}
	}
	r.Seek(t)
	if t > r.Steps() {
		return &CommandError{Msg: fmt.Sprintf("the link asks for step %d, but this run has steps 0 to %d, so the page shows its last step, %d", t, r.Steps(), r.Steps())}
	}
	return nil
}

// Continue runs one optimisation step of an unfinished train command and returns
// its progress message (one every of/trainReports steps, and after the last, which
// is followed by a snapshot built from the trained model). A failed step (say, a loss that became NaN) ends training with an
// error message.
func (r *Run) Continue() []Encoded {
	if !r.Training() {
		return nil
	}
	f, err := r.model.(Trainer).TrainStep()
	r.train.dirty = true
	r.train.left--
	if err != nil {
		r.train.left = 0
		return []Encoded{r.Error(&CommandError{Command: string(TrainCommand), Msg: "training stopped: " + strings.TrimPrefix(err.Error(), "models: ")}), r.Snapshot()}
	}
	checkFrame("train", f)
	r.trained++
	r.train.last, r.train.unsent = f, true
	done := r.train.of - r.train.left
	if every := max(1, r.train.of/trainReports); done%every != 0 && done != r.train.of {
		return nil
	}
	out := []Encoded{r.progress()}
	if !r.Training() {
		out = append(out, r.Snapshot())
	}
	return out
}

// Progress reports the training steps taken since the last progress message, if any,
// with the last step's loss and metrics: a session whose training waits for its turn
// calls it after each turn, so that its page's progress bar moves every turn even when
// a turn is shorter than the steps between two of Continue's reports.
func (r *Run) Progress() (Encoded, bool) {
	if !r.Training() || !r.train.unsent {
		return Encoded{}, false
	}
	return r.progress(), true
}

// progress encodes the train message of the last TrainStep.
func (r *Run) progress() Encoded {
	f := r.train.last
	meta := make(map[string]any, len(f.Meta)+2)
	for k, v := range f.Meta {
		meta[k] = v
	}
	meta["done"], meta["of"] = r.train.of-r.train.left, r.train.of
	r.train.last, r.train.unsent = Frame{}, false
	return r.encode(Header{Type: TrainMessage, Meta: meta}, f.Arrays)
}

// Frame encodes the current step's frame.
func (r *Run) Frame() Encoded {
	h := Header{Type: FrameMessage, Playing: r.playing}
	if r.step == 0 {
		return r.encode(h, nil)
	}
	f := r.frame(r.step)
	h.Meta, h.Facts = f.Meta, f.Facts
	return r.encode(h, f.Arrays)
}

// refresh drops the cached frames and re-reads the static frame once the model has
// trained since they were made.
func (r *Run) refresh() {
	if !r.train.dirty {
		return
	}
	clear(r.frames)
	r.static = r.model.Static()
	checkFrame("static", r.static)
	r.train.dirty = false
}

// Snapshot encodes the whole state: the static frame, and every step's arrays and
// meta from 1 to the current step named "<name>@<t>"; at step 0, the shapes of step
// 1's arrays.
func (r *Run) Snapshot() Encoded {
	r.refresh()
	arrays := append([]Array(nil), r.static.Arrays...)
	meta := map[string]any{}
	for t := 1; t <= r.step; t++ {
		f := r.frame(t)
		suffix := "@" + strconv.Itoa(t)
		for _, a := range f.Arrays {
			a.Name += suffix
			arrays = append(arrays, a)
		}
		for k, v := range f.Meta {
			meta[k+suffix] = v
		}
	}
	var facts []Fact
	var shapes map[string][]int
	if r.step > 0 {
		facts = r.frame(r.step).Facts
	} else if r.model.Steps() > 0 { // the frame the first step will send, computed (and cached) now for its shapes
		shapes = map[string][]int{}
		for _, a := range r.frame(1).Arrays {
			shapes[a.Name] = append([]int{}, a.Shape...)
		}
	}
	return r.encode(Header{
		Type: SnapshotMessage, Meta: meta, Facts: facts, Playing: r.playing,
		Params: r.values, Speed: r.speed, Static: r.static.Meta, Trained: r.trained, Session: r.session,
		StaticFacts: r.static.Facts, Passes: r.passes, Shapes: shapes,
	}, arrays)
}

// SetSession names the run in its snapshots, so that a page that lost its connection
// can ask for this run again. The name means nothing to the run.
func (r *Run) SetSession(name string) { r.session = name }

// Trained is how many optimisation steps the model has taken since it was built (by
// NewRun or a set). A model is deterministic in its values and this count: building it
// and training it Trained steps gives it again (lessons.Replay).
func (r *Run) Trained() int { return r.trained }

// SetTrainLimit caps the optimisation steps the model may take since it was built (a
// lesson's MaxTrained; MaxTrainSteps until set): a train command past it is refused.
func (r *Run) SetTrainLimit(n int) { r.maxTrained = max(0, min(n, MaxTrainSteps)) }

// SetClock makes every message the run encodes from now on carry the time now gives
// when it is encoded (the header's "sent", docs/protocol.md): a web session passes
// time.Now, so that a client can measure how long a frame took to reach it, queueing
// in the outbox included. A run without a clock (nil, the default) stamps nothing, and
// its messages stay byte-identical for the same commands.
func (r *Run) SetClock(now func() time.Time) { r.clock = now }

// Acked is the ID of the last numbered command the run carried out or refused (0: none).
func (r *Run) Acked() uint64 { return r.acked }

// Session is the name SetSession gave.
func (r *Run) Session() string { return r.session }

// Error encodes an error message for err; a *CommandError names its command.
func (r *Run) Error(err error) Encoded {
	meta := map[string]any{}
	var ce *CommandError
	if errors.As(err, &ce) {
		meta["message"] = ce.Sentence()
		if ce.Command != "" {
			meta["command"] = ce.Command
		}
	} else {
		meta["message"] = sentence(strings.TrimPrefix(err.Error(), "sim: "))
	}
	return r.encode(Header{Type: ErrorMessage, Meta: meta}, nil)
}

// encode numbers and encodes one message into the run's reused scratch buffer, then
// copies it into an exactly-sized buffer of its own, because it outlives the call.
func (r *Run) encode(h Header, arrays []Array) Encoded {
	r.seq++
	h.Seq, h.Step, h.Steps, h.Ack = r.seq, r.step, r.Steps(), r.acked
	if r.clock != nil {
		h.Sent = MillisOf(r.clock())
	}
	r.scratch = EncodeMessage(r.scratch, h, arrays)
	return Encoded{Type: h.Type, Seq: h.Seq, Data: bytes.Clone(r.scratch)}
}
