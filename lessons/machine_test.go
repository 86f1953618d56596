package lessons

import (
	"math"
	"os"
	"strings"
	"testing"
)

// What a test may and may not expect of the machine it runs on (issue 10).

// emulatedEnv is set to 1 by CI when it runs the test binaries under emulation
// (qemu-aarch64 for linux/arm64), which is about 5× slower than real hardware.
const emulatedEnv = "UNROLL_EMULATED"

// emulated reports whether the tests run under emulation (emulatedEnv=1).
func emulated() bool { return os.Getenv(emulatedEnv) == "1" }

// skipIfEmulated skips a test that measures wall-clock speed, or that trains so long
// that it does not fit CI's time under emulation; why says which.
func skipIfEmulated(t testing.TB, why string) {
	t.Helper()
	if emulated() {
		t.Skipf("%s: skipped under emulation (%s=1): qemu is ~5× slower; judge speed on real hardware", why, emulatedEnv)
	}
}

// A score recomputed from a shipped checkpoint is compared with the value cmd/train
// recorded in it (on linux/amd64) within a tolerance, never with ==: the Go compiler
// fuses x*y + z into one FMA instruction on arm64 (and on amd64 built with
// GOAMD64=v3), and math.Exp is assembly that differs by architecture and by CPU, so
// the last bits of a recomputed float depend on the machine (docs/measurements.md,
// "Across machines").
const (
	// recordedSmooth is for a mean over the evaluation set of smooth functions of
	// the weights (bits per character, mean p(answer), MSE, correlations, gate
	// means, max |C_t|): 1e-12 relative: FMA on arm64 changes the last bits (measured
	// on arm64 under qemu: at most 6e-16, 1e-15 relative, on the shipped checkpoints).
	recordedSmooth = 1e-12
	// recordedCount is for an accuracy, right answers over n: the same count on every
	// machine unless a prediction's margin is as small as the last-bit changes
	// (~1e-15), which no shipped model's is (all equal on arm64 under qemu): 1e-12
	// absolute leaves room for the division's rounding only, not for one answer.
	recordedCount = 1e-12
	// recordedDecimals4 is for a score the checkpoint records rounded to 4 decimals.
	recordedDecimals4 = 1e-4
)

// nearRecorded reports whether got is within tol of the recorded want: |got − want| ≤
// tol·max(1, |want|), relative above 1 and absolute below.
func nearRecorded(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// checkRecorded fails unless got is within tol of the recorded want (nearRecorded),
// and logs a difference within it, so that a run on another machine shows how far
// it is.
func checkRecorded(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	switch {
	case !nearRecorded(got, want, tol):
		t.Errorf("%s: got %v want the recorded %v (tolerance %g)", what, got, want, tol)
	case got != want:
		t.Logf("%s: got %v, %.1e from the recorded %v (tolerance %g)", what, got, math.Abs(got-want), want, tol)
	}
}

// TestPrintedNear: the golden files' tolerance is one unit of the last printed digit,
// as a rounding boundary crossed on another machine shows it, and no more.
func TestPrintedNear(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0.85", "0.85", true},
		{"0.85", "0.8501", true}, // 0.8500 rounded to 4 decimals, printed shortest
		{"0.8499", "0.85", true},
		{"1", "0.9999", true},
		{"0.85", "0.86", true}, // 0.8500 and 0.8600 could only come from 2 decimals: one unit of those
		{"0.85", "0.8502", false},
		{"0.0009588", "0.0009589", true},
		{"0.0009588", "0.000959", false},
		{"-1.2e-05", "-1.3e-05", true},
		{"-1.2e-05", "-1.4e-05", false},
		{"912", "913", false}, // integers are counts
		{"0.5", "abc", false},
	} {
		if got := printedNear(c.a, c.b); got != c.want {
			t.Errorf("printedNear(%q, %q): got %v want %v", c.a, c.b, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0.123 with 1/√d_k, 0.456 without", "0.124 with 1/√d_k, 0.456 without", true},
		{"0.123 with 1/√d_k, 0.456 without", "0.125 with 1/√d_k, 0.456 without", false},
		{"nous regardons", "nous regardez", false},
		{"t'=1", "t'=2", false},
	} {
		if got := textNear(c.a, c.b); got != c.want {
			t.Errorf("textNear(%q, %q): got %v want %v", c.a, c.b, got, c.want)
		}
	}
	diffs, err := goldenValueDiffs([]byte(`{"a": [0.85, 1], "b": {"s": "p = 0.5"}}`), []byte(`{"a": [0.8501, 1], "b": {"s": "p = 0.3"}}`))
	if err != nil || len(diffs) != 1 || !strings.HasPrefix(diffs[0], ".b.s:") {
		t.Errorf("goldenValueDiffs: got %q, %v want one difference at .b.s", diffs, err)
	}
}
