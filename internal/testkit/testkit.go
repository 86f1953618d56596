// Package testkit holds the checks the packages' tests share: gradients against
// central differences, and golden JSON compared value by value. Only tests import it;
// it imports nothing of Unroll, so the tests of any package (models' own included) can.
package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/diff/fd"
)

// NumericGradient is ∂loss/∂x by central differences (gonum's diff/fd) with the given
// step: (loss(x + h·e_i) − loss(x − h·e_i)) / 2h for each entry i. It perturbs x in
// place, through which loss must see it, and restores x before it returns.
func NumericGradient(x []float64, loss func() float64, step float64) []float64 {
	orig := append([]float64(nil), x...)
	g := fd.Gradient(nil, func(y []float64) float64 {
		copy(x, y)
		return loss()
	}, orig, &fd.Settings{Formula: fd.Central, Step: step})
	copy(x, orig)
	return g
}

// FirstMismatch is the index of the first entry where got and want disagree by more
// than |got − want| ≤ rel·max(|got|, |want|) + abs (a NaN disagrees with a number), or
// −1 when none does. The lengths must be equal.
func FirstMismatch(got, want []float64, rel, abs float64) int {
	for i := range want {
		g, w := got[i], want[i]
		if math.Abs(g-w) > rel*math.Max(math.Abs(g), math.Abs(w))+abs || math.IsNaN(g) != math.IsNaN(w) {
			return i
		}
	}
	return -1
}

// Mismatch is "" when got and want agree entry by entry (FirstMismatch), else a
// "what[i]: got … want …" message for the first entry that does not (or for lengths
// that differ).
func Mismatch(what string, got, want []float64, rel, abs float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%s: got %d values, want %d", what, len(got), len(want))
	}
	if i := FirstMismatch(got, want, rel, abs); i >= 0 {
		return fmt.Sprintf("%s[%d]: got %.12g want %.12g (finite differences)", what, i, got[i], want[i])
	}
	return ""
}

// JSONDiffs compares two JSON documents value by value and lists where they differ
// (a path such as .frames[3].H and both values): objects need the same keys, arrays
// the same length, booleans and nulls the same value; numbers are compared as printed
// by number, and strings by text (nil: equal only when identical).
func JSONDiffs(got, want []byte, number func(got, want json.Number) bool, text func(got, want string) bool) ([]string, error) {
	decode := func(b []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // each number as printed: its last digit may set its tolerance
		var v any
		err := d.Decode(&v)
		return v, err
	}
	g, err := decode(got)
	if err != nil {
		return nil, err
	}
	w, err := decode(want)
	if err != nil {
		return nil, err
	}
	if text == nil {
		text = func(g, w string) bool { return g == w }
	}
	var diffs []string
	var walk func(path string, g, w any)
	walk = func(path string, g, w any) {
		differ := func() { diffs = append(diffs, fmt.Sprintf("%s: got %v want %v", path, g, w)) }
		switch w := w.(type) {
		case map[string]any:
			gm, ok := g.(map[string]any)
			if !ok || len(gm) != len(w) {
				differ()
				return
			}
			for k, wv := range w {
				gv, ok := gm[k]
				if !ok {
					differ()
					return
				}
				walk(path+"."+k, gv, wv)
			}
		case []any:
			ga, ok := g.([]any)
			if !ok || len(ga) != len(w) {
				differ()
				return
			}
			for i := range w {
				walk(fmt.Sprintf("%s[%d]", path, i), ga[i], w[i])
			}
		case json.Number:
			if gn, ok := g.(json.Number); !ok || !number(gn, w) {
				differ()
			}
		case string:
			if gs, ok := g.(string); !ok || !text(gs, w) {
				differ()
			}
		default:
			if g != w {
				differ()
			}
		}
	}
	walk("", g, w)
	return diffs, nil
}

// Eventually waits until cond holds, asking again every millisecond or so, and fails
// the test naming what it waited for when within passes first: for a state that no
// channel announces (a server's count of parked runs, of open sessions). A test must
// not sleep in its place.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for pause := 100 * time.Microsecond; !cond(); pause = min(2*pause, 5*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(pause)
	}
}
