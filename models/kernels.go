package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The kernels every cell is built from: the affine map A = X_t W_x + H_{t-1} W_h + b
// of a gate or candidate (row vectors, one row per batch element) and its backward
// pass, the BLAS-backed products c += a·b, a·bᵀ, aᵀ·b, and the element-wise helpers
// (σ, applying a function, packing weight blocks side by side).

// affineInto sets out (B×h) to A = X W_x + H W_h + b: b in every row, then X W_x,
// then H W_h added, so every entry is rounded as in (b + x·w_x) + h·w_h; a nil W_x
// or W_h drops its term.
func affineInto(out, x *mat.Dense, wx *Param, hPrev *mat.Dense, wh *Param, b *Param) {
	rc := out.RawMatrix()
	bias := b.Value.RawRowView(0)
	mustProduct("b + ·", rc.Rows, len(bias), rc.Cols, rc.Cols, rc)
	for i := range rc.Rows {
		copy(rc.Data[i*rc.Stride:][:rc.Cols], bias)
	}
	if wx != nil {
		addMul(x.RawMatrix(), wx.Value.RawMatrix(), rc)
	}
	if wh != nil {
		addMul(hPrev.RawMatrix(), wh.Value.RawMatrix(), rc)
	}
}

// carveDense points each of ms at its own r×c block (stride c) of data, in order, and
// returns what is left of data: the matrices of one step share one allocation.
func carveDense(data []float64, r, c int, ms ...*mat.Dense) []float64 {
	n := r * c
	for _, m := range ms {
		m.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c, Data: data[:n:n]})
		data = data[n:]
	}
	return data
}

// rowOf is row i of m (m.Cols entries).
func rowOf(m blas64.General, i int) []float64 { return m.Data[i*m.Stride:][:m.Cols] }

// affineBack is the backward pass of A = X W_x + H W_h + b: it adds dA W_xᵀ to dX
// and dA W_hᵀ to dH and, when accumulate is set, Xᵀ dA, Hᵀ dA and the column sums
// of dA to the gradients of W_x, W_h and b. A nil W_x or W_h has no term.
func affineBack(dA, x *mat.Dense, wx *Param, hPrev *mat.Dense, wh *Param, b *Param, dX, dH *mat.Dense, accumulate bool) {
	if wx != nil {
		gemmAdd(false, true, dA, wx.Value, dX)
	}
	if wh != nil {
		gemmAdd(false, true, dA, wh.Value, dH)
	}
	if !accumulate {
		return
	}
	if wx != nil {
		gemmAdd(true, false, x, dA, wx.Grad)
	}
	if wh != nil {
		gemmAdd(true, false, hPrev, dA, wh.Grad)
	}
	addColumnSums(b.Grad, dA)
}

// gemmAdd adds op(a)·op(b) to c, where op transposes when its flag is set.
func gemmAdd(transA, transB bool, a, b, c *mat.Dense) {
	ra, rb, rc := a.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	switch {
	case !transA && !transB:
		addMul(ra, rb, rc)
	case !transA && transB:
		addMulT(ra, rb, rc)
	case transA && !transB:
		addTMul(ra, rb, rc)
	default:
		panic("models: gemmAdd of aᵀ·bᵀ is not used")
	}
}

// The three products below are computed with one matrix–vector product per row:
// at a recurrent cell's sizes (h ≤ a few hundred) gonum's blocked Gemv kernels are
// faster than its Gemm, which works one axpy at a time. They call the blas64
// implementation's Dgemv directly, with the arguments blas64.Gemv would pass: at
// B = 1 and small h the Vector wrappers cost a third of the product.

// addMul sets c += a·b: row i of c gains bᵀ·(row i of a).
func addMul(a, b, c blas64.General) {
	mustProduct("a·b", a.Rows, a.Cols, b.Rows, b.Cols, c)
	impl := blas64.Implementation()
	for i := range a.Rows {
		impl.Dgemv(blas.Trans, b.Rows, b.Cols, 1, b.Data, b.Stride, rowOf(a, i), 1, 1, rowOf(c, i), 1)
	}
}

