package zoo

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
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
		got := m.RunLSTM(ids, models.GateClamp{})
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
		clamp models.GateClamp
		check func(st LSTMStep) (what string, got, want float64)
	}{
		// F_t = 0: nothing is kept, C_t is what is written now.
		{"F=0", models.GateClamp{Gate: "F", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "C - I⊙C̃", maxAbsDiff(st.C, st.Written), 0
		}},
		// O_t = 0: the cell is hidden, H_t = 0.
		{"O=0", models.GateClamp{Gate: "O", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "max |H|", maxAbsDiff(st.H, make([]float64, len(st.H))), 0
		}},
		// I_t = 0: nothing is ever written, C_t = C_0 = 0.
		{"I=0", models.GateClamp{Gate: "I", Value: 0}, func(st LSTMStep) (string, float64, float64) {
			return "max |C|", maxAbsDiff(st.C, make([]float64, len(st.C))), 0
		}},
		{"F=0.25", models.GateClamp{Gate: "F", Value: 0.25}, func(st LSTMStep) (string, float64, float64) {
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

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
