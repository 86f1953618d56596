package testkit

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestNumericGradient: the central differences of a cubic match its derivative, and
// the point is left as it was.
func TestNumericGradient(t *testing.T) {
	x := []float64{1, -2, 0.5}
	loss := func() float64 { return x[0]*x[0]*x[0] + 3*x[1]*x[2] }
	got := NumericGradient(x, loss, 1e-5)
	want := []float64{3, 3 * 0.5, 3 * -2}
	if msg := Mismatch("∇", got, want, 1e-8, 1e-8); msg != "" {
		t.Error(msg)
	}
	if !slices.Equal(x, []float64{1, -2, 0.5}) {
		t.Errorf("x changed to %v", x)
	}
}

// TestMismatch: the first entry out of tolerance is named; NaN and lengths count.
func TestMismatch(t *testing.T) {
	if i := FirstMismatch([]float64{1, 2.0000001, 5}, []float64{1, 2, 3}, 1e-6, 0); i != 2 {
		t.Errorf("FirstMismatch = %d, want 2", i)
	}
	if i := FirstMismatch([]float64{math.NaN()}, []float64{0}, 1, 1); i != 0 {
		t.Errorf("a NaN against 0: FirstMismatch = %d, want 0", i)
	}
	if msg := Mismatch("g", []float64{1}, []float64{1, 2}, 0, 0); !strings.Contains(msg, "1 values, want 2") {
		t.Errorf("lengths: %q", msg)
	}
	if msg := Mismatch("g", []float64{1, 2}, []float64{1, 2}, 0, 0); msg != "" {
		t.Errorf("equal: %q", msg)
	}
}

// TestJSONDiffs: numbers by the given rule, strings exactly by default, and every
// difference of shape named by its path.
func TestJSONDiffs(t *testing.T) {
	near := func(g, w json.Number) bool {
		a, _ := g.Float64()
		b, _ := w.Float64()
		return math.Abs(a-b) < 0.01
	}
	same, err := JSONDiffs([]byte(`{"a":[1.001,"x"],"b":true}`), []byte(`{"a":[1,"x"],"b":true}`), near, nil)
	if err != nil || len(same) != 0 {
		t.Errorf("near enough: %v %v", same, err)
	}
	diffs, err := JSONDiffs([]byte(`{"a":[2,"y"],"b":null,"c":{}}`), []byte(`{"a":[1,"x"],"b":false,"c":{"d":1}}`), near, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(diffs)
	want := []string{".a[0]: got 2 want 1", ".a[1]: got y want x", ".b: got <nil> want false", ".c: got map[] want map[d:1]"}
	if !slices.Equal(diffs, want) {
		t.Errorf("diffs %q, want %q", diffs, want)
	}
	if _, err := JSONDiffs([]byte(`{`), []byte(`{}`), near, nil); err == nil {
		t.Error("bad JSON: no error")
	}
}
