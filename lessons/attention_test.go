package lessons

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

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
