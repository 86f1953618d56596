package zoo

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"unroll/data"
	"unroll/internal/machine"
	"unroll/internal/testkit"
	"unroll/models"
)

// checkGradient compares every parameter gradient lossGrad leaves with central
// differences of the loss it returns (testkit.NumericGradient).
func checkGradient(t *testing.T, name string, ps models.Params, lossGrad func() float64, tol float64) {
	t.Helper()
	for _, p := range ps {
		want := testkit.NumericGradient(p.Value.RawMatrix().Data, lossGrad, 1e-6)
		lossGrad() // the gradients at the unperturbed weights
		if msg := testkit.Mismatch(name+" ∂L/∂"+p.Name, p.Grad.RawMatrix().Data, want, tol, tol); msg != "" {
			t.Fatal(msg)
		}
	}
}

func TestArchBGradient(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		starts []int
		T      int
	}{{1, []int{0, 40}, 3}, {2, []int{7}, 5}} {
		m := newArchB(c.seed)
		rng := rand.New(rand.NewPCG(1, 1))
		for _, p := range m.Params() {
			p.Uniform(0.3, rng) // nonzero biases too
		}
		_, feed := m.lossGrad(c.starts, c.T, nil) // ŷ_{t-1} is an input: hold it fixed
		checkGradient(t, "B", m.Params(), func() float64 { l, _ := m.lossGrad(c.starts, c.T, feed); return l }, 1e-6)
	}
}

func TestArchCGradient(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		m := newArchC(seed)
		rng := rand.New(rand.NewPCG(1, seed))
		for _, p := range m.Params() {
			p.Uniform(0.5, rng)
		}
		seqs := archCWindows(rng, 3)
		checkGradient(t, "C", m.Params(), func() float64 { return m.lossGrad(seqs) }, 1e-6)
	}
}

// TestArchCheckpoints: the bundled B and C models reproduce their recorded scores; B
// learnt the text but writes worse than A (it only remembers what its output shows);
// C answers the question on held-out windows.
func TestArchCheckpoints(t *testing.T) {
	b, c, err := LoadArchModels()
	if err != nil {
		t.Fatal(err)
	}
	rawB, _ := checkpointFS.ReadFile("checkpoints/" + archCheckpointB)
	rawC, _ := checkpointFS.ReadFile("checkpoints/" + archCheckpointC)
	bpc := b.BitsPerChar()
	machine.CheckRecorded(t, "B bits per character", bpc, readMeta(t, rawB).Float("bits_per_char"), machine.RecordedSmooth)
	a, err := loadCharLM()
	if err != nil {
		t.Fatal(err)
	}
	if limit := math.Log2(float64(len(data.CharVocab))) / 2; bpc > limit || bpc < a.BitsPerChar() {
		t.Errorf("B bits per character: got %v want ≤ %v and more than A's %v", bpc, limit, a.BitsPerChar())
	}
	acc := c.Accuracy()
	machine.CheckRecorded(t, "C accuracy", acc, readMeta(t, rawC).Float("accuracy"), machine.RecordedCount)
	if acc < 0.95 {
		t.Errorf("C accuracy: got %v want ≥ 0.95", acc)
	}
}

func TestArchRun(t *testing.T) {
	b, c, err := LoadArchModels()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"the sea is calm", "the cat sat on the mat"} {
		ids, _ := charIDs(text)
		sb, sc := b.Run(ids), c.Run(ids)
		if len(sb) != len(ids) || len(sc) != len(ids) {
			t.Fatalf("%q: got %d and %d steps want %d", text, len(sb), len(sc), len(ids))
		}
		for i, st := range sc {
			if (st.Probs != nil) != (i == len(ids)-1) {
				t.Fatalf("%q step %d: C has an output %v, want one only at the last step", text, i+1, st.Probs)
			}
		}
		for i, st := range sb {
			if len(st.Probs) != len(data.CharVocab) || len(st.H) != ArchBHidden {
				t.Fatalf("%q step %d: B has %d probabilities and %d units", text, i+1, len(st.Probs), len(st.H))
			}
		}
		want := 0
		if strings.Contains(text, "sea") {
			want = 1
		}
		if got := models.Argmax(sc[len(sc)-1].Probs); got != want {
			t.Errorf("%q: C answered %q want %q", text, ArchCClasses[got], ArchCClasses[want])
		}
	}
}
