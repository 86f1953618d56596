package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// numericGrad is ∂loss/∂m by central differences (gonum diff/fd) with the given step,
// perturbing the entries of m in place; m is restored before it returns.
func numericGrad(m *mat.Dense, loss func() float64, step float64) *mat.Dense {
	r, c := m.Dims()
	orig := mat.DenseCopyOf(m)
	x := make([]float64, 0, r*c)
	for i := range r {
		x = append(x, m.RawRowView(i)...)
	}
	f := func(y []float64) float64 {
		for i := range r {
			copy(m.RawRowView(i), y[i*c:(i+1)*c])
		}
		return loss()
	}
	g := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: step})
	m.Copy(orig)
	return mat.NewDense(r, c, g)
}

// gradMismatch returns "" when got and want agree entry by entry within
// |got − want| ≤ rel·max(|got|, |want|) + abs, else a got … want … message for the
// first entry that does not.
func gradMismatch(what string, got, want *mat.Dense, rel, abs float64) string {
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		return fmt.Sprintf("%s: got %d×%d gradient, want %d×%d", what, gr, gc, r, c)
	}
	for i := range r {
		for j := range c {
			g, w := got.At(i, j), want.At(i, j)
			if math.Abs(g-w) > rel*math.Max(math.Abs(g), math.Abs(w))+abs {
				return fmt.Sprintf("%s[%d,%d]: got %.12g want %.12g (finite differences)", what, i, j, g, w)
			}
		}
	}
	return ""
}
