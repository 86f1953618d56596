package lessons

import (
	"strings"
	"testing"
)

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
