package models

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"gonum.org/v1/gonum/mat"
)

// fingerprintInputs are fixed values whose products, sums, exponentials and logarithms
// round differently from one kind of arithmetic to another.
var fingerprintInputs = func() []float64 {
	x := make([]float64, 64)
	state := uint64(0x9E3779B97F4A7C15)
	for i := range x {
		state = state*6364136223846793005 + 1442695040888963407
		x[i] = float64(int64(state>>11)-1<<52) / (1 << 51) // in (−2, 2)
	}
	return x
}()

// Fingerprint names how this build rounds on this processor, as 8 hex digits: a hash of
// the bits of fused or separate multiply-adds (the compiler fuses x*y + z on arm64, and
// on amd64 from GOAMD64=v3), of gonum's matrix product (assembly on amd64, Go elsewhere)
// and of math.Exp and math.Log (whose assembly depends on the processor). These are the
// three causes measured to make training differ between machines (docs/measurements.md,
// "Across machines"): servers with different fingerprints train a model to different
// last bits.
func Fingerprint() string {
	x := fingerprintInputs
	h := fnv.New64a()
	put := func(v float64) { _ = binary.Write(h, binary.LittleEndian, math.Float64bits(v)) }
	for i := 0; i+2 < len(x); i++ {
		put(mulAdd(x[i], x[i+1], x[i+2]))
		put(math.Exp(x[i]))
		put(math.Log(math.Abs(x[i]) + 1))
	}
	a := mat.NewDense(8, 8, x)
	var p mat.Dense
	p.Mul(a, a.T())
	for _, v := range p.RawMatrix().Data {
		put(v)
	}
	return fmt.Sprintf("%08x", uint32(h.Sum64()))
}

// mulAdd is a*b + c as the kernels write it, which the compiler fuses into one rounding
// on some builds; not inlined, so that it is compiled the same way wherever it is called.
//
//go:noinline
func mulAdd(a, b, c float64) float64 { return a*b + c }
