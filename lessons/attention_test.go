package lessons

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
)

// attentionValues are the page's defaults with some changes.
func attentionValues(changes map[string]string) sim.Values {
	return lessonValues(attentionLesson, changes)
}

func buildAttentionModel(t *testing.T, changes map[string]string) *attentionModel {
	t.Helper()
	return buildLesson[*attentionModel](t, attentionLesson, changes)
}

func TestAttentionBadInput(t *testing.T) {
	tests := []struct {
		changes map[string]string
		want    string
	}{
		{map[string]string{"date": ""}, "the date is empty: type a date"},
		{map[string]string{"date": "   "}, "the date is empty: type a date"},
		{map[string]string{"date": "22 novembre 2026 é"}, `"é"`},
		{map[string]string{"date": "22 nov 2026 ~ ["}, `"~" and "["`},
		{map[string]string{"date": strings.Repeat("1", 41)}, "the date has 41 characters; at most 40"},
		{map[string]string{"date": "31 February 2026"}, `"31 February 2026" is not a date in the calendar: its month has no such day`},
		{map[string]string{"date": "hello world"}, `"hello world" is not a date in any of the 15 trained forms`},
		{map[string]string{"date": "22 November 2090"}, "outside the years the date model was trained on, 1969 to 2068"},
		{map[string]string{"date": "monday 22/11/26"}, "2026-11-22 was a Sunday"},
		{map[string]string{"task": "corpus", "sentence": ""}, "empty"},
		{map[string]string{"task": "corpus", "sentence": "xyzzy plugh"}, `none of the words "xyzzy" and "plugh"`},
		{map[string]string{"task": "corpus", "sentence": "blorp blorp"}, `the word "blorp" is not in`},
		{map[string]string{"task": "corpus", "sentence": strings.Repeat("go ", 21)}, "at most 20"},
	}
	for _, tt := range tests {
		_, err := attentionLesson.Build(attentionValues(tt.changes))
		if err == nil {
			t.Errorf("%v: got no error want one containing %q", tt.changes, tt.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "lessons:") || strings.Contains(msg, "models:") {
			t.Errorf("%v: got %q want a student's message containing %q", tt.changes, msg, tt.want)
		}
	}
	// a sentence with some unknown words is translated, with the words named
	m := buildAttentionModel(t, map[string]string{"task": "corpus", "sentence": "they are watching zorblax ."})
	if got, _ := m.Static().Meta["unknown_words"].(string); !strings.Contains(got, `"zorblax"`) {
		t.Errorf("unknown words: got %q want it to name \"zorblax\"", got)
	}
}

// TestAttentionWeights: every row of α sums to 1 over the source; the scaled
// dot-product weights sum to 1 over the allowed keys and are exactly 0 on masked ones,
// for every combination of the switches.
func TestAttentionWeights(t *testing.T) {
	const tol = 1e-12
	for _, source := range []map[string]string{
		{"task": "dates", "date": "22 November 2026"},
		{"task": "dates", "date": "the 3rd of march 1971"},
		{"task": "corpus", "sentence": "they are watching ."},
		{"task": "corpus", "sentence": "i'm home ."},
	} {
		for _, masks := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			changes := map[string]string{"padding_mask": strconv.FormatBool(masks[0]), "causal_mask": strconv.FormatBool(masks[1])}
			for k, s := range source {
				changes[k] = s
			}
			m := buildAttentionModel(t, changes)
			T := len(m.src.ids)
			for step := 1; step <= m.Steps(); step++ {
				alpha := arrayNamed(t, m.At(step), "alpha").Data
				if len(alpha) != T {
					t.Fatalf("%v step %d: got %d weights want T = %d", changes, step, len(alpha), T)
				}
				var sum float64
				for _, a := range alpha {
					if a < 0 {
						t.Errorf("%v step %d: negative weight %v", changes, step, a)
					}
					sum += a
				}
				if math.Abs(sum-1) > tol {
					t.Errorf("%v step %d: Σ_j α = %v want 1 ± %g", changes, step, sum, tol)
				}
			}
			st := m.Static()
			A, allowed := arrayNamed(t, st, "A"), arrayNamed(t, st, "A_allowed")
			n := T + sdpPadding
			if !reflect.DeepEqual(A.Shape, []int{n, n}) {
				t.Fatalf("%v: A has shape %v want [%d %d]", changes, A.Shape, n, n)
			}
			for i := range n {
				var sum float64
				any := false
				for j := range n {
					want := (!masks[0] || j < T) && (!masks[1] || j <= i)
					a := A.Data[i*n+j]
					if (allowed.Data[i*n+j] == 1) != want {
						t.Errorf("%v: allowed[%d][%d] = %v want %v", changes, i, j, allowed.Data[i*n+j], want)
					}
					if !want && a != 0 {
						t.Errorf("%v: masked A[%d][%d] = %v want exactly 0", changes, i, j, a)
					}
					any = any || want
					sum += a
				}
				if any && math.Abs(sum-1) > tol {
					t.Errorf("%v: row %d of A sums to %v want 1 ± %g", changes, i, sum, tol)
				}
			}
		}
	}
}

