package lessons

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
)

// TestLSTMRunMatchesModels: the lesson's own step (which can clamp a gate) is the
// models package's LSTM step when nothing is clamped.
func TestLSTMRunMatchesModels(t *testing.T) {
	const tol = 1e-12
	for _, task := range data.Tasks {
		m := NewLSTMClassifier(task, 7)
		rng := rand.New(rand.NewPCG(1, 1))
		for _, p := range m.Cell.Params() {
			p.Uniform(1, rng) // livelier than the initial U(±1/√h)
		}
		ids := task.Generate(rng, 14)
		got := m.RunLSTM(ids, Clamp{})
		var state models.State
		for ti, id := range ids {
			x := mat.NewDense(1, len(data.Alphabet), nil)
			x.Set(0, id, 1)
			st := m.Cell.Step(x, state)
			state = st.Next
			for _, c := range []struct {
				name string
				got  []float64
			}{{"I", got[ti].I}, {"F", got[ti].F}, {"O", got[ti].O}, {"C_tilde", got[ti].CTilde}, {"C", got[ti].C}, {"H", got[ti].H}} {
				want := mat.Row(nil, 0, st.Gate(c.name))
				for j := range want {
					if math.Abs(c.got[j]-want[j]) > tol {
						t.Fatalf("%s step %d %s[%d]: got %v want %v", task.Name, ti+1, c.name, j, c.got[j], want[j])
					}
				}
			}
			probs := m.Probs(ids)[ti]
			for k := range probs {
				if math.Abs(got[ti].Probs[k]-probs[k]) > tol {
					t.Fatalf("%s step %d ŷ[%d]: got %v want %v", task.Name, ti+1, k, got[ti].Probs[k], probs[k])
				}
			}
		}
	}
}

