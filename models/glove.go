package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// GloVe's weighting f(x) = (x/x_max)^α below x_max, 1 above (Pennington et al. 2014).
const (
	GloVeAlpha = 0.75 // α: the paper's choice, the same ¾ as word2vec's noise distribution
	GloVeXMax  = 100  // x_max: counts at or above it get full weight
)

// GloVeWeight is f(x) = (x/xMax)^α for 0 < x < xMax, 1 for x ≥ xMax and 0 for
// x = 0: pairs never seen together do not enter the loss, rare pairs (noisy counts)
// weigh little, and very frequent pairs cannot dominate.
func GloVeWeight(x, xMax, alpha float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= xMax:
		return 1
	}
	return math.Pow(x/xMax, alpha)
}

// Cooccurrence is GloVe's matrix X (V×V): X_ij is the number of times word j occurs
// within ±window positions of an occurrence of word i, every sentence of sentences
// read in full, each position in the window counted once whatever its distance (no
// 1/distance weighting, the same window as skip-gram's). Since the window is
// symmetric, X is symmetric. Word ids must lie in [0, vocab).
func Cooccurrence(sentences [][]int, vocab, window int) *mat.Dense {
	if vocab <= 0 || window <= 0 {
		panic(fmt.Sprintf("models: co-occurrence needs vocab > 0 and window > 0, got %d and %d", vocab, window))
	}
	X := mat.NewDense(vocab, vocab, nil)
	for _, s := range sentences {
		for i, wi := range s {
			for j := max(0, i-window); j <= min(len(s)-1, i+window); j++ {
				if j != i {
					X.Set(wi, s[j], X.At(wi, s[j])+1)
				}
			}
		}
	}
	return X
}

// GloVeEntry is one non-zero X_ij with its weight f(X_ij) and log X_ij.
type GloVeEntry struct {
	I, J     int
	Weight   float64 // f(X_ij)
	LogCount float64 // log X_ij
}

// GloVeEntries lists the non-zero entries of X, row by row, with f(X_ij) for the
// given x_max and α: the only terms of J (f(0) = 0).
func GloVeEntries(X *mat.Dense, xMax, alpha float64) []GloVeEntry {
	r, c := X.Dims()
	var out []GloVeEntry
	for i := range r {
		for j := range c {
			if x := X.At(i, j); x > 0 {
				out = append(out, GloVeEntry{I: i, J: j, Weight: GloVeWeight(x, xMax, alpha), LogCount: math.Log(x)})
			}
		}
	}
	return out
}

// GloVe is the model of lecture 003's "Learning 3": word i has a vector θ_i and a
// bias b_i as the target, word j a vector e_j and a bias b′_j as the context, and
// θ_iᵀe_j + b_i + b′_j is fitted to log X_ij.
type GloVe struct {
	Theta *Param // V×d, row i is θ_i
	E     *Param // V×d, row j is e_j
	B     *Param // V×1, b_i
	BC    *Param // V×1, b′_j
}

// NewGloVe returns a GloVe model of vocab words in dim dimensions, vectors drawn
// from U(−0.5/d, 0.5/d) as the reference implementation starts them, biases zero.
func NewGloVe(vocab, dim int, rng *rand.Rand) *GloVe {
	if vocab <= 0 || dim <= 0 {
		panic(fmt.Sprintf("models: GloVe needs vocab > 0 and dim > 0, got %d and %d", vocab, dim))
	}
	m := &GloVe{Theta: NewParam("Theta", vocab, dim), E: NewParam("E", vocab, dim), B: NewParam("b", vocab, 1), BC: NewParam("b'", vocab, 1)}
	m.Theta.Uniform(0.5/float64(dim), rng)
	m.E.Uniform(0.5/float64(dim), rng)
	return m
}

// Params lists Theta, E, b and b′.
func (m *GloVe) Params() Params { return Params{m.Theta, m.E, m.B, m.BC} }

// Loss is J = Σ_{ij} f(X_ij) (θ_iᵀe_j + b_i + b′_j − log X_ij)² over the entries.
func (m *GloVe) Loss(entries []GloVeEntry) (float64, error) { return m.pass(entries, false) }

// Backward returns Loss(entries) and adds its gradients to the parameters' Grad:
// with r_ij = θ_iᵀe_j + b_i + b′_j − log X_ij,
//
//	∂J/∂θ_i = Σ_j 2 f(X_ij) r_ij e_j     ∂J/∂e_j = Σ_i 2 f(X_ij) r_ij θ_i
//	∂J/∂b_i = Σ_j 2 f(X_ij) r_ij         ∂J/∂b′_j = Σ_i 2 f(X_ij) r_ij
func (m *GloVe) Backward(entries []GloVeEntry) (float64, error) { return m.pass(entries, true) }

func (m *GloVe) pass(entries []GloVeEntry, grad bool) (float64, error) {
	if len(entries) == 0 {
		return 0, errors.New("models: GloVe loss of no entries")
	}
	V, _ := m.E.Value.Dims()
	J := 0.0
	for _, x := range entries {
		if x.I < 0 || x.I >= V || x.J < 0 || x.J >= V {
			panic(fmt.Sprintf("models: word ids (%d, %d) outside vocabulary [0, %d)", x.I, x.J, V))
		}
		th, e := m.Theta.Value.RawRowView(x.I), m.E.Value.RawRowView(x.J)
		r := floats.Dot(th, e) + m.B.Value.At(x.I, 0) + m.BC.Value.At(x.J, 0) - x.LogCount
		J += x.Weight * r * r
		if !grad {
			continue
		}
		g := 2 * x.Weight * r
		floats.AddScaled(m.Theta.Grad.RawRowView(x.I), g, e)
		floats.AddScaled(m.E.Grad.RawRowView(x.J), g, th)
		m.B.Grad.Set(x.I, 0, m.B.Grad.At(x.I, 0)+g)
		m.BC.Grad.Set(x.J, 0, m.BC.Grad.At(x.J, 0)+g)
	}
	if math.IsNaN(J) || math.IsInf(J, 0) {
		return J, fmt.Errorf("models: GloVe loss is %v", J)
	}
	return J, nil
}

// Final is the embedding the lecture keeps, e_w^final = (e_w + θ_w)/2, one row per
// word: θ and e play symmetric roles when X is symmetric, so their mean is used.
func (m *GloVe) Final() *mat.Dense {
	var out mat.Dense
	out.Add(m.E.Value, m.Theta.Value)
	out.Scale(0.5, &out)
	return &out
}