func arrayNamed(t *testing.T, f sim.Frame, name string) sim.Array {
	t.Helper()
	for _, a := range f.Arrays {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no array %q", name)
	return sim.Array{}
}

// TestAttentionEncoderStates: the states the scaled dot-product panel uses are the
// model's own encoder states on the source (padding only adds rows after them), and the
// context of each step is Σ_j α_t'j h_j over them.
func TestAttentionEncoderStates(t *testing.T) {
	const tol = 1e-12
	m := buildAttentionModel(t, nil)
	T := len(m.src.ids)
	padded := append(append([]int(nil), m.src.ids...), models.PadID, models.PadID)
	h := encoderStates(m.att.Model, padded)
	full, err := m.att.Model.FreeRun(m.src.ids, m.att.Task.MaxOutput) // the page keeps no encoder trace (slim)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Encoder) != T {
		t.Fatalf("encoder steps: got %d want T = %d", len(full.Encoder), T)
	}
	for j, st := range full.Encoder {
		for u, want := range st.Next.H.RawRowView(0) {
			if got := h.At(j, u); math.Abs(got-want) > tol {
				t.Fatalf("h_%d[%d]: got %v want %v", j+1, u, got, want)
			}
		}
	}
	for step, s := range m.trace.Steps {
		for u, got := range s.Context.RawRowView(0) {
			var want float64
			for j := range T {
				want += s.Attention[j] * h.At(j, u)
			}
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("step %d: c[%d] = %v want Σ_j α h_j = %v", step+1, u, got, want)
			}
		}
	}
}

// TestAttentionDeterministic: the same values give the same frames, on both tasks.
func TestAttentionDeterministic(t *testing.T) {
	for _, changes := range []map[string]string{nil, {"task": "corpus", "causal_mask": "true"}} {
		a, b := buildAttentionModel(t, changes), buildAttentionModel(t, changes)
		if !reflect.DeepEqual(a.Static(), b.Static()) {
			t.Errorf("%v: two builds have different static frames", changes)
		}
		for s := 1; s <= a.Steps(); s++ {
			if !reflect.DeepEqual(a.At(s), b.At(s)) {
				t.Errorf("%v: step %d differs between two builds", changes, s)
			}
		}
	}
}