func TestLSTMClamp(t *testing.T) {
	m, _, err := LoadLSTMClassifier(data.ChecksumTask)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := data.ChecksumTask.Parse(data.ChecksumTask.Default)
	cases := []struct {
		name  string
		clamp Clamp
		check func(st LSTMStep) (what string, got, want float64)
	}{
		// F_t = 0: nothing is kept, C_t is what is written now.
		{"F=0", Clamp{Gate: "F", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "C - I⊙C̃", maxAbsDiff(st.C, st.Written), 0
		}},
		// O_t = 0: the cell is hidden, H_t = 0.
		{"O=0", Clamp{Gate: "O", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "max |H|", maxAbsDiff(st.H, make([]float64, len(st.H))), 0
		}},
		// I_t = 0: nothing is ever written, C_t = C_0 = 0.
		{"I=0", Clamp{Gate: "I", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "max |C|", maxAbsDiff(st.C, make([]float64, len(st.C))), 0
		}},
		{"F=0.25", Clamp{Gate: "F", Value: 0.25}, func(st LSTMStep) (string, float64, float64) {
			return "max |F − 0.25|", maxAbsDiff(st.F, []float64{.25, .25, .25, .25, .25, .25, .25, .25, .25, .25, .25, .25}), 0
		}},
	}
	for _, c := range cases {
		for ti, st := range m.RunLSTM(ids, c.clamp) {
			if what, got, want := c.check(st); got != want {
				t.Fatalf("%s, step %d: %s got %v want %v", c.name, ti+1, what, got, want)
			}
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestLSTMCheckpoints: every shipped LSTM and RNN checkpoint reproduces the accuracy
// recorded in it by cmd/train; the LSTMs are right on ≥ 99 % of the held-out steps and
// their memory cells stay inside the page's fixed colour scale.
func TestLSTMCheckpoints(t *testing.T) {
	for _, task := range data.Tasks {
		for _, load := range []func(*data.Task) (*SeqClassifier, map[string]string, error){LoadLSTMClassifier, LoadRNNClassifier} {
			m, meta, err := load(task)
			if err != nil {
				t.Fatal(err)
			}
			name := string(m.Cell.Kind()) + "-" + task.Name
			seqs := EvalSet(task)
			stepAcc, finalAcc := m.Evaluate(seqs)
			for key, got := range map[string]float64{"accuracy": stepAcc, "final_accuracy": finalAcc} {
				checkRecorded(t, name+" "+key, got, metaFloat(meta, key), recordedCount)
				if m.Cell.Kind() == models.KindLSTM && got < 0.99 {
					t.Errorf("%s %s: got %v want ≥ 0.99", name, key, got)
				}
			}
			if m.Cell.Kind() != models.KindLSTM {
				continue
			}
			c := m.CellRange(seqs)
			checkRecorded(t, name+" c_max", c, metaFloat(meta, "c_max"), recordedSmooth)
			if c > LSTMCellScale {
				t.Errorf("%s: max |C_t| on the held-out set is %v, beyond the page's colour scale ±%d", name, c, LSTMCellScale)
			}
		}
	}
}

// TestParamFormula: the formulas 4(dh+h²+h), 3(dh+h²+h) and dh+h²+h count the real
// cells' parameters, for the page's sizes and random ones.
func TestParamFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sizes := [][2]int{{len(data.Alphabet), LSTMHidden}, {1, 1}}
	for range 5 {
		sizes = append(sizes, [2]int{1 + rng.IntN(20), 1 + rng.IntN(20)})
	}
	for _, s := range sizes {
		d, h := s[0], s[1]
		for _, kind := range []models.Kind{models.KindLSTM, models.KindGRU, models.KindRNN} {
			c, err := models.NewCell(kind, d, h, rng)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.Params().Count(), ParamFormula(kind, d, h); got != want {
				t.Errorf("%s d=%d h=%d: counted %d want the formula's %d", kind, d, h, got, want)
			}
		}
	}
	for kind, want := range map[models.Kind]int{models.KindLSTM: 912, models.KindGRU: 684, models.KindRNN: 228} {
		if got := ParamFormula(kind, len(data.Alphabet), LSTMHidden); got != want {
			t.Errorf("%s with d = 6, h = 12: got %d want %d (the page's prose)", kind, got, want)
		}
	}
	m, err := lstmLesson.Build(lstmLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rawStatic(m).Arrays {
		if a.Name == "params" && !reflect.DeepEqual(a.Data, []float64{912, 684, 228}) {
			t.Errorf("params panel: got %v want [912 684 228]", a.Data)
		}
	}
	if got := rawStatic(m).Meta["params_lstm"].(string); !strings.Contains(got, "= 912") || !strings.HasSuffix(got, "= 912") {
		t.Errorf("params_lstm: got %q want the formula and the count, both 912", got)
	}
}

// TestLastStepGradients: the norm at the last step is ‖(ŷ_T − e_y) W_qᵀ‖, the
// parameter gradients are left at zero, the memory cell gets no gradient at T, and a
// finite difference of L in H_t agrees with ‖∂L/∂H_t‖ along its direction.
func TestLastStepGradients(t *testing.T) {
	const tol = 1e-12
	m, _, err := LoadLSTMClassifier(data.ChecksumTask)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := data.ChecksumTask.Parse(data.ChecksumTask.Default)
	T, y := len(ids), 1
	hn, cn := LastStepGradients(m.Cell, m.Out, ids, y)
	if len(hn) != T || len(cn) != T {
		t.Fatalf("got %d and %d norms want %d", len(hn), len(cn), T)
	}
	p := m.Probs(ids)[T-1]
	d := make([]float64, len(p))
	copy(d, p)
	d[y]--
	var g mat.Dense
	g.Mul(mat.NewDense(1, len(d), d), m.Out.W.Value.T())
	if want := mat.Norm(&g, 2); math.Abs(hn[T-1]-want) > tol {
		t.Errorf("‖∂L/∂H_T‖: got %v want %v", hn[T-1], want)
	}
	if cn[T-1] != 0 {
		t.Errorf("‖∂L/∂C_T‖: got %v want 0", cn[T-1])
	}
	for _, q := range m.Params() {
		if mat.Norm(q.Grad, 2) != 0 {
			t.Fatalf("%s.Grad: got non-zero want zero after LastStepGradients", q.Name)
		}
	}
	for _, v := range hn {
		if !(v > 0) {
			t.Errorf("norms: got %v want all positive", hn)
			break
		}
	}
}

func TestLSTMTrainFromScratch(t *testing.T) {
	build := func() sim.Trainer {
		v := lstmLesson.Params.Defaults()
		v["task"], v["seed"] = "reset", "3"
		m, err := lstmLesson.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		return m.(sim.Trainer)
	}
	a, b := build(), build()
	before := rawAt(a, a.Steps())
	var first, last float64
	const steps = 300 // enough for the reset task to be mostly learnt
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
	if last > first/4 {
		t.Errorf("loss after %d steps: got %v want ≤ %v (a quarter of the first, %v)", steps, last, first/4, first)
	}
	if reflect.DeepEqual(before, rawAt(a, a.Steps())) {
		t.Errorf("frames did not change after training")
	}
	if got := rawStatic(a).Meta["weights"].(string); !strings.HasPrefix(got, "LSTM trained from scratch for "+strconv.Itoa(steps)+" steps (seed 3)") {
		t.Errorf("weights: got %q", got)
	}
	if !reflect.DeepEqual(rawAt(a, 3), rawAt(b, 3)) || !reflect.DeepEqual(rawStatic(a), rawStatic(b)) {
		t.Errorf("trained runs from the same seed show different frames")
	}
}

// TestLSTMLessonModels checks the lesson over its defaults and edge values even
// when it is not in the catalog (TestLessonModels covers catalog lessons).
func TestLSTMLessonModels(t *testing.T) {
	for name, v := range valueSets(lstmLesson) {
		t.Run(name, func(t *testing.T) {
			m, err := lstmLesson.Build(v)
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			checkModel(t, lstmLesson, m)
			m2, _ := lstmLesson.Build(v)
			for s := 1; s <= m.Steps(); s++ {
				if !reflect.DeepEqual(rawAt(m, s), rawAt(m2, s)) {
					t.Fatalf("step %d: two builds from the same values differ", s)
				}
			}
			if !reflect.DeepEqual(rawStatic(m), rawStatic(m2)) {
				t.Fatalf("static: two builds differ")
			}
		})
	}
}

func TestLSTMBadInput(t *testing.T) {
	cases := []struct {
		task, input, want string
	}{
		{"checksum", "hello", "tokens"},
		{"checksum", "2 0 _", "tokens"},
		{"skip", "1 | 2", "tokens"},
		{"checksum", "2", "at least 2 tokens"},
		{"reset", strings.Repeat("1", data.MaxInputLen+1), "at most"},
	}
	for _, c := range cases {
		v := lstmLesson.Params.Defaults()
		v["task"], v["input"] = c.task, c.input
		_, err := lstmLesson.Build(v)
		if err == nil {
			t.Errorf("%s %q: got no error", c.task, c.input)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") || !strings.Contains(msg, c.want) {
			t.Errorf("%s %q: got %q, want a sentence containing %q", c.task, c.input, msg, c.want)
		}
	}
}

// TestGradientComparison pins what the page's prose says about the shipped models on
// the default checksum input: the vanilla RNN's gradient fades by more than 10⁻⁸ from
// the last step back to the first, the gated cells' by less than 10⁻⁴.
func TestGradientComparison(t *testing.T) {
	m, err := lstmLesson.Build(lstmLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*lstmModel)
	lm.run()
	T := lm.Steps()
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"RNN", 0, 1e-8}, {"LSTM", 1e-4, 10}, {"GRU", 1e-4, 10}} {
		g := lm.grads[c.name]
		if ratio := g[0] / g[T-1]; !(ratio > c.lo && ratio < c.hi) {
			t.Errorf("%s: ‖∂L/∂H_1‖/‖∂L/∂H_T‖ got %v want in (%v, %v)", c.name, ratio, c.lo, c.hi)
		}
	}
}

// TestLSTMNoTargetAtEnd: when the last step asks nothing (skip input of filler only),
// the gradients use the LSTM's own answer and say so.
func TestLSTMNoTargetAtEnd(t *testing.T) {
	v := lstmLesson.Params.Defaults()
	v["task"], v["input"] = "skip", "_ _ _"
	m, err := lstmLesson.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, lstmLesson, m)
	if got := rawStatic(m).Meta["gradient_of"].(string); !strings.Contains(got, "own answer") {
		t.Errorf("gradient_of: got %q want a loss on the LSTM's own answer", got)
	}
}
