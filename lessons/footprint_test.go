package lessons

import (
	"fmt"
	"runtime"
	"testing"

	"unroll/internal/machine"
	"unroll/sim"
)

// The footprint measurements: runs of a lesson built with sim.NewRun, each stepped
// to the end (every step's frame computed) and a snapshot made, counted as the live
// heap they add after a garbage collection, averaged over footprintRuns runs.
const (
	footprintRuns = 20 // enough runs that the collector's leftovers are a small share of one
	// footprintRunsSlow is footprintRuns under the race detector or under emulation
	// (UNROLL_EMULATED=1: 20 runs take 140 s under qemu, 6 take about 45 s), which
	// slow every run several times (the heap a run holds is the same within a few per cent).
	footprintRunsSlow = 6
	// footprintTrainSteps is the training a trained measurement does: enough for a
	// run to hold its own weights, its optimiser's state and its training caches.
	footprintTrainSteps = 3
	// footprintSlack is how far above a measurement a declared bound may be: the
	// bounds are the measurements rounded up about 1.5×, and a bound four times what
	// a run holds would admit four times too few sessions.
	footprintSlack = 4
)

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // a second cycle frees what the first one's finalisers released
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// footprintRun builds a run of l at v, moves it to its last step unless idle,
// trains it train steps and makes a snapshot (of every step up to the current one).
func footprintRun(t testing.TB, l *Lesson, v sim.Values, idle bool, train int) *sim.Run {
	t.Helper()
	r, err := sim.NewRun(l.Params, l.Model, v)
	if err != nil {
		t.Fatalf("%s %s: %v", l.Slug, v.Query(), err)
	}
	if !idle {
		if _, err := r.Apply(sim.Command{Type: sim.SeekCommand, Step: r.Steps()}); err != nil {
			t.Fatal(err)
		}
	}
	if train > 0 {
		if _, err := r.Apply(sim.Command{Type: sim.TrainCommand, Steps: train}); err != nil {
			t.Fatal(err)
		}
		for r.Training() {
			r.Continue()
		}
	}
	if _, err := r.Apply(sim.Command{Type: sim.ResumeCommand}); err != nil {
		t.Fatal(err)
	}
	return r
}

// footprint is the mean heap one run of l at v holds (footprintRun) over
// footprintRuns runs, beyond what every run shares: a first run, built before
// counting, loads that.
func footprint(t testing.TB, l *Lesson, v sim.Values, idle bool, train int) int {
	t.Helper()
	n := footprintRuns
	if raceEnabled || machine.Emulated() {
		n = footprintRunsSlow
	}
	first := footprintRun(t, l, v, idle, train)
	before := liveHeap()
	runs := make([]*sim.Run, n)
	for i := range runs {
		runs[i] = footprintRun(t, l, v, idle, train)
	}
	after := liveHeap()
	runtime.KeepAlive(runs)
	runtime.KeepAlive(first)
	return max(0, int(int64(after)-int64(before))/n)
}

// curveBytes bounds what a loss curve of n training steps adds to a run: 8 bytes a
// step in the model's curve and 4 (float32) in the progress message whose room the
// run's encoder keeps, each with up to as much again of spare capacity.
func curveBytes(n int) int { return 2 * (8 + 4) * min(n, lossCurveLimit) }

func kb(n int) string { return fmt.Sprintf("%.0f KB", float64(n)/1024) }

// TestFootprintDeclarations checks what needs no measuring: MaxTrained is within
// sim.MaxTrainSteps and set exactly when the lesson trains, and every lesson
// declares its footprint.
func TestFootprintDeclarations(t *testing.T) {
	for _, l := range testedLessons() {
		if l.MaxTrained < 0 || l.MaxTrained > sim.MaxTrainSteps {
			t.Errorf("%s: MaxTrained got %d want 0 … sim.MaxTrainSteps = %d", l.Slug, l.MaxTrained, sim.MaxTrainSteps)
		}
		if (l.MaxTrained > 0) != l.Trains {
			t.Errorf("%s: MaxTrained got %d with Trains %v want MaxTrained > 0 exactly when the lesson trains", l.Slug, l.MaxTrained, l.Trains)
		}
		if (l.TrainedBytes > 0) != l.Trains {
			t.Errorf("%s: TrainedBytes got %d with Trains %v want TrainedBytes > 0 exactly when the lesson trains", l.Slug, l.TrainedBytes, l.Trains)
		}
		if l.SessionBytes <= 0 {
			t.Errorf("%s: SessionBytes got %d want a bound > 0", l.Slug, l.SessionBytes)
		}
		if l.Largest == nil {
			t.Errorf("%s: no Largest values to measure its largest run with", l.Slug)
		}
	}
}

// TestFootprints measures every lesson's runs (footprint) at its defaults and at its
// Largest values, untrained and, for lessons that train, after footprintTrainSteps
// steps, and checks the declared SessionBytes and TrainedBytes: each bounds the
// larger measurement (TrainedBytes with the loss curve of MaxTrained steps added,
// curveBytes) and exceeds it at most footprintSlack times.
//
// go test ./lessons -run TestFootprints -v lists the measurements, with the idle
// heap of a run at the defaults (built, one snapshot at step 0) besides.
func TestFootprints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a few hundred runs: run without -short")
	}
	for _, l := range testedLessons() {
		t.Run(l.Slug, func(t *testing.T) {
			defaults := l.Params.Defaults()
			largest, err := l.Params.Apply(defaults, l.Largest)
			if err != nil {
				t.Fatalf("Largest: %v", err)
			}
			idle := footprint(t, l, defaults, true, 0)
			ended, big := footprint(t, l, defaults, false, 0), footprint(t, l, largest, false, 0)
			session := max(ended, big)
			t.Logf("untrained: %s idle at the defaults (a snapshot at step 0), %s stepped to the end, %s at the largest values; declared %s",
				kb(idle), kb(ended), kb(big), kb(l.SessionBytes))
			if session > l.SessionBytes {
				t.Errorf("SessionBytes: got %d bytes a run (defaults %d, largest values %d) want at most the declared %d", session, ended, big, l.SessionBytes)
			}
			if l.SessionBytes > footprintSlack*session {
				t.Errorf("SessionBytes: declared %d want at most %d× the %d bytes a run holds", l.SessionBytes, footprintSlack, session)
			}
			if !l.Trains {
				return
			}
			trained := max(footprint(t, l, defaults, false, footprintTrainSteps)-ended, footprint(t, l, largest, false, footprintTrainSteps)-big)
			want := trained + curveBytes(l.MaxTrained)
			t.Logf("trained: %s more after %d steps, %s with the loss curve of MaxTrained = %d steps; declared %s",
				kb(trained), footprintTrainSteps, kb(want), l.MaxTrained, kb(l.TrainedBytes))
			if want > l.TrainedBytes {
				t.Errorf("TrainedBytes: got %d bytes more a trained run (%d measured, %d of loss curve) want at most the declared %d", want, trained, curveBytes(l.MaxTrained), l.TrainedBytes)
			}
			if l.TrainedBytes > footprintSlack*want {
				t.Errorf("TrainedBytes: declared %d want at most %d× the %d bytes a trained run holds more", l.TrainedBytes, footprintSlack, want)
			}
		})
	}
}
