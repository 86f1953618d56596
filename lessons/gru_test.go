package lessons

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

func TestGRUTrainFromScratch(t *testing.T) {
	build := func() sim.Trainer {
		v := gruLesson.Params.Defaults()
		v["task"], v["seed"] = "skip", "3"
		m, err := gruLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		return m.(sim.Trainer)
	}
	a, b := build(), build()
	before := a.At(a.Steps())
	var first, last float64
	const steps = 300 // enough for the skip task to be mostly learnt
	for i := range steps {
		fa, err := a.TrainStep()
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := b.TrainStep()
		if !reflect.DeepEqual(fa, fb) {
			t.Fatalf("train step %d: two runs from the same seed differ", i+1)
		}
		loss := fa.Meta["loss"].(float64)
		if i == 0 {
			first = loss
		}
		last = loss
	}
	if last > first/3 {
		t.Errorf("loss after %d steps: got %v want ≤ %v (a third of the first, %v)", steps, last, first/3, first)
	}
	if reflect.DeepEqual(before, a.At(a.Steps())) {
		t.Errorf("frames did not change after training")
	}
	if got := a.Static().Meta["weights"].(string); got != "trained from scratch for "+strconv.Itoa(steps)+" steps (seed 3)" {
		t.Errorf("weights: got %q", got)
	}
	if !reflect.DeepEqual(a.At(3), b.At(3)) || !reflect.DeepEqual(a.Static(), b.Static()) {
		t.Errorf("trained runs from the same seed show different frames")
	}
}

// TestGRUAnswersSayWhy: where the answers are shown (the tokens panel), the page says
// what "valid" means on checksum; step 1, the check digit, shows the task's mark for
// "asks nothing" with the reason in its facts; every other step's facts give the
// reason for its answer, the check digit compared with the digit read.
func TestGRUAnswersSayWhy(t *testing.T) {
	for _, l := range []*Lesson{gruLesson, lstmLesson} {
		note := l.Panels[0].Note
		if l.Panels[0].ID != "tokens" || !strings.Contains(note, "valid when the digit just read equals the first digit, the check digit") {
			t.Errorf("%s: the tokens panel's note %q does not say what valid means", l.Slug, note)
		}
		v := l.Params.Defaults()
		v["input"] = "2 0 2"
		m, err := l.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		answers := m.Static().Meta["answers"].([]any)
		if want := []any{data.ChecksumTask.Unasked, "invalid", "valid"}; !reflect.DeepEqual(answers, want) || want[0] == "" {
			t.Errorf("%s: answers %v, want %v", l.Slug, answers, want)
		}
		if got := m.At(1).Meta["answer_why"]; got != data.ChecksumTask.UnaskedWhy || !strings.Contains(got.(string), "check digit") {
			t.Errorf("%s step 1: why %q, want the reason the check digit asks nothing", l.Slug, got)
		}
		for s, want := range map[int]string{2: "xₜ = 0 ≠ 2, the check digit", 3: "xₜ = 2, the check digit: the sequence would be valid"} {
			if got, _ := m.At(s).Meta["answer_why"].(string); !strings.HasPrefix(got, want) {
				t.Errorf("%s step %d: why %q, want it to start %q", l.Slug, s, got, want)
			}
		}
	}
}

