package lessons

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"unroll/sim"
)

// bleuValues is the bleu lesson's defaults with the given changes.
func bleuValues(t *testing.T, changes map[string]string) sim.Values {
	t.Helper()
	v, err := bleuLesson.Params.Apply(bleuLesson.Params.Defaults(), changes)
	if err != nil {
		t.Fatalf("values %v: %v", changes, err)
	}
	return v
}

// frameArray returns the named array of a frame, or nil.
// TestBleuLectureExamples runs each preset through the lesson's frames: step n shows
// p_n, the last step the brevity penalties and both scores, as the lectures work them.
func TestBleuLectureExamples(t *testing.T) {
	d2lABC3 := math.Exp(1-6.0/5) * math.Pow(4.0/5, 0.5) * math.Pow(3.0/4, 0.25) * math.Pow(1.0/3, 0.125)
	for _, c := range []struct {
		name, example, maxN string
		p                   []float64 // p_1 … p_N
		bp, bpD2L           float64
		bleu, bleuD2L       float64
		tol                 float64
	}{
		{"003 cat: p1 = 5/7, p2 = 2/3", "cat", "2", []float64{5.0 / 7, 2.0 / 3}, 1, 1,
			// eq. (7) sees only the first reference, where p_2 = 3/6 ("cat on" is not in it)
			math.Sqrt(5.0 / 7 * 2.0 / 3), math.Pow(5.0/7, 0.5) * math.Pow(3.0/6, 0.25), 1e-9},
		{"003 the the the: p1 = 2/7", "the-the", "1", []float64{2.0 / 7}, 1, 1, 2.0 / 7, math.Sqrt(2.0 / 7), 1e-9},
		{"4.6 A B B C D: 4/5, 3/4, 1/3, 0", "ABCDEF", "4", []float64{4.0 / 5, 3.0 / 4, 1.0 / 3, 0},
			math.Exp(1 - 6.0/5), math.Exp(1 - 6.0/5), 0, 0, 1e-9},
		{"4.6 A B B C D with k = 3", "ABCDEF", "3", []float64{4.0 / 5, 3.0 / 4, 1.0 / 3},
			math.Exp(1 - 6.0/5), math.Exp(1 - 6.0/5), math.Exp(1-6.0/5) * math.Cbrt(4.0/5*3.0/4*1.0/3), d2lABC3, 1e-9},
		{"4.6 brevity A B, k = 2: exp(1 − 6/2)", "brevity", "2", []float64{1, 1},
			math.Exp(-2), math.Exp(-2), math.Exp(-2), math.Exp(-2), 1e-9},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := bleuLesson.Build(bleuValues(t, map[string]string{"example": c.example, "max_n": c.maxN}))
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			N := len(c.p)
			if m.Steps() != N+1 {
				t.Fatalf("Steps: got %d want %d", m.Steps(), N+1)
			}
			for n := 1; n <= N; n++ {
				p := arrayOf(m.At(n), "p")
				if len(p) != N {
					t.Fatalf("step %d: p has %d values want %d", n, len(p), N)
				}
				if math.Abs(p[n-1]-c.p[n-1]) > c.tol {
					t.Errorf("step %d: p_%d got %v want %v", n, n, p[n-1], c.p[n-1])
				}
				for k := n; k < N; k++ {
					if p[k] != 0 {
						t.Errorf("step %d: p_%d got %v want 0 (not shown yet)", n, k+1, p[k])
					}
				}
				if arrayOf(m.At(n), "BP") != nil {
					t.Errorf("step %d: BP shown before the last step", n)
				}
			}
			last := m.At(N + 1)
			for _, w := range []struct {
				name string
				want float64
			}{{"BP", c.bp}, {"BP_d2l", c.bpD2L}, {"BLEU", c.bleu}, {"BLEU_d2l", c.bleuD2L}} {
				got := arrayOf(last, w.name)
				if len(got) != 1 || math.Abs(got[0]-w.want) > c.tol {
					t.Errorf("%s: got %v want %v", w.name, got, w.want)
				}
			}
			if got := arrayOf(last, "p"); !reflect.DeepEqual(got, arrayOf(m.At(N), "p")) {
				t.Errorf("last step: p got %v want every order's value %v", got, arrayOf(m.At(N), "p"))
			}
		})
	}
}

