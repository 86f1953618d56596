//go:build !noasm

package models

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// gemm4x8 adds a 4×8 block of a product to C with AVX2 fused multiply–adds
// (gemm_amd64.s): C[i][j] += Σ_{l<k} A(i, l) B[l][j], A(i, l) = a[i·ai + l·ak],
// B[l][j] = b[l·ldb + j], C[i][j] = c[i·ldc + j]. The caller keeps every index in
// range; only call it when haveGemmKernel.
//
//go:noescape
func gemm4x8(k int, a *float64, ai, ak int, b *float64, ldb int, c *float64, ldc int)

// haveGemmKernel reports whether this CPU and OS run gemm4x8: AVX2 and FMA, with the
// OS saving the YMM registers (golang.org/x/sys/cpu checks that too).
// GODEBUG=cpu.avx2=off (or cpu.fma, cpu.avx, cpu.all), which makes the runtime's and
// math's assembly act as on a CPU without them, turns it off too.
var haveGemmKernel = func() bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		switch strings.TrimSpace(kv) {
		case "cpu.avx2=off", "cpu.fma=off", "cpu.avx=off", "cpu.all=off":
			return false
		}
	}
	return cpu.X86.HasAVX2 && cpu.X86.HasFMA
}()
