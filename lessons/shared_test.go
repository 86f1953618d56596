package lessons

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"unroll/sim"
)

// sharedRunsPerLesson is how many runs of each lesson TestSharedModelsStayReadOnly
// builds at once: enough goroutines reading one shared model for the race detector
// to see a write.
const sharedRunsPerLesson = 6

// endSnapshot builds a run of l at v, steps it to the end one step at a time and
// returns its snapshot's bytes.
func endSnapshot(t testing.TB, l *Lesson, v sim.Values) []byte {
	r, err := sim.NewRun(l.Params, l.Model, v)
	if err != nil {
		t.Errorf("%s %s: %v", l.Slug, v.Query(), err)
		return nil
	}
	for range r.Steps() {
		if _, err := r.Apply(sim.Command{Type: sim.StepCommand}); err != nil {
			t.Errorf("%s: step: %v", l.Slug, err)
		}
	}
	out, err := r.Apply(sim.Command{Type: sim.ResumeCommand})
	if err != nil {
		t.Errorf("%s: snapshot: %v", l.Slug, err)
		return nil
	}
	return out[0].Data
}

// TestSharedModelsStayReadOnly builds many runs of every lesson at once, at the
// defaults and at the largest values, in parallel goroutines that step them to the
// end and train some of them (run it under -race), and checks that what runs share
// (bundled models, datasets, vocabularies, caches) was never written: a run built
// afterwards, never trained, gives a snapshot byte for byte the same as a run built
// before them all.
func TestSharedModelsStayReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and trains a few hundred runs: run without -short")
	}
	type page struct {
		l      *Lesson
		name   string // "defaults" or "largest values"
		values sim.Values
		before []byte
	}
	var pages []page
	for _, l := range testedLessons() {
		largest, err := l.Params.Apply(l.Params.Defaults(), l.Largest)
		if err != nil {
			t.Fatalf("%s: Largest: %v", l.Slug, err)
		}
		pages = append(pages,
			page{l: l, name: "defaults", values: l.Params.Defaults()},
			page{l: l, name: "largest values", values: largest})
	}
	for i, p := range pages {
		pages[i].before = endSnapshot(t, p.l, p.values)
	}
	var wg sync.WaitGroup
	for _, p := range pages {
		for i := range sharedRunsPerLesson {
			wg.Go(func() {
				r, err := sim.NewRun(p.l.Params, p.l.Model, p.values)
				if err != nil {
					t.Errorf("%s: %v", p.l.Slug, err)
					return
				}
				for range r.Steps() {
					r.Apply(sim.Command{Type: sim.StepCommand})
				}
				if p.l.Trains && i%2 == 1 { // the first training step makes weights of its own (copy-on-write)
					if _, err := r.Apply(sim.Command{Type: sim.TrainCommand, Steps: 2}); err != nil {
						t.Errorf("%s: train: %v", p.l.Slug, err)
					}
					for r.Training() {
						r.Continue()
					}
				}
				r.Apply(sim.Command{Type: sim.ResumeCommand})
			})
		}
	}
	wg.Wait()
	for _, p := range pages {
		if after := endSnapshot(t, p.l, p.values); !bytes.Equal(after, p.before) {
			t.Errorf("%s at its %s: a run built after %d runs of the page ran (some trained) gives another snapshot: got %d bytes (%s) want %d bytes (%s)",
				p.l.Slug, p.name, sharedRunsPerLesson, len(after), head(after), len(p.before), head(p.before))
		}
	}
}

// head is the start of an encoded message, for a failure message.
func head(b []byte) string {
	return fmt.Sprintf("%.80q…", b)
}
