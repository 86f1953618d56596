package models

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"unroll/internal/testkit"
)

// numericGrad is ∂loss/∂m by central differences (testkit.NumericGradient) with the
// given step, perturbing the entries of m in place; m is restored before it returns.
func numericGrad(m *mat.Dense, loss func() float64, step float64) *mat.Dense {
	r, c := m.Dims()
	d := mat.DenseCopyOf(m) // contiguous, so its raw data is all of m
	g := testkit.NumericGradient(d.RawMatrix().Data, func() float64 { m.Copy(d); return loss() }, step)
	m.Copy(d)
	return mat.NewDense(r, c, g)
}

// gradMismatch returns "" when got and want agree entry by entry within
// |got − want| ≤ rel·max(|got|, |want|) + abs, else a got … want … message for the
// first entry that does not (testkit.FirstMismatch), with its row and column.
func gradMismatch(what string, got, want *mat.Dense, rel, abs float64) string {
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		return fmt.Sprintf("%s: got %d×%d gradient, want %d×%d", what, gr, gc, r, c)
	}
	g, w := mat.DenseCopyOf(got).RawMatrix().Data, mat.DenseCopyOf(want).RawMatrix().Data
	if i := testkit.FirstMismatch(g, w, rel, abs); i >= 0 {
		return fmt.Sprintf("%s[%d,%d]: got %.12g want %.12g (finite differences)", what, i/c, i%c, g[i], w[i])
	}
	return ""
}
