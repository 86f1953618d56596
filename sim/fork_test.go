package sim

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// toyTrainer is a small model that trains the way the lessons' models do: weights, an
// optimiser's state (momentum and a step count), a training random stream, a loss
// curve and a cache of what its frames show, rebuilt after training.
type toyTrainer struct {
	w, velocity []float64
	updates     int
	src         *rand.PCG
	rng         *rand.Rand
	curve       []float64
	cache       [][]float64 // per step; nil after training
}

const toySteps = 6

func buildToy(v Values) (Model, error) {
	src := rand.NewPCG(uint64(v.Int("seed")), 7)
	m := &toyTrainer{w: make([]float64, v.Int("hidden")), velocity: make([]float64, v.Int("hidden")), src: src, rng: rand.New(src)}
	for i := range m.w {
		m.w[i] = m.rng.NormFloat64()
	}
	return m, nil
}

func (m *toyTrainer) Steps() int { return toySteps }

func (m *toyTrainer) states() [][]float64 {
	if m.cache == nil {
		h := make([]float64, len(m.w))
		for t := range toySteps {
			next := make([]float64, len(h))
			for i := range h {
				next[i] = math.Tanh(m.w[i]*h[(i+1)%len(h)] + m.w[i]*float64(t+1))
			}
			m.cache, h = append(m.cache, next), next
		}
	}
	return m.cache
}

func (m *toyTrainer) Static() Frame {
	return Frame{Arrays: []Array{Vector("w", slices.Clone(m.w))}, Meta: map[string]any{"updates": m.updates}}
}

func (m *toyTrainer) At(t int) Frame { return Frame{Arrays: []Array{Vector("H", m.states()[t-1])}} }

// TrainStep moves each weight towards a target drawn from the stream, with momentum.
func (m *toyTrainer) TrainStep() (Frame, error) {
	loss := 0.0
	for i := range m.w {
		g := m.w[i] - m.rng.NormFloat64()
		loss += g * g
		m.velocity[i] = 0.9*m.velocity[i] + g
		m.w[i] -= 0.01 * m.velocity[i]
	}
	m.updates++
	m.curve = append(m.curve, loss)
	m.cache = nil
	return Frame{Arrays: []Array{Vector("loss_curve", slices.Clone(m.curve))}, Meta: map[string]any{"loss": loss}}, nil
}

// Fork copies everything the model changes; the stream continues where it is.
func (m *toyTrainer) Fork() (Model, error) {
	state, err := m.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(state); err != nil {
		return nil, err
	}
	return &toyTrainer{w: slices.Clone(m.w), velocity: slices.Clone(m.velocity), updates: m.updates,
		src: src, rng: rand.New(src), curve: slices.Clone(m.curve)}, nil
}

