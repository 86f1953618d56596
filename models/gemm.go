package models

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The products of the fused seq2seq training pass (seq2seq_train.go), whose
// operands have hundreds of rows: blockedMul and blockedTMul compute what addMul
// and addTMul do, in 4×8 blocks of c held in registers while the inner sum runs
// (gemm4x8, amd64 assembly with AVX2 fused multiply–adds), so each entry of a
// and b is read once per block rather than once per row: at the output layer's
// sizes this is about twice as fast as a matrix–vector product per row. The
// blocks' edges, and a CPU without AVX2 and FMA (or another architecture, or the
// noasm build tag), use the matrix–vector products. A fused multiply–add rounds
// once where a multiply and an add round twice: the sums agree with addMul's to
// rounding, not bit for bit, so only the seq2seq training pass uses them.

// blockedMul sets c += a·b (blocked addMul).
func blockedMul(a, b, c blas64.General) {
	mustProduct("a·b", a.Rows, a.Cols, b.Rows, b.Cols, c)
	if !haveGemmKernel || a.Cols == 0 {
		addMul(a, b, c)
		return
	}
	blocked(a.Data, a.Rows, a.Cols, a.Stride, 1, b, c)
}

// blockedTMul sets c += aᵀ·b (blocked addTMul): row i of c gains Σ_l a_li b_l.
func blockedTMul(a, b, c blas64.General) {
	mustProduct("aᵀ·b", a.Cols, a.Rows, b.Rows, b.Cols, c)
	if !haveGemmKernel || a.Rows == 0 {
		addTMul(a, b, c)
		return
	}
	blocked(a.Data, a.Cols, a.Rows, 1, a.Stride, b, c)
}

// blocked sets c += A·b for the m×k matrix A(i, l) = a[i·ai + l·ak] (a row-major
// matrix, or with the strides swapped its transpose): gemm4x8 on every 4×8 block,
// the matrix–vector product on the columns past the last block and on the last rows.
func blocked(a []float64, m, k, ai, ak int, b, c blas64.General) {
	m4, n8 := m&^3, b.Cols&^7
	for j := 0; j < n8; j += 8 { // a panel of b (k×8) stays in cache while the rows pass
		for i := 0; i < m4; i += 4 {
			gemm4x8(k, &a[i*ai], ai, ak, &b.Data[j], b.Stride, &c.Data[i*c.Stride+j], c.Stride)
		}
	}
	impl := blas64.Implementation()
	for i := range m {
		from := n8 // the columns past the last block; every column in the last rows
		if i >= m4 {
			from = 0
		}
		if from < b.Cols {
			impl.Dgemv(blas.Trans, k, b.Cols-from, 1, b.Data[from:], b.Stride, a[i*ai:], ak, 1, c.Data[i*c.Stride+from:], 1)
		}
	}
}

// transposeInto writes mᵀ (m.Cols×m.Rows, row-major without gaps) into dst.
func transposeInto(dst []float64, m blas64.General) blas64.General {
	t := general(m.Cols, m.Rows, m.Rows, dst)
	for i := range m.Rows {
		for j, v := range rowOf(m, i) {
			t.Data[j*t.Stride+i] = v
		}
	}
	return t
}
