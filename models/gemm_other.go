//go:build !amd64 || noasm

package models

// haveGemmKernel is false: gemm4x8 is amd64 assembly.
const haveGemmKernel = false

// gemm4x8 is never called without haveGemmKernel.
func gemm4x8(k int, a *float64, ai, ak int, b *float64, ldb int, c *float64, ldc int) {
	panic("models: gemm4x8 without the assembly kernel")
}
