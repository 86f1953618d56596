package lessons

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"unroll/models"
	"unroll/sim"
)

func buildTransformerModel(t *testing.T, changes map[string]string) *transformerModel {
	t.Helper()
	return buildLesson[*transformerModel](t, transformerLesson, changes)
}

// transformerDates are dates in several trained forms, for the claims that hold on
// (nearly) every date.
var transformerDates = []string{"22 November 2026", "nov 3, 1971", "Sunday 22/11/26", "the 1st of january 2000", "2068/12/31", "14.07.1989"}

func TestTransformerBadInput(t *testing.T) {
	for _, tt := range []struct{ date, want string }{
		{"", "the date is empty"},
		{"31 February 2026", "not a date in the calendar"},
		{"22 November 2090", "outside the years"},
		{"22 nov 2026 ~", `"~"`},
		{"hello world", "not a date in any of"},
	} {
		_, err := transformerLesson.Build(lessonValues(transformerLesson, map[string]string{"date": tt.date}))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "models:") {
			t.Errorf("date %q: got %v, want a student's message containing %q", tt.date, err, tt.want)
		}
	}
}

// TestTransformerCausalMaskShown: seed 002, the decoder's self-attention sees
// "all positions up to and including that position": with the mask, the declared
// allowed cells are j ≤ i, the weights there sum to 1 and are exactly 0 elsewhere,
// in every layer and head, stepped and fed the answer. Without it every cell is
// allowed.
func TestTransformerCausalMaskShown(t *testing.T) {
	for _, masked := range []string{"true", "false"} {
		for _, lh := range [][2]string{{"1", "1"}, {"2", "4"}, {"1", "3"}} {
			m := buildTransformerModel(t, map[string]string{"mask": masked, "layer": lh[0], "head": lh[1]})
			st := m.Static()
			for _, pair := range [][2]string{{"teacher_self", "teacher_allowed"}} {
				w, ok := arrayOf(st, pair[0]), arrayOf(st, pair[1])
				n := int(math.Sqrt(float64(len(w))))
				for i := range n {
					var sum float64
					for j := range n {
						want := 1.0
						if masked == "true" && j > i {
							want = 0
						}
						if ok[i*n+j] != want {
							t.Fatalf("mask=%s %s[%d,%d]: allowed %v, want %v", masked, pair[1], i, j, ok[i*n+j], want)
						}
						if want == 0 && w[i*n+j] != 0 {
							t.Errorf("mask=%s: masked weight %s[%d,%d] = %v, want exactly 0", masked, pair[0], i, j, w[i*n+j])
						}
						sum += w[i*n+j]
					}
					if math.Abs(sum-1) > 1e-12 {
						t.Errorf("%s row %d sums to %v", pair[0], i, sum)
					}
				}
			}
			allowedDec := arrayOf(st, "dec_allowed")
			n := len(m.inputs)
			for s := 1; s <= m.Steps(); s++ {
				row := arrayOf(m.At(s), "dec_self")
				for j, w := range row {
					if allowedDec[(s-1)*n+j] == 0 && w != 0 {
						t.Errorf("mask=%s step %d: masked decoder weight %d = %v", masked, s, j, w)
					}
					if j >= s && w != 0 {
						t.Errorf("step %d: weight %v on input %d, which is not written yet", s, w, j+1)
					}
				}
			}
		}
	}
}

// TestTransformerWithoutMaskSeesTheAnswer: the page's claim for the mask switch.
// The model trained without the mask gets every character right when fed the
// answer, puts its self-attention on the position after the query's (where the
// answer sits) in some head, and fails when it writes the date itself; the model
// with the mask writes the dates right.
func TestTransformerWithoutMaskSeesTheAnswer(t *testing.T) {
	freeWrong, peek := 0, 0.0
	for _, date := range transformerDates {
		un := buildTransformerModel(t, map[string]string{"date": date, "mask": "false"})
		if un.teacherRight != len(un.answer) {
			t.Errorf("%q without the mask, fed the answer: %d of %d right, want all", date, un.teacherRight, len(un.answer))
		}
		if out := un.tr.Words(stepOutputs(un.steps)); out != un.src.refs[0] {
			freeWrong++
		}
		peek = math.Max(peek, un.peek)
		with := buildTransformerModel(t, map[string]string{"date": date})
		if with.peek != 0 {
			t.Errorf("%q with the mask: weight %v on the next position, want exactly 0", date, with.peek)
		}
		if out := with.tr.Words(stepOutputs(with.steps)); out != with.src.refs[0] {
			t.Errorf("%q with the mask: got %q, want %q", date, out, with.src.refs[0])
		}
	}
	if freeWrong < len(transformerDates)-1 {
		t.Errorf("without the mask the model wrote %d of %d dates right, want it to fail on (nearly) all", len(transformerDates)-freeWrong, len(transformerDates))
	}
	if peek < 0.5 {
		t.Errorf("without the mask no head puts more than %.3f of its weight on the next position, want > 0.5", peek)
	}
}