// TestBleuNGramsAndWER checks what the n-gram panel and the alignment are drawn from
// on the cat example: "the cat" occurs twice, clipped to once; WER = (1 + 0 + 1)/6.
func TestBleuNGramsAndWER(t *testing.T) {
	m, err := bleuLesson.Build(bleuValues(t, map[string]string{"example": "cat", "max_n": "2"}))
	if err != nil {
		t.Fatal(err)
	}
	st := m.Static().Meta
	if got := st["candidate"]; !reflect.DeepEqual(got, []string{"the", "cat", "the", "cat", "on", "the", "mat"}) {
		t.Errorf("candidate: got %v", got)
	}
	if got := len(st["references"].([][]string)); got != 2 {
		t.Errorf("references: got %d want 2", got)
	}
	if _, ok := st["d2l_form"]; !ok {
		t.Errorf("several references: got no note that eq. (7) uses the first, want one")
	}
	bm := m.(*bleuSentence)
	credited := 0
	for _, g := range bm.uniform.NGrams {
		if g.N == 2 && strings.Join(g.Words, " ") == "the cat" {
			if g.Count != 2 || g.Clip != 1 || g.Matched != 1 {
				t.Errorf(`"the cat": got count %d clip %d matched %d want 2, 1, 1`, g.Count, g.Clip, g.Matched)
			}
			if g.Credited {
				credited++
			}
		}
	}
	if credited != 1 {
		t.Errorf(`"the cat": got %d credited occurrences want 1`, credited)
	}
	wer, _ := m.At(3).Meta["WER"].(string)
	if want := "(1 + 0 + 1)/6 = 0.3333"; !strings.Contains(wer, want) {
		t.Errorf("WER: got %q want it to contain %q", wer, want)
	}
}

// TestBleuTypedAndEdges scores typed text: max n at both ends, lowercase on and off,
// references split by | and by line breaks, and determinism.
func TestBleuTypedAndEdges(t *testing.T) {
	typed := map[string]string{"example": "typed", "candidate": "The cat sat", "references": "the cat sat on the mat"}
	for _, c := range []struct {
		name    string
		changes map[string]string
		p1      float64
		steps   int
	}{
		{"max n 1, lowercase", map[string]string{"max_n": "1"}, 1, 2},
		{"max n 4, lowercase", map[string]string{"max_n": "4"}, 1, 5},
		{"case kept: The ≠ the", map[string]string{"max_n": "1", "lowercase": "false"}, 2.0 / 3, 2},
		{"line breaks", map[string]string{"max_n": "1", "references": "a b\nthe cat sat"}, 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := map[string]string{}
			for k, s := range typed {
				ch[k] = s
			}
			for k, s := range c.changes {
				ch[k] = s
			}
			v := bleuValues(t, ch)
			m, err := bleuLesson.Build(v)
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			if m.Steps() != c.steps {
				t.Errorf("Steps: got %d want %d", m.Steps(), c.steps)
			}
			if p := arrayOf(m.At(1), "p"); math.Abs(p[0]-c.p1) > 1e-12 {
				t.Errorf("p_1: got %v want %v", p[0], c.p1)
			}
			m2, _ := bleuLesson.Build(v)
			for s := 1; s <= m.Steps(); s++ {
				if !reflect.DeepEqual(m.At(s), m2.At(s)) {
					t.Fatalf("step %d: two builds from the same values differ", s)
				}
			}
		})
	}
}

// TestBleuBadInput: what a student can get wrong gets a sentence saying what to fix,
// with no package prefix.
func TestBleuBadInput(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", bleuMaxWords+1))
	for _, c := range []struct {
		name, candidate, references, want string
	}{
		{"empty reference", "the cat", "   ", "no reference"},
		{"empty piece", "the cat", "the cat | | a cat", "reference 2 is empty"},
		{"trailing bar", "the cat", "the cat |", "reference 2 is empty"},
		{"empty candidate", " ", "the cat", "candidate is empty"},
		{"candidate too long", long, "the cat", "at most 30 words"},
		{"reference too long", "the cat", "a | " + long, "reference 2 has 31 words"},
		{"too many references", "the cat", "a | b | c | d | e", "at most 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := bleuValues(t, map[string]string{"example": "typed", "candidate": c.candidate, "references": c.references})
			_, err := bleuLesson.Build(v)
			if err == nil {
				t.Fatalf("got no error want one containing %q", c.want)
			}
			if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") {
				t.Errorf("got %q want a sentence containing %q", msg, c.want)
			}
		})
	}
	// the text fields' length limits are checked before a build
	if _, err := bleuLesson.Params.Apply(bleuLesson.Params.Defaults(), map[string]string{"candidate": strings.Repeat("a", 201)}); err == nil || !strings.Contains(err.Error(), "limit is 200") {
		t.Errorf("a 201-character candidate: got %v want the 200-character limit", err)
	}
	if _, err := bleuLesson.Params.Apply(bleuLesson.Params.Defaults(), map[string]string{"max_n": "5"}); err == nil {
		t.Errorf("max n 5: got no error want one")
	}
}

// TestBleuPlot: the export has p_n per order and both scores in its label.
func TestBleuPlot(t *testing.T) {
	m, err := bleuLesson.Build(bleuValues(t, map[string]string{"example": "ABCDEF", "max_n": "3"}))
	if err != nil {
		t.Fatal(err)
	}
	s := precisionSeries(m)
	if len(s) != 1 || !reflect.DeepEqual(s[0].X, []float64{1, 2, 3}) {
		t.Fatalf("got %+v want one series at n = 1, 2, 3", s)
	}
	for i, want := range []float64{4.0 / 5, 3.0 / 4, 1.0 / 3} {
		if math.Abs(s[0].Y[i]-want) > 1e-12 {
			t.Errorf("p_%d: got %v want %v", i+1, s[0].Y[i], want)
		}
	}
	if !strings.Contains(s[0].Label, "1/N") || !strings.Contains(s[0].Label, "1/2^n") {
		t.Errorf("label %q: want both weightings' scores", s[0].Label)
	}
}