// TestAttentionConcurrentBuilds: page builds share the loaded translators; builds
// at the same time (one per session) give the frames of a build alone (run with -race).
func TestAttentionConcurrentBuilds(t *testing.T) {
	sources := []map[string]string{nil, {"task": "corpus"}, {"date": "nov 22, 2026"}, {"task": "corpus", "sentence": "i lost ."}}
	want := make([]*attentionModel, len(sources))
	for i, ch := range sources {
		want[i] = buildAttentionModel(t, ch)
	}
	got := make([]sim.Model, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, ch := range sources {
		wg.Go(func() { got[i], errs[i] = attentionLesson.Build(attentionValues(ch)) })
	}
	wg.Wait()
	for i := range sources {
		if errs[i] != nil {
			t.Fatalf("%v: %v", sources[i], errs[i])
		}
		for s := 1; s <= want[i].Steps(); s++ {
			if !reflect.DeepEqual(got[i].At(s), want[i].At(s)) {
				t.Errorf("%v step %d: a concurrent build differs from a build alone", sources[i], s)
			}
		}
	}
}

// BenchmarkAttentionBuild is one page build (decode, the model without attention, the
// scaled dot-product panel) and its middle frame, per task.
func BenchmarkAttentionBuild(b *testing.B) {
	if _, err := attentionLengthScores(); err != nil { // once per process, measured below
		b.Fatal(err)
	}
	for _, task := range []string{"dates", "corpus"} {
		v := attentionValues(map[string]string{"task": task})
		b.Run(task, func(b *testing.B) {
			for b.Loop() {
				m, err := attentionLesson.Build(v)
				if err != nil {
					b.Fatal(err)
				}
				m.Static()
				m.At((m.Steps() + 1) / 2)
			}
		})
	}
}

// BenchmarkAttentionFrame is one frame of a built page.
func BenchmarkAttentionFrame(b *testing.B) {
	m, err := attentionLesson.Build(attentionLesson.Params.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	t := 0
	for b.Loop() {
		m.At(t%m.Steps() + 1)
		t++
	}
}

// TestBottleneckShows holds the page's prose to the bundled models: on the corpus,
// BLEU without attention falls from the shortest to the longest sentences and the
// model with attention beats it in every range; on the dates both are near perfect.
func TestBottleneckShows(t *testing.T) {
	const nearPerfect = 0.95 // "almost perfect at every length"
	scores, err := attentionLengthScores()
	if err != nil {
		t.Fatal(err)
	}
	corpus := scores["corpus"].Buckets
	if first, last := corpus[0], corpus[len(corpus)-1]; !(last.BLEU[0] < first.BLEU[0]) {
		t.Errorf("corpus without attention: BLEU %.3f (%s) then %.3f (%s), want a fall", first.BLEU[0], first.Label(), last.BLEU[0], last.Label())
	}
	for _, b := range corpus {
		if b.BLEU[1] <= b.BLEU[0] {
			t.Errorf("corpus %s: BLEU with attention %.3f, without %.3f, want with > without", b.Label(), b.BLEU[1], b.BLEU[0])
		}
	}
	for _, b := range scores["dates"].Buckets {
		if b.BLEU[0] < nearPerfect || b.BLEU[1] < nearPerfect {
			t.Errorf("dates %s: BLEU %.3f without, %.3f with, want both ≥ %g", b.Label(), b.BLEU[0], b.BLEU[1], nearPerfect)
		}
	}
}

// TestAttentionDateRefusedChangesNothing: a date the task does not know is refused as
// a change of the page's values, and the run keeps the date it had (point 4 of the
// fidelity issue: "31 February 2026" and "hello world" were translated without comment).
func TestAttentionDateRefusedChangesNothing(t *testing.T) {
	base := attentionValues(nil)
	for _, bad := range []string{"31 February 2026", "hello world"} {
		if _, err := attentionLesson.Params.Apply(base, map[string]string{"date": bad}); err != nil {
			continue // refused by the parameter itself: also nothing changes
		}
		if _, err := attentionLesson.Build(attentionValues(map[string]string{"date": bad})); err == nil {
			t.Errorf("%q: built, want refused", bad)
		}
	}
	// the dates task still takes a date of every trained form, and the corpus task
	// ignores the date field altogether
	for _, ex := range data.DateFormats() {
		m := buildAttentionModel(t, map[string]string{"date": ex})
		if m.src.refs[0] != "2026-11-22" {
			t.Errorf("%q: reference %v want 2026-11-22", ex, m.src.refs)
		}
	}
	buildAttentionModel(t, map[string]string{"task": "corpus", "date": "hello world"})
}

// exampleList is the examples a parameter's help gives after "e.g.", separated by " · ".
func exampleList(t *testing.T, name string) []string {
	t.Helper()
	for _, p := range attentionLesson.Params {
		if p.Name == name {
			_, list, ok := strings.Cut(p.Help, "e.g. ")
			if !ok {
				t.Fatalf("%s: help %q gives no examples", name, p.Help)
			}
			list, _, _ = strings.Cut(list, " (")
			list = strings.TrimSuffix(strings.TrimSpace(list), ".")
			if name == "sentence" {
				list += "." // the last sentence's own full stop
			}
			return strings.Split(list, " · ")
		}
	}
	t.Fatalf("no parameter %q", name)
	return nil
}

// TestAttentionSuggestedExamples holds the page's suggestions to the bundled model:
// every sentence the help and the prose suggest, and the default, is in the corpus and
// translated by the model with attention to its corpus reference; the held-out one the
// prose names is one the model without attention gets wrong; every suggested date is
// translated to its ISO form; and the new sentence the prose quotes comes out as quoted.
func TestAttentionSuggestedExamples(t *testing.T) {
	sentences := append(exampleList(t, "sentence"), attentionLesson.Params.Defaults()["sentence"], "she doesn't want to sing the songs .")
	if len(sentences) < 4 {
		t.Fatalf("examples %q", sentences)
	}
	for _, s := range sentences {
		m := buildAttentionModel(t, map[string]string{"task": "corpus", "sentence": s})
		f := m.facts()
		if len(m.src.refs) == 0 || f["with_attention_correct"] != true {
			t.Errorf("%q: with attention %q, corpus reference %q: want a corpus sentence translated right", s, f["with_attention"], m.src.refs)
		}
	}
	prose := strings.Join(attentionLesson.Prose, " ")
	held := "she doesn't want to sing the songs ."
	m := buildAttentionModel(t, map[string]string{"task": "corpus", "sentence": held})
	if !strings.Contains(prose, "held-out “"+held+"”, which only the model with attention translates right") ||
		!strings.HasPrefix(m.src.notes["in_corpus"], "yes, in the held-out test split") || m.facts()["without_attention_correct"] != false {
		t.Errorf("%q: %s, without attention %q; want held out and wrong without attention", held, m.src.notes["in_corpus"], m.without)
	}
	novel, wrong := "we are not eating the apples .", "nous ne sommes pas à la soupe ."
	m = buildAttentionModel(t, map[string]string{"task": "corpus", "sentence": novel})
	if got := m.facts()["with_attention"]; len(m.src.refs) != 0 || got != wrong || !strings.Contains(prose, "“"+novel+"”") || !strings.Contains(prose, "“"+wrong+"”") {
		t.Errorf("%q: references %q, with attention %q; the prose says it is new and comes out as %q", novel, m.src.refs, got, wrong)
	}
	for _, d := range append(exampleList(t, "date"), "22 November 2026", "nov 22, 2026", "Sunday 22/11/26", "the 22nd of november 2026", "20261122") {
		m := buildAttentionModel(t, map[string]string{"date": d})
		if f := m.facts(); f["with_attention_correct"] != true {
			t.Errorf("date %q: with attention %q want %v", d, f["with_attention"], m.src.refs)
		}
	}
}

// TestAttentionSDPNoProjections holds what the page says of its scaled dot-product
// panel: no projections, Q = K = V = H (the encoder states of the padded source,
// d_k = h = 64), so A = softmax(HHᵀ/√d_k) row by row; the scores are symmetric, and
// without masks A_ij·Z_i = A_ji·Z_j (the weights differ only by their rows'
// normalisations Z_i = Σ_k exp(S_ik)).
func TestAttentionSDPNoProjections(t *testing.T) {
	const tol = 1e-12
	for _, task := range []string{"dates", "corpus"} {
		m := buildAttentionModel(t, map[string]string{"task": task, "padding_mask": "false"})
		ids := append(append([]int(nil), m.src.ids...), models.PadID, models.PadID, models.PadID)
		h := encoderStates(m.att.Model, ids)
		n, dk := h.Dims()
		if dk != 64 || dk != m.att.Config.Hidden || !strings.Contains(m.facts()["scaled_dot_product"].(string), "dₖ = 64") {
			t.Errorf("%s: d_k %d, h %d, facts %q; the page says d_k = h = 64", task, dk, m.att.Config.Hidden, m.facts()["scaled_dot_product"])
		}
		S := make([][]float64, n)
		Z := make([]float64, n)
		for i := range n {
			S[i] = make([]float64, n)
			for j := range n {
				S[i][j] = mat.Dot(h.RowView(i), h.RowView(j)) / math.Sqrt(float64(dk))
				Z[i] += math.Exp(S[i][j])
			}
		}
		for i := range n {
			for j := range n {
				if S[i][j] != S[j][i] {
					t.Fatalf("%s: S_%d%d = %v, S_%d%d = %v, want symmetric", task, i, j, S[i][j], j, i, S[j][i])
				}
				a := m.sdp.weights.At(i, j)
				if want := math.Exp(S[i][j]) / Z[i]; math.Abs(a-want) > tol {
					t.Fatalf("%s: A_%d%d = %v want softmax(HHᵀ/√d_k) = %v", task, i, j, a, want)
				}
				if l, r := a*Z[i], m.sdp.weights.At(j, i)*Z[j]; math.Abs(l-r) > 1e-9*math.Max(1, math.Abs(l)) {
					t.Fatalf("%s: A_%d%d Z_%d = %v, A_%d%d Z_%d = %v, want equal", task, i, j, i, l, j, i, j, r)
				}
			}
		}
	}
	eqs := ""
	for _, e := range attentionLesson.Equations {
		eqs += e.TeX
	}
	if !strings.Contains(eqs, `W^Q = W^K = W^V = I`) || !strings.Contains(strings.Join(attentionLesson.Prose, " "), `\(W^Q = W^K = W^V = I\)`) {
		t.Error("the equations and the prose must say there are no projections")
	}
}
