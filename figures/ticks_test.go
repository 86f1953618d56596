package figures

import (
	"math"
	"strings"
	"testing"
)

func TestLinearTicksAreDistinct(t *testing.T) {
	for _, r := range [][2]float64{{-3.04, -2.88}, {-3.037, -2.919}, {0, 1}, {1, 17.5}, {-0.5, 1e-3}, {1000, 1000.001}} {
		seen := map[string]bool{}
		labelled := 0
		for _, tk := range (linearTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "" {
				continue
			}
			labelled++
			if seen[tk.Label] {
				t.Errorf("range %v: two ticks labelled %q", r, tk.Label)
			}
			seen[tk.Label] = true
		}
		if labelled < 2 {
			t.Errorf("range %v: %d labelled ticks, want at least 2", r, labelled)
		}
	}
}

// TestWholeTicks: an axis of whole numbers gets whole ticks only, every one labelled
// when there are few (min_freq 1…5), every 2nd, 5th … when there are more, never
// "17.50".
func TestWholeTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   string // the labels
	}{
		{1, 5, "1 2 3 4 5"},
		{1, 7, "1 2 3 4 5 6 7"},
		{1, 8, "2 4 6 8"},
		{1, 11, "2 4 6 8 10"},
		{1.9, 18.5, "5 10 15"},
		{50, 4000, "1000 2000 3000 4000"},
	}
	for _, c := range cases {
		var labels []string
		for _, tk := range (wholeTicks{}).Ticks(c.lo, c.hi) {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("[%v, %v]: a tick at %v", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("[%v, %v]: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
	if !wholeAxis([][]float64{{1, 2, 3}}, 1, 3) || wholeAxis([][]float64{{0, 1}}, 0, 1.18) || wholeAxis([][]float64{{0.5, 2.5}}, 0, 3) {
		t.Errorf("wholeAxis: steps 1…3 are whole, precisions 0 and 1 and halves are not")
	}
	if !wholeAxis([][]float64{{16, 16, 3, 2}, {15.2, 14.8, 3.1, 2.4}}, 2, 18) {
		t.Errorf("wholeAxis: positions with their expected value between them are whole")
	}
}