// TestBleuGolden freezes the page's frames for the model's translation of a held-out
// pair (the lecture's example, the defaults, is in TestFramesGolden); refresh with
// go test ./lessons -run Golden -update.
func TestBleuGolden(t *testing.T) {
	checkFramesGolden(t, pageModel(t, bleuLesson, map[string]string{"example": "model", "test_pair": "7"}), "bleu-model")
}

// TestBleuShortCandidate: lecture 000 says a perfect match gives 1; "the cat" against
// "the cat" with N = 4 is 0 as the paper defines it, and the page says why; with
// effective order it is 1; general weights w_n are read and checked.
func TestBleuShortCandidate(t *testing.T) {
	at := func(changes map[string]string) sim.Frame {
		t.Helper()
		m, err := bleuLesson.Build(bleuValues(t, changes))
		if err != nil {
			t.Fatalf("%v: %v", changes, err)
		}
		return m.At(m.Steps())
	}
	same := map[string]string{"example": bleuTyped, "candidate": "the cat", "references": "the cat", "max_n": "4"}
	f := at(same)
	if b := arrayOf(f, "BLEU")[0]; b != 0 {
		t.Errorf("unsmoothed: BLEU %g, want 0 (no 3- or 4-grams)", b)
	}
	if why, _ := f.Meta["why_zero"].(string); !strings.Contains(why, "no n-grams of order 3 to 4") {
		t.Errorf("the page does not say why BLEU is 0: %q", why)
	}
	same["smoothing"] = "effective-order"
	f = at(same)
	if b := arrayOf(f, "BLEU")[0]; math.Abs(b-1) > 1e-12 {
		t.Errorf("effective order: BLEU %g, want 1", b)
	}
	if _, ok := f.Meta["why_zero"]; ok {
		t.Errorf("effective order still explains a zero")
	}
	// w = 1 0 0 0 is unigram precision times BP: 5/7 for the cat example.
	f = at(map[string]string{"example": "cat", "max_n": "4", "w": "1 0 0 0"})
	if b := arrayOf(f, "BLEU")[0]; math.Abs(b-5.0/7) > 1e-12 {
		t.Errorf("w = 1 0 0 0: BLEU %g, want p_1 = 5/7", b)
	}
	for _, w := range []string{"0.5 0.5", "0.3 0.3 0.3 0.3", "a b c d"} {
		if _, err := bleuLesson.Build(bleuValues(t, map[string]string{"max_n": "4", "w": w})); err == nil || !strings.Contains(err.Error(), "weight") {
			t.Errorf("w = %q: got %v, want an error about the weights", w, err)
		}
	}
}

// TestBleuTERShift: lecture 002 (seed 002) names TER as the edits that change an output
// into a reference (Snover et al. 2006). On the page's shift example, "sat on the mat the
// cat" against "the cat sat on the mat", one shift of "the cat" replaces WER's four
// edits: TER = 1/6 where WER = 4/6, and the panel's data holds that shift.
func TestBleuTERShift(t *testing.T) {
	m, err := bleuLesson.Build(bleuValues(t, map[string]string{"example": "typed", "candidate": "sat on the mat the cat", "references": "the cat sat on the mat"}))
	if err != nil {
		t.Fatal(err)
	}
	last := m.At(m.Steps()).Meta
	if got, want := last["TER"].(string), "(1 + 0 + 0 + 0)/6 = 0.1667"; !strings.Contains(got, want) {
		t.Errorf("TER fact: got %q want it to contain %q", got, want)
	}
	if got, want := last["WER"].(string), "(0 + 2 + 2)/6 = 0.6667"; !strings.Contains(got, want) {
		t.Errorf("WER fact: got %q want it to contain %q", got, want)
	}
	view := m.Static().Meta["ter"].(terView)
	if len(view.Shifts) != 1 || strings.Join(view.Shifts[0].Words, " ") != "the cat" || view.Shifts[0].From != 4 || view.Shifts[0].To != 0 ||
		!reflect.DeepEqual(view.Shifts[0].Block, []int{4, 5}) || view.Edits != 1 {
		t.Errorf("the panel's TER: got %+v, want one shift of “the cat” from 4 to 0", view)
	}
	if !reflect.DeepEqual(view.Origin, []int{4, 5, 0, 1, 2, 3}) || strings.Join(view.Shifted, " ") != "the cat sat on the mat" {
		t.Errorf("shifted candidate: got %v from %v", view.Shifted, view.Origin)
	}
	// several references: TER takes the closest and the average length; the panel the first
	m, err = bleuLesson.Build(bleuValues(t, map[string]string{"example": "typed", "candidate": "sat on the mat the cat", "references": "a b | the cat sat on the mat"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.At(m.Steps()).Meta["TER"].(string), "(1 + 0 + 0 + 0)/4 = 0.2500, reference 2 closest"; !strings.Contains(got, want) {
		t.Errorf("TER fact with two references: got %q want it to contain %q", got, want)
	}
}
