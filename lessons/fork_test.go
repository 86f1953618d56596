package lessons

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/internal/alias"
	"unroll/models"
	"unroll/sim"
)

// trainedRun is l's run at its defaults, trained n steps (lessons that train), at its
// middle step.
func trainedRun(t testing.TB, l *Lesson, n int) *sim.Run {
	t.Helper()
	r, err := sim.NewRun(l.Params, l.Model, l.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	r.SetTrainLimit(l.MaxTrained)
	if n > 0 {
		trainAll(t, r, n)
	}
	r.Seek(r.Steps() / 2)
	return r
}

// trainAll runs a train command of n steps to its end and returns its messages.
func trainAll(t testing.TB, r *sim.Run, n int) [][]byte {
	t.Helper()
	if _, err := r.Apply(sim.Command{Type: sim.TrainCommand, Steps: n}); err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for r.Training() {
		for _, e := range r.Continue() {
			if e.Type == sim.ErrorMessage {
				t.Fatalf("training failed: %s", e.Data)
			}
			out = append(out, e.Data)
		}
	}
	return out
}

// unnumbered is message m with seq 0, encoded again, so that two runs' messages
// compare byte for byte whatever their numbering.
func unnumbered(t *testing.T, m []byte) []byte {
	t.Helper()
	d, err := sim.DecodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	d.Header.Seq = 0
	return sim.EncodeMessage(nil, d.Header, d.Arrays)
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

// everyFrame is the snapshot at the last step, which holds every step's frame.
func everyFrame(r *sim.Run) []byte {
	step := r.Step()
	r.Seek(r.Steps())
	s := r.Snapshot().Data
	r.Seek(step)
	return s
}

// trainState are the types of what training writes: weights and gradients, the
// optimiser, the random streams. (The meta a model updates in place is a map among
// many maps made once and only read; the training below finds it shared.)
func trainState(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[mat.Dense](), reflect.TypeFor[models.Param](), reflect.TypeFor[models.Adam](),
		reflect.TypeFor[rand.PCG](), reflect.TypeFor[rand.Rand]():
		return true
	}
	return false
}

// TestLessonFork: every lesson's model is a sim.Forker. A fork of a run (trained a
// few steps, for a lesson that trains) shows the same snapshot and frames as the
// original; it shares no weights, optimiser state, random stream or meta map with it
// beyond what a fresh page shares; k more training steps on the fork give the same
// messages, byte for byte, as k more on the original; training the fork leaves the
// original's frames as they were; and the two train (or step) at the same time
// without a race.
func TestLessonFork(t *testing.T) {
	const before, after = 4, 3 // the embeddings' map is redrawn at the 5th step: after the fork
	for _, l := range testedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			n := 0
			if l.Trains {
				n = before
			}
			r := trainedRun(t, l, n)
			f, err := r.Fork()
			if err != nil {
				t.Fatalf("Fork: %v", err)
			}
			_, trains := f.Model().(sim.Trainer)
			_, passes := f.Model().(sim.Timeline)
			_, rawPasses := r.Model().(sim.Timeline)
			if trains != l.Trains || passes != rawPasses {
				t.Fatalf("the fork's model is a Trainer: %v, a Timeline: %v; want %v, %v", trains, passes, l.Trains, rawPasses)
			}
			if f.Step() != r.Step() || f.Trained() != n {
				t.Fatalf("the fork is at step %d, trained %d; want %d, %d", f.Step(), f.Trained(), r.Step(), n)
			}
			original := r.Snapshot().Data
			sameMessages(t, "the first snapshot", [][]byte{f.Snapshot().Data}, [][]byte{original})
			sameMessages(t, "every frame", [][]byte{everyFrame(f)}, [][]byte{everyFrame(r)})
			if !l.Trains {
				var wg sync.WaitGroup // frames computed again at the same time, for the race detector
				for _, run := range []*sim.Run{r, f} {
					wg.Go(func() { run.Model().Static(); run.Model().At(run.Steps()) })
				}
				wg.Wait()
				return
			}
			fresh, err := l.Model(l.Params.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			if shared := alias.Shared(r.Model(), f.Model(), trainState, fresh); len(shared) > 0 {
				t.Fatalf("the fork shares what training writes with the original: %v", shared)
			}

			forked := trainAll(t, f, after)
			sameMessages(t, "the original after the fork trained", [][]byte{r.Snapshot().Data}, [][]byte{original})
			sameMessages(t, "the original's frames after the fork trained", [][]byte{everyFrame(r)}, [][]byte{everyFrame(trainedRun(t, l, n))})
			sameMessages(t, "3 more training steps", trainAll(t, r, after), forked)
			sameMessages(t, "every frame after them", [][]byte{everyFrame(r)}, [][]byte{everyFrame(f)})

			// Both train at the same time: the race detector sees any state they share.
			var out [2][][]byte
			var wg sync.WaitGroup
			for i, run := range []*sim.Run{r, f} {
				wg.Go(func() { out[i] = append(trainAll(t, run, 2), everyFrame(run)) })
			}
			wg.Wait()
			sameMessages(t, "2 steps each at the same time", out[0], out[1])
		})
	}
}

// BenchmarkLessonFork is what a fork costs the instructor's simulator, per lesson that
// trains: the copy of a run trained a few steps (its own weights and optimiser state),
// against one of its training steps (BenchmarkLessonFork/<slug>/train-step), the least
// a retrained copy would cost.
func BenchmarkLessonFork(b *testing.B) {
	for _, l := range Catalog() {
		if !l.Trains {
			continue
		}
		r := trainedRun(b, l, 2)
		b.Run(l.Slug+"/fork", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Fork(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(l.Slug+"/train-step", func(b *testing.B) {
			tr := r.Model().(sim.Trainer)
			for b.Loop() {
				if _, err := tr.TrainStep(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
