//go:build !noasm

package models

import (
	"os"
	"strings"
)

// gemm4x8 adds a 4×8 block of a product to C with AVX2 fused multiply–adds
// (gemm_amd64.s): C[i][j] += Σ_{l<k} A(i, l) B[l][j], A(i, l) = a[i·ai + l·ak],
// B[l][j] = b[l·ldb + j], C[i][j] = c[i·ldc + j]. The caller keeps every index in
// range; only call it when haveGemmKernel.
//
//go:noescape
func gemm4x8(k int, a *float64, ai, ak int, b *float64, ldb int, c *float64, ldc int)

// cpuid is the CPUID instruction: leaf in EAX, sub-leaf in ECX.
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv0 reads XCR0, which says which register state the OS saves.
func xgetbv0() (lo, hi uint32)

// haveGemmKernel reports whether this CPU and OS run gemm4x8: AVX2 and FMA, and the
// OS saving the YMM registers. GODEBUG=cpu.avx2=off (or cpu.fma, cpu.avx, cpu.all),
// which makes the runtime's and math's assembly act as on a CPU without them, turns
// it off too.
var haveGemmKernel = func() bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		switch strings.TrimSpace(kv) {
		case "cpu.avx2=off", "cpu.fma=off", "cpu.avx=off", "cpu.all=off":
			return false
		}
	}
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 { // XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return b7&avx2 != 0
}()