// addMulT sets c += a·bᵀ: row i of c gains b·(row i of a).
func addMulT(a, b, c blas64.General) {
	mustProduct("a·bᵀ", a.Rows, a.Cols, b.Cols, b.Rows, c)
	impl := blas64.Implementation()
	for i := range a.Rows {
		impl.Dgemv(blas.NoTrans, b.Rows, b.Cols, 1, b.Data, b.Stride, rowOf(a, i), 1, 1, rowOf(c, i), 1)
	}
}

// tMulRows is how many rows of a and b addTMul takes at a time, so that a block of
// b (tMulRows × a few hundred float64s) stays in cache while every row of c is
// updated from it.
const tMulRows = 64

// addTMul sets c += aᵀ·b: row i of c gains Σ_l a_li b_l, a product of bᵀ with
// column i of a.
func addTMul(a, b, c blas64.General) {
	mustProduct("aᵀ·b", a.Cols, a.Rows, b.Rows, b.Cols, c)
	impl := blas64.Implementation()
	for l0 := 0; l0 < a.Rows; l0 += tMulRows {
		n := min(tMulRows, a.Rows-l0)
		block := b.Data[l0*b.Stride:]
		for i := range a.Cols {
			impl.Dgemv(blas.Trans, n, b.Cols, 1, block, b.Stride, a.Data[l0*a.Stride+i:], a.Stride, 1, rowOf(c, i), 1)
		}
	}
}

// mustProduct panics unless an (m×k)·(k2×n) product fits c (m×n) and k = k2.
func mustProduct(what string, m, k, k2, n int, c blas64.General) {
	if k != k2 || c.Rows != m || c.Cols != n {
		panic(fmt.Sprintf("models: %s of %d×%d and %d×%d into %d×%d", what, m, k, k2, n, c.Rows, c.Cols))
	}
}

// addColumnSums adds Σ_rows m to the 1×n row vector dst.
func addColumnSums(dst, m *mat.Dense) {
	d := dst.RawRowView(0)
	raw := m.RawMatrix()
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride:][:raw.Cols] {
			d[j] += v
		}
	}
}

// applyEach replaces every entry v of m by f(v).
func applyEach(m *mat.Dense, f func(float64) float64) {
	raw := m.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride:][:raw.Cols]
		for j, v := range row {
			row[j] = f(v)
		}
	}
}

// sigmoid is σ(a) = 1/(1 + e^{−a}).
func sigmoid(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

// zerosLike returns a zero matrix of m's shape.
func zerosLike(m *mat.Dense) *mat.Dense {
	r, c := m.Dims()
	return mat.NewDense(r, c, nil)
}

// general is the r×c row-major matrix with the given stride over data.
func general(r, c, stride int, data []float64) blas64.General {
	if r == 0 {
		return blas64.General{Cols: c, Stride: stride}
	}
	return blas64.General{Rows: r, Cols: c, Stride: stride, Data: data[:(r-1)*stride+c]}
}

// packColumns writes the matrices ms side by side into dst (rows × Σ cols).
func packColumns(dst []float64, ms ...*mat.Dense) {
	columnBlocks(ms, func(row []float64, at int) { copy(dst[at:][:len(row)], row) })
}

// addColumnBlocks adds the column blocks of the row-major matrix src, whose width
// is the sum of the widths of dsts, to dsts in order.
func addColumnBlocks(src []float64, dsts ...*mat.Dense) {
	columnBlocks(dsts, func(row []float64, at int) {
		for j, v := range src[at:][:len(row)] {
			row[j] += v
		}
	})
}

// columnBlocks calls f with every row of every matrix of ms and the offset of that
// row in the row-major matrix that holds ms side by side (width Σ cols).
func columnBlocks(ms []*mat.Dense, f func(row []float64, at int)) {
	width := 0
	for _, m := range ms {
		_, c := m.Dims()
		width += c
	}
	col := 0
	for _, m := range ms {
		raw := m.RawMatrix()
		for i := range raw.Rows {
			f(raw.Data[i*raw.Stride:][:raw.Cols], i*width+col)
		}
		col += raw.Cols
	}
}

// copyRows copies the matrix m into dst, row-major without gaps.
func copyRows(dst []float64, m *mat.Dense) {
	raw := m.RawMatrix()
	for i := range raw.Rows {
		copy(dst[i*raw.Cols:][:raw.Cols], raw.Data[i*raw.Stride:][:raw.Cols])
	}
}