// TestGRUConvention003: seed 003 writes the update as c = Γ_u c̃ + (1 − Γ_u) c_{t−1},
// so its Γ_u is 1 − Z_t. The page's Γ_u array is exactly that, H_t = Γ_u ⊙ H̃_t +
// (1 − Γ_u) ⊙ H_{t-1} holds with it, and switching the convention changes no number
// of the model (only which equations and panel are shown).
func TestGRUConvention003(t *testing.T) {
	frames := func(conv string) (sim.Frame, []sim.Frame) {
		v := gruLesson.Params.Defaults()
		v["convention"] = conv
		m, err := gruLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		var steps []sim.Frame
		for s := 1; s <= m.Steps(); s++ {
			steps = append(steps, m.At(s))
		}
		return m.Static(), steps
	}
	s1, lecture := frames(conventionLecture)
	s2, other := frames(convention003)
	if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(lecture, other) {
		t.Errorf("the lecture-003 convention changed the model's numbers")
	}
	prev := make([]float64, zoo.HiddenFor(data.ChecksumTask))
	for s, f := range lecture {
		arr := map[string][]float64{}
		for _, a := range f.Arrays {
			arr[a.Name] = a.Data
		}
		for j, z := range arr["Z"] {
			g := arr["Gamma_u"][j]
			if g != 1-z {
				t.Fatalf("step %d unit %d: Γ_u = %v, want 1 − Z_t = %v", s+1, j+1, g, 1-z)
			}
			if h := g*arr["H_tilde"][j] + (1-g)*prev[j]; math.Abs(h-arr["H"][j]) > 1e-12 {
				t.Errorf("step %d unit %d: Γ_u H̃_t + (1 − Γ_u) H_{t-1} = %v, want H_t = %v", s+1, j+1, h, arr["H"][j])
			}
		}
		prev = arr["H"]
	}
	shown := func(w *sim.Applies, conv string) bool { return w == nil || slices.Contains(w.Values, conv) }
	for _, conv := range []string{conventionLecture, convention003} {
		var z, g int
		for _, p := range gruLesson.Panels {
			if shown(p.When, conv) && slices.Contains(p.Arrays, "Z") {
				z++
			}
			if shown(p.When, conv) && slices.Contains(p.Arrays, "Gamma_u") {
				g++
			}
		}
		if want := map[string][2]int{conventionLecture: {1, 0}, convention003: {0, 1}}[conv]; [2]int{z, g} != want {
			t.Errorf("%s: %d panels of Z and %d of Γ_u shown, want %v", conv, z, g, want)
		}
		eqs := ""
		for _, e := range gruLesson.Equations {
			if shown(e.When, conv) {
				eqs += e.TeX
			}
		}
		if has := strings.Contains(eqs, `\Gamma_u \odot \tilde H_t + (1 - \Gamma_u) \odot H_{t-1}`); has != (conv == convention003) {
			t.Errorf("%s: the equations shown hold seed 003's update: %v", conv, has)
		}
		if has := strings.Contains(eqs, `Z_t \odot H_{t-1} + (1 - Z_t) \odot \tilde H_t`); has != (conv == conventionLecture) {
			t.Errorf("%s: the equations shown hold the lecture's update: %v", conv, has)
		}
	}
}

// TestGRUGateRoles: the notes' roles of the gates (seeds 000, 002, 004: reset gates
// capture short-term dependencies, update gates long-term ones) as the page measures
// them on the held-out sets: the long-term task, checksum, falls below always answering
// "invalid" when Z_t is clamped to 0; the short-term task, reset, survives Z_t = 0 far
// better than R_t = 1. The prose quotes the four percentages.
func TestGRUGateRoles(t *testing.T) {
	acc := func(task *data.Task, c Clamp) float64 {
		m, _, err := zoo.SharedGRUClassifier(task, zoo.VariantLecture)
		if err != nil {
			t.Fatal(err)
		}
		right, n := 0, 0
		for _, ids := range zoo.EvalSet(task) {
			st := m.Run(ids, c)
			for i, y := range task.Targets(ids) {
				if y >= 0 {
					n++
					if models.Argmax(st[i].Probs) == y {
						right++
					}
				}
			}
		}
		return float64(right) / float64(n)
	}
	majority := func(task *data.Task) float64 {
		count, n := map[int]int{}, 0
		for _, ids := range zoo.EvalSet(task) {
			for _, y := range task.Targets(ids) {
				if y >= 0 {
					count[y]++
					n++
				}
			}
		}
		top := 0
		for _, c := range count {
			top = max(top, c)
		}
		return float64(top) / float64(n)
	}
	checkZ0, base := acc(data.ChecksumTask, Clamp{Gate: "Z", Value: 0}), majority(data.ChecksumTask)
	resetZ0, resetR1 := acc(data.ResetTask, Clamp{Gate: "Z", Value: 0}), acc(data.ResetTask, Clamp{Gate: "R", Value: 1})
	if checkZ0 >= base {
		t.Errorf("checksum with Z_t = 0: %.3f right, want below the %.3f of the majority answer", checkZ0, base)
	}
	if resetZ0 < resetR1+0.2 {
		t.Errorf("reset: Z_t = 0 gives %.3f, R_t = 1 gives %.3f; want the reset gate to matter far more", resetZ0, resetR1)
	}
	prose := strings.Join(gruLesson.Prose, " ")
	for _, x := range []float64{checkZ0, base, resetZ0, resetR1} {
		if p := fmt.Sprintf("%.0f %%", 100*x); !strings.Contains(prose, p) {
			t.Errorf("the prose does not quote the measured %s", p)
		}
	}
}
