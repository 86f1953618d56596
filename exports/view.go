// Package exports draws a lesson page's panels as slide figures, from what the page
// itself reads: the panel's declaration (lessons.Panel and its Contract) and the
// model's frames up to the page's step. Package figures draws them; this package
// says what each panel kind shows. It also writes the numbers behind a panel as CSV,
// a panel stepping through time as an animated GIF, and a view's figure pack (ZIP).
package exports

import (
	"context"
	"fmt"

	"unroll/lessons"
	"unroll/sim"
)

// View is a page's state as an export draws it: one built model's static frame and
// the frames of steps 1..Step, as the page holds them after stepping there.
type View struct {
	Lesson *lessons.Lesson
	Static sim.Frame
	Frames []sim.Frame // Frames[s-1] is scrubber step s, s = 1..Step()
	Steps  int         // the model's steps: the scrubber's length
	Passes []sim.Pass
	Loss   []float64 // the training loss of each step the model took (lessons.LossCurve)
	// Values are the page's parameter values, where the caller knows them: what a
	// panel's words depend on (the loss's name); nil reads as the defaults.
	Values sim.Values
}

// NewView steps model m of lesson l to step (clamped to 0..Steps), computing each
// frame as a page does; it stops early, with ctx's error, when ctx ends.
func NewView(ctx context.Context, l *lessons.Lesson, m sim.Model, step int) (View, error) {
	v := View{Lesson: l, Static: m.Static(), Steps: m.Steps(), Passes: sim.PassesOf(m), Loss: lessons.LossCurve(m)}
	step = max(0, min(step, v.Steps))
	v.Frames = make([]sim.Frame, 0, step)
	for s := 1; s <= step; s++ {
		if err := ctx.Err(); err != nil {
			return View{}, err
		}
		v.Frames = append(v.Frames, m.At(s))
	}
	return v, nil
}

// Step is the view's current scrubber step (0 before the first).
func (v View) Step() int { return len(v.Frames) }

// Until is the view as it was at scrubber step s (0 ≤ s ≤ Step): an animation's frame.
func (v View) Until(s int) View {
	v.Frames = v.Frames[:max(0, min(s, len(v.Frames)))]
	return v
}

// TimeSteps is the length of the time axis t = 1..T: the scrubber's steps, or, on a
// model with several passes over t (BPTT's forward and backward passes), the longest.
func (v View) TimeSteps() int {
	var timed []sim.Pass
	for _, p := range v.Passes {
		if p.Index == "t" {
			timed = append(timed, p)
		}
	}
	if len(timed) < 2 {
		return v.Steps
	}
	T := 0
	for _, p := range timed {
		first, last := p.First, p.Last
		if first == 0 && last == 0 {
			first, last = 1, p.Steps
		}
		T = max(T, first, last)
	}
	return T
}

// backward reports whether array name is declared as computed from the end.
func (v View) backward(name string) bool {
	a, _ := v.Lesson.ArrayNamed(name)
	return a.Dir == lessons.Backward
}

// TimeOf is the time step t that per-step array name holds at scrubber step s, or 0
// when that step's value is off the time axis.
func (v View) TimeOf(name string, s int) int {
	t := s
	if v.backward(name) {
		t = v.Steps + 1 - s
	}
	if s < 1 || t < 1 || t > v.TimeSteps() {
		return 0
	}
	return t
}

// StepOf is the scrubber step at which array name's value for time t arrives.
func (v View) StepOf(name string, t int) int {
	if v.backward(name) {
		return v.Steps + 1 - t
	}
	return t
}

// NowTime is the time step the current scrubber step works on for a panel of these
// arrays: the first per-step array's, else the step itself; 0 before the first step.
func (v View) NowTime(names []string) int {
	for _, n := range names {
		if _, ok := v.At(n, v.Step()); ok {
			if t := v.TimeOf(n, v.Step()); t > 0 {
				return t
			}
		}
	}
	return v.Step()
}

// At is per-step array name at scrubber step s (1 ≤ s ≤ Step), if that frame has it.
func (v View) At(name string, s int) (sim.Array, bool) {
	if s < 1 || s > len(v.Frames) {
		return sim.Array{}, false
	}
	return find(v.Frames[s-1].Arrays, name)
}

// StaticArray is the static frame's array name, if it has one.
func (v View) StaticArray(name string) (sim.Array, bool) { return find(v.Static.Arrays, name) }

// Meta is the current step's meta value under key, if any.
func (v View) Meta(key string) (any, bool) {
	if len(v.Frames) == 0 {
		return nil, false
	}
	x, ok := v.Frames[len(v.Frames)-1].Meta[key]
	return x, ok
}

// StaticMeta is the static frame's meta value under key, if any.
func (v View) StaticMeta(key string) (any, bool) {
	x, ok := v.Static.Meta[key]
	return x, ok
}

func find(arrays []sim.Array, name string) (sim.Array, bool) {
	for _, a := range arrays {
		if a.Name == name {
			return a, true
		}
	}
	return sim.Array{}, false
}

// label is array name's label in the lecture's symbols (its declaration's), else its name.
func (v View) label(name string) string {
	if a, ok := v.Lesson.ArrayNamed(name); ok && a.Label != "" {
		return a.Label
	}
	return name
}

// errNoData is an export's error for a panel with nothing to draw yet.
func errNoData(p lessons.Panel, why string) error {
	return fmt.Errorf("exports: the panel %q has nothing to draw: %s", p.ID, why)
}