func newToyRun(t *testing.T) *Run {
	t.Helper()
	r, err := NewRun(gruSpecs, buildToy, gruSpecs.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// train runs a train command of n steps to its end and returns its messages.
func train(t *testing.T, r *Run, n int) [][]byte {
	t.Helper()
	if _, err := r.Apply(Command{Type: TrainCommand, Steps: n}); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for r.Training() {
		for _, e := range r.Continue() {
			out = append(out, e.Data)
		}
	}
	return out
}

// unnumbered is message m with seq 0, encoded again: two runs' messages compare byte
// for byte whatever their numbering.
func unnumbered(t *testing.T, m []byte) []byte {
	t.Helper()
	d, err := DecodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	d.Header.Seq = 0
	return EncodeMessage(nil, d.Header, d.Arrays)
}

// sameMessages fails unless a and b are the same messages but for their numbering.
func sameMessages(t *testing.T, what string, a, b [][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d messages against %d", what, len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(unnumbered(t, a[i]), unnumbered(t, b[i])) {
			t.Fatalf("%s: message %d of %d differs", what, i+1, len(a))
		}
	}
}

// TestRunForkContinues: a fork of a trained run is at the same state; k more training
// steps on the fork give the same messages, byte for byte, as k more on the original;
// and training the fork leaves the original as it was.
func TestRunForkContinues(t *testing.T) {
	r := newToyRun(t)
	train(t, r, 5)
	r.Seek(4)
	r.SetSession("INSTRUCTOR")
	r.SetTrainLimit(20)
	r.Apply(Command{Type: PlayCommand, Speed: 7}) // from step 4, playing
	f, err := r.Fork()
	if err != nil {
		t.Fatal(err)
	}
	if f.Step() != 4 || f.Trained() != 5 || f.Speed() != 7 || f.Playing() || f.Training() || f.Session() != "" {
		t.Fatalf("the fork is at step %d, trained %d, speed %v, playing %v, training %v, session %q; want 4, 5, 7, paused, not training, no session",
			f.Step(), f.Trained(), f.Speed(), f.Playing(), f.Training(), f.Session())
	}
	first := f.Snapshot()
	if first.Seq != 1 {
		t.Errorf("the fork's first message has seq %d, want 1: a new page's run", first.Seq)
	}
	r.Apply(Command{Type: PauseCommand})
	r.SetSession("")
	before := r.Snapshot().Data
	sameMessages(t, "the fork's first snapshot", [][]byte{first.Data}, [][]byte{before})

	// Training the fork changes nothing of the original.
	forked := train(t, f, 7)
	sameMessages(t, "the original's snapshot after the fork trained", [][]byte{r.Snapshot().Data}, [][]byte{before})
	// The original's next 7 steps are the fork's, byte for byte.
	sameMessages(t, "7 more training steps", train(t, r, 7), forked)
	sameMessages(t, "the snapshots after them", [][]byte{r.Snapshot().Data}, [][]byte{f.Snapshot().Data})
	if _, err := f.Apply(Command{Type: TrainCommand, Steps: 9}); err == nil {
		t.Errorf("the fork trained past the original's train limit (20, with 12 taken)")
	}
}

// TestRunForkWhileTraining: a run forked in the middle of a train command gives a
// paused, idle copy of the model as it is between two steps; the original carries on.
func TestRunForkWhileTraining(t *testing.T) {
	r := newToyRun(t)
	r.Apply(Command{Type: TrainCommand, Steps: 10})
	for range 4 {
		r.Continue()
	}
	f, err := r.Fork()
	if err != nil {
		t.Fatal(err)
	}
	if f.Training() || f.Trained() != 4 || !r.Training() {
		t.Fatalf("fork training %v, trained %d; original training %v: want an idle fork of 4 steps, the original still training", f.Training(), f.Trained(), r.Training())
	}
	for r.Training() {
		r.Continue()
	}
	train(t, f, 6)
	sameMessages(t, "the snapshots after 6 more steps", [][]byte{f.Snapshot().Data}, [][]byte{r.Snapshot().Data})
}

// TestRunForkConcurrent: a fork and its original train at the same time on two
// goroutines (the race detector sees any state they share) and end alike.
func TestRunForkConcurrent(t *testing.T) {
	r := newToyRun(t)
	train(t, r, 3)
	f, err := r.Fork()
	if err != nil {
		t.Fatal(err)
	}
	var out [2][][]byte
	var wg sync.WaitGroup
	for i, run := range []*Run{r, f} {
		wg.Go(func() {
			out[i] = train(t, run, 50)
			out[i] = append(out[i], run.Snapshot().Data)
		})
	}
	wg.Wait()
	sameMessages(t, "50 steps each", out[0], out[1])
}

// failingFork is a Forker that cannot copy itself.
type failingFork struct{ *toyTrainer }

func (failingFork) Fork() (Model, error) { return nil, errors.New("lessons: no copy") }

// TestRunForkRefused: a model that is not a Forker, or whose Fork fails, gives an
// error and no run.
func TestRunForkRefused(t *testing.T) {
	plain, err := NewRun(gruSpecs, func(v Values) (Model, error) {
		m, err := buildToy(v)
		return struct{ Trainer }{m.(Trainer)}, err
	}, gruSpecs.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if f, err := plain.Fork(); f != nil || !errors.Is(err, ErrNoFork) {
		t.Errorf("a model without Fork: got %v, %v; want nil, ErrNoFork", f, err)
	}
	failing, err := NewRun(gruSpecs, func(v Values) (Model, error) {
		m, err := buildToy(v)
		return failingFork{m.(*toyTrainer)}, err
	}, gruSpecs.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if f, err := failing.Fork(); f != nil || err == nil || err.Error() != "lessons: no copy" {
		t.Errorf("a failing Fork: got %v, %v; want nil and its error", f, err)
	}
}
