package models

import (
	"math"
	"regexp"
	"testing"
)

func TestFingerprint(t *testing.T) {
	a, b := Fingerprint(), Fingerprint()
	if a != b {
		t.Fatalf("two fingerprints of one process: %s and %s", a, b)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(a) {
		t.Errorf("fingerprint %q, want 8 hex digits", a)
	}
	// The inputs tell a fused multiply-add from two roundings: were they all exact, the
	// fingerprint could not see the difference.
	differ := 0
	x := fingerprintInputs
	for i := 0; i+2 < len(x); i++ {
		if math.FMA(x[i], x[i+1], x[i+2]) != float64(x[i]*x[i+1])+x[i+2] {
			differ++
		}
	}
	if differ == 0 {
		t.Error("no input's fused multiply-add differs from the separately rounded one")
	}
	t.Logf("fingerprint %s; %d of %d multiply-adds round differently when fused", a, differ, len(x)-2)
}
