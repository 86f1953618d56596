package models

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// layersGradCheck compares analytic = ∂loss/∂value with central finite differences
// of loss over every entry of value, to relative tolerance tol. value is restored.
func layersGradCheck(t *testing.T, what string, value *mat.Dense, loss func() float64, analytic *mat.Dense, tol float64) {
	t.Helper()
	if msg := gradMismatch(what, analytic, numericGrad(value, loss, 1e-6), tol, tol); msg != "" {
		t.Error(msg)
	}
}

// layersRandom returns an r×c matrix of N(0,1) draws.
func layersRandom(r, c int, rng *rand.Rand) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, rng.NormFloat64())
		}
	}
	return m
}

// layersDot is Σ_ij a_ij b_ij, the loss L = Σ G ⊙ Y whose gradient ∂L/∂Y is G.
func layersDot(a, b *mat.Dense) float64 {
	var e mat.Dense
	e.MulElem(a, b)
	return mat.Sum(&e)
}

func TestEmbeddingForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	emb := NewEmbedding("E", 5, 3, rng)
	if got := emb.Params(); len(got) != 1 || got[0].Name != "E" {
		t.Fatalf("Params: got %v want [E]", got)
	}
	cases := []struct {
		name string
		ids  []int
	}{
		{"one", []int{4}},
		{"batch", []int{0, 2, 1}},
		{"repeated", []int{3, 3, 0, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := emb.Forward(tc.ids)
			if r, c := x.Dims(); r != len(tc.ids) || c != 3 {
				t.Fatalf("dims: got %d×%d want %d×3", r, c, len(tc.ids))
			}
			for b, id := range tc.ids {
				for j := 0; j < 3; j++ {
					if got, want := x.At(b, j), emb.E.Value.At(id, j); got != want {
						t.Errorf("X[%d,%d]: got %v want E[%d,%d] = %v", b, j, got, id, j, want)
					}
				}
			}
		})
	}
}

func TestEmbeddingInitScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	emb := NewEmbedding("E", 200, 100, rng)
	mean := mat.Sum(emb.E.Value) / 20000
	var sq mat.Dense
	sq.MulElem(emb.E.Value, emb.E.Value)
	variance := mat.Sum(&sq)/20000 - mean*mean
	const tol = 0.05 // 20000 draws: the sample variance's std error is ≈ 0.01
	if math.Abs(mean) > tol || math.Abs(variance-embeddingInitStd*embeddingInitStd) > tol {
		t.Errorf("init: got mean %.4f variance %.4f want 0 and %v", mean, variance, embeddingInitStd*embeddingInitStd)
	}
}

func TestEmbeddingBackwardFiniteDifferences(t *testing.T) {
	cases := []struct {
		name       string
		vocab, dim int
		ids        []int
		tol        float64
	}{
		{"single", 4, 3, []int{2}, 1e-7},
		{"batch", 6, 5, []int{0, 5, 1, 2}, 1e-7},
		{"repeated ids add up", 3, 4, []int{1, 1, 2, 1, 0}, 1e-7},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			emb := NewEmbedding("E", tc.vocab, tc.dim, rng)
			g := layersRandom(len(tc.ids), tc.dim, rng)
			emb.E.Grad.Set(0, 0, 0.25) // Backward must add to what is there
			emb.Backward(tc.ids, g)
			emb.E.Grad.Set(0, 0, emb.E.Grad.At(0, 0)-0.25)
			loss := func() float64 { return layersDot(g, emb.Forward(tc.ids)) }
			layersGradCheck(t, "∂L/∂E", emb.E.Value, loss, emb.E.Grad, tc.tol)
		})
	}
}

func TestEmbeddingPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	emb := NewEmbedding("E", 4, 2, rng)
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"id too large", func() { emb.Forward([]int{0, 4}) }, "models: token id 4"},
		{"negative id", func() { emb.Forward([]int{-1}) }, "models: token id -1"},
		{"no ids", func() { emb.Forward(nil) }, "models: embedding of no ids"},
		{"backward id", func() { emb.Backward([]int{9}, mat.NewDense(1, 2, nil)) }, "models: token id 9"},
		{"backward shape", func() { emb.Backward([]int{1, 2}, mat.NewDense(1, 2, nil)) }, "models: embedding dOut is 1×2"},
		{"empty vocab", func() { NewEmbedding("E", 0, 2, rng) }, "models: embedding needs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			layersExpectPanic(t, tc.want, tc.call)
		})
	}
}

