package figures

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// Ticks of an axis of whole numbers (steps, positions, k, n, min_freq).
const (
	// maxWholeLabels is how many whole-number ticks are labelled at most: up to 7 every
	// one is, beyond that every 2nd, 5th, 10th … so the labels never crowd.
	maxWholeLabels = 7
	// minWholeSpan: an axis is read as whole numbers only when it spans at least three
	// of them; on [0, 1] (a precision that happens to be 0 or 1) decimals say more.
	minWholeSpan  = 2
	maxMinorTicks = 60 // unlabelled ticks at whole numbers between the labels, if no more
)

// logTicks marks a log axis with powers of ten, or with ordinary ticks when the data
// spans less than a decade (plot.LogTicks would then label nothing).
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled >= 2 {
		for i, t := range ticks { // LogTicks labels 1e-4 as 9.999999999999998e-05
			if t.Label != "" {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'g', 3, 64)
			}
		}
		return ticks
	}
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value > 0 {
			out = append(out, t)
		}
	}
	return out
}

// linearTicks are plot.DefaultTicks with labels precise enough to tell apart:
// DefaultTicks can label −2.95 and −3 both "-3" on a narrow range.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for decimals := 1; !distinctLabels(ticks) && decimals <= 12; decimals++ {
		for i, t := range ticks {
			if t.Label != "" {
				ticks[i].Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
			}
		}
	}
	return ticks
}

// wholeTicks mark an axis of whole numbers: a tick at each whole number, all labelled
// when there are at most maxWholeLabels, else labels every 1, 2 or 5 × 10^k so that
// at most maxWholeLabels are, with unlabelled ticks between the first and the last
// label. Never "17.50".
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if first > last {
		return linearTicks{}.Ticks(lo, hi)
	}
	count := func(step float64) float64 { return math.Floor(last/step) - math.Ceil(first/step) + 1 }
	step, minor := 1.0, 0.0
	for mag := 1.0; count(step) > maxWholeLabels; mag *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if step = m * mag; count(step) <= maxWholeLabels {
				minor = mag // 2 and 5 × 10^k: minor ticks at 10^k
				if m == 1 && mag > 1 {
					minor = mag / 5 // 10^k: at 2 × 10^(k−1)
				}
				break
			}
		}
	}
	var ticks []plot.Tick
	lo1, hi1 := math.Ceil(first/step)*step, math.Floor(last/step)*step // the first and last labels
	for v := lo1; v <= hi1; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	if minor >= 1 && (hi1-lo1)/minor <= maxMinorTicks {
		for v := lo1 + minor; v < hi1; v += minor {
			if math.Mod(v, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// wholeAxis reports whether an axis shows whole numbers: it spans at least
// minWholeSpan, and some series's values on it are all whole and not all equal
// (steps, positions, a count). Other series may fall between those numbers (the
// expected source position next to the most attended one) and still read against
// whole ticks.
func wholeAxis(values [][]float64, lo, hi float64) bool {
	if hi-lo < minWholeSpan {
		return false
	}
	for _, vs := range values {
		whole, varied := len(vs) > 0, false
		for _, v := range vs {
			whole = whole && v == math.Trunc(v) && !math.IsInf(v, 0)
			varied = varied || v != vs[0]
		}
		if whole && varied {
			return true
		}
	}
	return false
}

// distinctLabels reports whether no two labelled ticks share a label.
func distinctLabels(ticks []plot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ticks {
		if t.Label != "" {
			if seen[t.Label] {
				return false
			}
			seen[t.Label] = true
		}
	}
	return true
}
