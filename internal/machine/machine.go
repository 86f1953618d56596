// Package machine says, for the tests, what they may expect of the machine they run on
// (issue 10): whether it is emulated, and how near a recomputed score must be to the
// value cmd/train recorded on linux/amd64. Only test files import it.
package machine

import (
	"math"
	"os"
	"testing"
)

// EmulatedEnv is set to 1 by CI when it runs the test binaries under emulation
// (qemu-aarch64 for linux/arm64), which is about 5× slower than real hardware.
const EmulatedEnv = "UNROLL_EMULATED"

// Emulated reports whether the tests run under emulation (EmulatedEnv=1).
func Emulated() bool { return os.Getenv(EmulatedEnv) == "1" }

// SkipIfEmulated skips a test that measures wall-clock speed, or that trains so long
// that it does not fit CI's time under emulation; why says which.
func SkipIfEmulated(t testing.TB, why string) {
	t.Helper()
	if Emulated() {
		t.Skipf("%s: skipped under emulation (%s=1): qemu is ~5× slower; judge speed on real hardware", why, EmulatedEnv)
	}
}

// A score recomputed from a shipped checkpoint is compared with the value cmd/train
// recorded in it (on linux/amd64) within a tolerance, never with ==: the Go compiler
// fuses x*y + z into one FMA instruction on arm64 (and on amd64 built with
// GOAMD64=v3), and math.Exp is assembly that differs by architecture and by CPU, so
// the last bits of a recomputed float depend on the machine (docs/measurements.md,
// "Across machines").
const (
	// RecordedSmooth is for a mean over the evaluation set of smooth functions of
	// the weights (bits per character, mean p(answer), MSE, correlations, gate
	// means, max |C_t|): 1e-12 relative: FMA on arm64 changes the last bits (measured
	// on arm64 under qemu: at most 6e-16, 1e-15 relative, on the shipped checkpoints).
	RecordedSmooth = 1e-12
	// RecordedCount is for an accuracy, right answers over n: the same count on every
	// machine unless a prediction's margin is as small as the last-bit changes
	// (~1e-15), which no shipped model's is (all equal on arm64 under qemu): 1e-12
	// absolute leaves room for the division's rounding only, not for one answer.
	RecordedCount = 1e-12
	// RecordedDecimals4 is for a score the checkpoint records rounded to 4 decimals.
	RecordedDecimals4 = 1e-4
)

// NearRecorded reports whether got is within tol of the recorded want: |got − want| ≤
// tol·max(1, |want|), relative above 1 and absolute below.
func NearRecorded(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// CheckRecorded fails unless got is within tol of the recorded want (NearRecorded),
// and logs a difference within it, so that a run on another machine shows how far
// it is.
func CheckRecorded(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	switch {
	case !NearRecorded(got, want, tol):
		t.Errorf("%s: got %v want the recorded %v (tolerance %g)", what, got, want, tol)
	case got != want:
		t.Logf("%s: got %v, %.1e from the recorded %v (tolerance %g)", what, got, math.Abs(got-want), want, tol)
	}
}
