package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSoftmaxValues(t *testing.T) {
	e1, e2 := math.Exp(1), math.Exp(2)
	z := 1 + e1 + e2
	cases := []struct {
		name   string
		logits []float64
		want   []float64
		tol    float64
	}{
		{"hand", []float64{0, 1, 2}, []float64{1 / z, e1 / z, e2 / z}, 1e-15},
		{"shift invariant huge", []float64{1000, 1001, 1002}, []float64{1 / z, e1 / z, e2 / z}, 1e-15},
		{"huge negative", []float64{-1e4, -1e4 + 1, -1e4 + 2}, []float64{1 / z, e1 / z, e2 / z}, 1e-12},
		{"near float max", []float64{1e308, -1e308}, []float64{1, 0}, 0},
		{"single", []float64{-7}, []float64{1}, 0},
		{"masked by -Inf", []float64{0, math.Inf(-1), 0}, []float64{0.5, 0, 0.5}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]float64, len(tc.logits))
			Softmax(got, tc.logits)
			var sum float64
			for i := range got {
				sum += got[i]
				if math.IsNaN(got[i]) || math.Abs(got[i]-tc.want[i]) > tc.tol {
					t.Errorf("softmax[%d]: got %.17g want %.17g", i, got[i], tc.want[i])
				}
			}
			if math.Abs(sum-1) > 1e-15 {
				t.Errorf("Σ softmax: got %.17g want 1", sum)
			}
			alias := append([]float64(nil), tc.logits...)
			Softmax(alias, alias)
			for i := range alias {
				if alias[i] != got[i] {
					t.Errorf("softmax in place [%d]: got %v want %v", i, alias[i], got[i])
				}
			}
		})
	}
}

