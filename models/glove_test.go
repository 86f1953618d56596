package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var gloveSentences = [][]int{{0, 1, 2, 3}, {1, 2, 4}, {0, 5, 1, 2, 3, 4}, {2, 2, 5}}

// TestGloVeWeight (seed 003: f(X_ij) = 0 if X_ij = 0, small for rare pairs, capped
// for frequent ones): f(x) = (x/x_max)^α below x_max, 1 from x_max on.
func TestGloVeWeight(t *testing.T) {
	cases := []struct{ x, want float64 }{
		{0, 0}, {1, math.Pow(0.01, 0.75)}, {50, math.Pow(0.5, 0.75)}, {100, 1}, {1e6, 1},
	}
	for _, c := range cases {
		if got := GloVeWeight(c.x, GloVeXMax, GloVeAlpha); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("f(%v): got %v want %v", c.x, got, c.want)
		}
	}
	for x := 1.0; x < 100; x++ {
		if !(GloVeWeight(x, 100, 0.75) < GloVeWeight(x+1, 100, 0.75)) {
			t.Fatalf("f is not increasing below x_max at %v", x)
		}
	}
}

// TestCooccurrence (seed 003: X_ij counts how often i appears in the context of j):
// symmetric, each neighbour within the window counted once, and the totals are the
// number of (position, neighbour) pairs.
func TestCooccurrence(t *testing.T) {
	X := Cooccurrence(gloveSentences, 6, 2)
	pairs := 0.0
	for _, s := range gloveSentences {
		for i := range s {
			pairs += float64(min(len(s)-1, i+2) - max(0, i-2))
		}
	}
	if got := mat.Sum(X); got != pairs {
		t.Errorf("ΣX: got %v want %v", got, pairs)
	}
	if !mat.Equal(X, X.T()) {
		t.Errorf("X is not symmetric")
	}
	// 1 and 2 are adjacent in three sentences and two apart in none other: X = 3.
	if got := X.At(1, 2); got != 3 {
		t.Errorf("X(1,2): got %v want 3", got)
	}
	// 2 2 5: the word 2 is its own neighbour twice (once from each position).
	if got := X.At(2, 2); got != 2 {
		t.Errorf("X(2,2): got %v want 2", got)
	}
	if got := X.At(0, 4); got != 0 { // 0 and 4 are four apart in sentence 3
		t.Errorf("X(0,4): got %v want 0", got)
	}
}

// TestGloVeGradient: Backward's gradients of J agree with central differences.
func TestGloVeGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := NewGloVe(6, 3, rng)
	for _, p := range m.Params() {
		p.Uniform(0.8, rng)
	}
	entries := GloVeEntries(Cooccurrence(gloveSentences, 6, 2), 3, GloVeAlpha) // x_max 3: both branches of f
	m.Params().ZeroGrad()
	if _, err := m.Backward(entries); err != nil {
		t.Fatal(err)
	}
	loss := func() float64 { j, _ := m.Loss(entries); return j }
	for _, p := range m.Params() {
		if msg := gradMismatch(p.Name, p.Grad, numericGrad(p.Value, loss, 1e-6), 1e-6, 1e-8); msg != "" {
			t.Error(msg)
		}
	}
}

// TestGloVeFinal (seed 003: e_w^final = (e_w + θ_w)/2).
func TestGloVeFinal(t *testing.T) {
	m := NewGloVe(5, 4, rand.New(rand.NewPCG(3, 4)))
	F := m.Final()
	for w := range 5 {
		for k := range 4 {
			if want := (m.E.Value.At(w, k) + m.Theta.Value.At(w, k)) / 2; math.Abs(F.At(w, k)-want) > 1e-15 {
				t.Fatalf("final(%d,%d): got %v want %v", w, k, F.At(w, k), want)
			}
		}
	}
}

// TestGloVeLearns: Adam on J fits log X closely on a small corpus.
func TestGloVeLearns(t *testing.T) {
	m := NewGloVe(6, 4, rand.New(rand.NewPCG(5, 6)))
	entries := GloVeEntries(Cooccurrence(gloveSentences, 6, 2), GloVeXMax, GloVeAlpha)
	opt := NewAdam(0.05)
	first, _ := m.Loss(entries)
	var last float64
	for range 500 {
		m.Params().ZeroGrad()
		last, _ = m.Backward(entries)
		opt.Step(m.Params())
	}
	if !(last < 0.01*first) {
		t.Errorf("J after 500 steps: got %v want below 1%% of %v", last, first)
	}
}