// TestTransformerScaleControlsTheSkew: seed 002, "1/√d_k normalization to control
// the skew of softmax": without it the weights are closer to one-hot, a larger mean
// largest weight and a smaller entropy, whichever way the switch stands.
func TestTransformerScaleControlsTheSkew(t *testing.T) {
	for _, date := range transformerDates[:3] {
		for _, scale := range []string{"true", "false"} {
			m := buildTransformerModel(t, map[string]string{"date": date, "scale": scale})
			peakWith, peakWithout, entWith, entWithout := m.peak, m.peakAlt, m.ent, m.entAlt
			if scale == "false" {
				peakWith, peakWithout, entWith, entWithout = m.peakAlt, m.peak, m.entAlt, m.ent
			}
			if !(peakWithout > peakWith && entWithout < entWith) {
				t.Errorf("%q scale=%s: largest weight %.3f → %.3f, entropy %.3f → %.3f without 1/√d_k; want sharper", date, scale, peakWith, peakWithout, entWith, entWithout)
			}
		}
	}
}

// TestTransformerSwitchesShowOtherHeads: the layer and head choose different matrices.
func TestTransformerSwitchesShowOtherHeads(t *testing.T) {
	seen := map[string]bool{}
	for _, lh := range [][2]string{{"1", "1"}, {"1", "2"}, {"2", "1"}} {
		m := buildTransformerModel(t, map[string]string{"layer": lh[0], "head": lh[1]})
		key := sim.Frame{Arrays: m.Static().Arrays[:1]}.Arrays[0].Data
		s := ""
		for _, v := range key[:5] {
			s += strings.TrimRight(strings.TrimRight(strconvF(v), "0"), ".") + ","
		}
		if seen[s] {
			t.Errorf("layer %s head %s shows the same encoder matrix as another", lh[0], lh[1])
		}
		seen[s] = true
	}
}

func strconvF(v float64) string { return plainNum(math.Round(v*1e9) / 1e9) }

// TestTransformerCrossAttentionFindsTheSource: the page's claim for the default date:
// in layer 2 every head's encoder-decoder attention sends the year's last two digits
// (outputs 3, 4) to the source's year, the month's (6, 7) into the month's name and
// the day's (9, 10) to the day.
func TestTransformerCrossAttentionFindsTheSource(t *testing.T) {
	// "22 november 2026": day 0–1, month 3–10, year 12–15 (0-based source positions)
	spans := map[int][2]int{3: {12, 15}, 4: {12, 15}, 6: {3, 10}, 7: {3, 10}, 9: {0, 1}, 10: {0, 1}}
	for head := 1; head <= 4; head++ {
		m := buildTransformerModel(t, map[string]string{"layer": "2", "head": strconv.Itoa(head)})
		for step, span := range spans {
			j := models.Argmax(arrayOf(m.At(step), "cross"))
			if j < span[0] || j > span[1] {
				t.Errorf("head %d, output %d (%q): looks most at source position %d (%q), want %d–%d", head, step, m.outputs[step-1], j, m.src.tokens[j], span[0], span[1])
			}
		}
	}
}

// TestTransformerCorpus: the corpus task translates a held-out sentence with its
// reference; a sentence the corpus lacks has no reference, and the decoder is then
// fed its own translation; the mask switch, which applies to the dates only, changes
// nothing there.
func TestTransformerCorpus(t *testing.T) {
	m := buildTransformerModel(t, map[string]string{"task": "corpus", "sentence": "they are watching ."})
	if m.answer == nil || !strings.HasPrefix(m.src.notes["in_corpus"], "yes") {
		t.Fatalf("a corpus sentence: no reference (%q)", m.src.notes["in_corpus"])
	}
	un := buildTransformerModel(t, map[string]string{"task": "corpus", "sentence": "they are watching .", "mask": "false"})
	if un.tr != m.tr || !un.masked {
		t.Errorf("mask=false on the corpus: want the masked corpus model still")
	}
	if _, ok := un.Static().Meta["held_out_unmasked"]; ok {
		t.Errorf("the corpus page reports the dates' unmasked model")
	}
	free := buildTransformerModel(t, map[string]string{"task": "corpus", "sentence": "we are not eating the apples ."})
	if free.answer != nil {
		t.Fatalf("a new sentence has a reference: %v", free.answer)
	}
	if free.teacherRight != len(free.steps) {
		t.Errorf("fed its own translation, the decoder's argmax agrees on %d of %d positions, want all (greedy decoding is that argmax)", free.teacherRight, len(free.steps))
	}
	if _, ok := free.At(1).Meta["correct"]; ok {
		t.Errorf("a sentence with no reference: a step says right or wrong")
	}
}

// TestTransformerStanding: the prose's comparison with the GRU with attention on the
// same held-out splits: a little above it on the corpus (BLEU), a little below on the
// dates (exact match).
func TestTransformerStanding(t *testing.T) {
	p, err := transformerShared()
	if err != nil {
		t.Fatal(err)
	}
	corpus, corpusGRU := p.scores[transformerMasked["corpus"]], p.scores[transformerGRU["corpus"]]
	dates, datesGRU := p.scores[transformerMasked["dates"]], p.scores[transformerGRU["dates"]]
	if !(corpus.BLEU > corpusGRU.BLEU && corpus.BLEU-corpusGRU.BLEU < 0.05) {
		t.Errorf("corpus BLEU: Transformer %.4f, GRU with attention %.4f; the page says a little above", corpus.BLEU, corpusGRU.BLEU)
	}
	if !(dates.Exact < datesGRU.Exact && datesGRU.Exact-dates.Exact < 0.05) {
		t.Errorf("dates exact: Transformer %.4f, GRU with attention %.4f; the page says a little below", dates.Exact, datesGRU.Exact)
	}
}