func TestLogSoftmaxValues(t *testing.T) {
	cases := []struct {
		name   string
		logits []float64
		want   []float64
		tol    float64
	}{
		{"hand", []float64{0, math.Log(3)}, []float64{math.Log(0.25), math.Log(0.75)}, 1e-15},
		// softmax underflows to 0 here, but log-softmax stays exact.
		{"underflow", []float64{0, 1000}, []float64{-1000, 0}, 0},
		{"huge", []float64{1e300, 1e300}, []float64{-math.Ln2, -math.Ln2}, 0},
		{"masked by -Inf", []float64{math.Inf(-1), 5}, []float64{math.Inf(-1), 0}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]float64, len(tc.logits))
			LogSoftmax(got, tc.logits)
			for i := range got {
				if got[i] != tc.want[i] && !(math.Abs(got[i]-tc.want[i]) <= tc.tol) {
					t.Errorf("log softmax[%d]: got %.17g want %.17g", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestSoftmaxPanics(t *testing.T) {
	logits := mat.NewDense(2, 3, nil)
	cases := []struct {
		name string
		call func()
		want string
	}{
		{"empty", func() { Softmax(nil, nil) }, "models: softmax of an empty vector"},
		{"lengths", func() { LogSoftmax(make([]float64, 2), make([]float64, 3)) }, "models: log-softmax writes 3 values into 2"},
		{"targets", func() { SoftmaxCrossEntropy(logits, []int{0}, nil) }, "models: 1 targets for 2 rows"},
		{"mask", func() { SoftmaxCrossEntropy(logits, []int{0, 1}, []float64{1}) }, "models: mask has 1 weights for 2 rows"},
		{"target range", func() { SoftmaxCrossEntropy(logits, []int{0, 3}, nil) }, "models: target 3 at row 1"},
		{"negative weight", func() { SoftmaxCrossEntropy(logits, []int{0, 1}, []float64{1, -1}) }, "models: mask weight -1 at row 1"},
		{"NaN weight", func() { SoftmaxCrossEntropy(logits, []int{0, 1}, []float64{math.NaN(), 1}) }, "models: mask weight NaN at row 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { layersExpectPanic(t, tc.want, tc.call) })
	}
}

func TestSoftmaxCrossEntropyHand(t *testing.T) {
	// Row 0: logits [1 2 3], target 2: −log(e³/(e+e²+e³)) = log(1 + e⁻¹ + e⁻²).
	// Row 1: logits [0 0 0], target 0: −log(1/3) = log 3, weighted by 0.5.
	// Row 2: padding, with a target the logits make impossible: contributes nothing.
	logits := mat.NewDense(3, 3, []float64{1, 2, 3, 0, 0, 0, 0, 0, -1e308})
	loss, probs, d := SoftmaxCrossEntropy(logits, []int{2, 0, 2}, []float64{1, 0.5, 0})
	want := math.Log(1+math.Exp(-1)+math.Exp(-2)) + 0.5*math.Log(3)
	if math.Abs(loss-want) > 1e-12 {
		t.Errorf("loss: got %.15g want %.15g", loss, want)
	}
	wantD := []float64{0.5/3 - 0.5, 0.5 / 3, 0.5 / 3} // row 1: m(P − onehot)
	for j, w := range wantD {
		if got := d.At(1, j); math.Abs(got-w) > 1e-15 {
			t.Errorf("dLogits[1,%d]: got %v want %v", j, got, w)
		}
	}
	if got := probs.At(1, 0); math.Abs(got-1.0/3) > 1e-15 {
		t.Errorf("probs[1,0]: got %v want 1/3", got)
	}
	if got := probs.At(2, 0); got != 0.5 {
		t.Errorf("probs of a masked row: got %v want 0.5 (still computed)", got)
	}
	for j := 0; j < 3; j++ {
		if got := d.At(2, j); got != 0 {
			t.Errorf("dLogits of masked row [2,%d]: got %v want exactly 0", j, got)
		}
	}
}

func TestSoftmaxCrossEntropyFiniteDifferences(t *testing.T) {
	cases := []struct {
		name     string
		b, vocab int
		mask     []float64
		tol      float64
	}{
		{"no mask", 3, 5, nil, 1e-6},
		{"ones", 2, 4, []float64{1, 1}, 1e-6},
		{"padding zeros", 4, 6, []float64{1, 0, 1, 0}, 1e-6},
		{"weights", 3, 3, []float64{0.5, 2, 0}, 1e-6},
		{"one row", 1, 7, []float64{1}, 1e-6},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(i)))
			logits := layersRandom(tc.b, tc.vocab, rng)
			logits.Scale(3, logits)
			targets := make([]int, tc.b)
			for b := range targets {
				targets[b] = rng.IntN(tc.vocab)
			}
			_, _, d := SoftmaxCrossEntropy(logits, targets, tc.mask)
			loss := func() float64 {
				l, _, _ := SoftmaxCrossEntropy(logits, targets, tc.mask)
				return l
			}
			layersGradCheck(t, "∂loss/∂logits", logits, loss, d, tc.tol)
			for b, m := range tc.mask {
				if m != 0 {
					continue
				}
				for j := 0; j < tc.vocab; j++ {
					if got := d.At(b, j); got != 0 {
						t.Errorf("masked row %d col %d: got gradient %v want exactly 0", b, j, got)
					}
				}
			}
		})
	}
}

func TestSoftmaxCrossEntropyHugeLogits(t *testing.T) {
	logits := mat.NewDense(2, 3, []float64{1e6, 0, -1e6, 800, 800, 800})
	loss, probs, d := SoftmaxCrossEntropy(logits, []int{1, 2}, nil)
	want := 1e6 + math.Log(3) // row 0: −log softmax = 1e6 − 0 (+ log(1 + …) ≈ 0); row 1: log 3
	if math.Abs(loss-want) > 1e-9 {
		t.Errorf("loss: got %.17g want %.17g", loss, want)
	}
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			if v, g := probs.At(i, j), d.At(i, j); math.IsNaN(v) || math.IsNaN(g) {
				t.Errorf("[%d,%d]: got prob %v grad %v want finite", i, j, v, g)
			}
		}
	}
}

func TestArgmax(t *testing.T) {
	for _, tc := range []struct {
		v    []float64
		want int
	}{
		{[]float64{0.1, 0.7, 0.2}, 1},
		{[]float64{0.5, 0.5}, 0}, // the first of equals
		{[]float64{-3}, 0},
		{nil, 0},
		{[]float64{math.Inf(-1), -1e300}, 1},
	} {
		if got := Argmax(tc.v); got != tc.want {
			t.Errorf("Argmax(%v) = %d, want %d", tc.v, got, tc.want)
		}
	}
}