// layersExpectPanic fails unless call panics with a message containing want.
func layersExpectPanic(t *testing.T, want string, call func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg, _ := r.(string)
		if err, ok := r.(error); ok {
			msg = err.Error()
		}
		if !strings.Contains(msg, want) {
			t.Errorf("panic: got %v want a message containing %q", r, want)
		}
	}()
	call()
}

func TestDenseForward(t *testing.T) {
	l := &Dense{W: NewParam("W", 2, 3), B: NewBias("b", 3)}
	l.W.Value = mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	l.B.Value = mat.NewDense(1, 3, []float64{0.5, -1, 0})
	x := mat.NewDense(2, 2, []float64{1, 0, -1, 2})
	// Row 1: [1 0]·W + b = [1.5 1 3]; row 2: [-1 2]·W + b = [7.5 7 9].
	want := mat.NewDense(2, 3, []float64{1.5, 1, 3, 7.5, 7, 9})
	if got := l.Forward(x); !mat.EqualApprox(got, want, 1e-12) {
		t.Errorf("O = XW + b: got %v want %v", mat.Formatted(got), mat.Formatted(want))
	}
}

func TestDenseParams(t *testing.T) {
	l := NewDense("out.", 4, 3, rand.New(rand.NewPCG(1, 1)))
	ps := l.Params()
	if len(ps) != 2 || ps[0].Name != "out.W" || ps[1].Name != "out.b" || !ps[1].Vector {
		t.Fatalf("Params: got %v want [out.W out.b(vector)]", ps)
	}
	if r, c := ps[0].Value.Dims(); r != 4 || c != 3 {
		t.Errorf("W dims: got %d×%d want 4×3", r, c)
	}
	if mat.Sum(ps[1].Value) != 0 {
		t.Errorf("bias: got %v want zeros", ps[1].Value.RawRowView(0))
	}
}

func TestDenseBackwardFiniteDifferences(t *testing.T) {
	cases := []struct {
		name         string
		batch, in, o int
		tol          float64
	}{
		{"1×1", 1, 1, 1, 1e-7},
		{"batch 3", 3, 4, 2, 1e-7},
		{"wide", 2, 3, 7, 1e-7},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			l := NewDense("", tc.in, tc.o, rng)
			l.B.Value = layersRandom(1, tc.o, rng)
			x := layersRandom(tc.batch, tc.in, rng)
			g := layersRandom(tc.batch, tc.o, rng)
			dX := l.Backward(x, g)
			loss := func() float64 { return layersDot(g, l.Forward(x)) }
			layersGradCheck(t, "∂L/∂W", l.W.Value, loss, l.W.Grad, tc.tol)
			layersGradCheck(t, "∂L/∂b", l.B.Value, loss, l.B.Grad, tc.tol)
			layersGradCheck(t, "∂L/∂X", x, loss, dX, tc.tol)

			before := mat.DenseCopyOf(l.W.Grad)
			l.Backward(x, g)
			var twice mat.Dense
			twice.Scale(2, before)
			if !mat.EqualApprox(l.W.Grad, &twice, 1e-12) {
				t.Errorf("second Backward: got %v want the gradient accumulated twice %v", mat.Formatted(l.W.Grad), mat.Formatted(&twice))
			}
		})
	}
}

func TestDensePanicsOnShape(t *testing.T) {
	l := NewDense("", 3, 2, rand.New(rand.NewPCG(1, 1)))
	layersExpectPanic(t, "models: dense input X is 1×2, want 1×3", func() { l.Forward(mat.NewDense(1, 2, nil)) })
	layersExpectPanic(t, "models: dense dOut is 1×3, want 1×2", func() { l.Backward(mat.NewDense(1, 3, nil), mat.NewDense(1, 3, nil)) })
}
