package lessons

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

func encDecValues(changes map[string]string) sim.Values { return lessonValues(encDecLesson, changes) }

func buildEncDecModel(t *testing.T, changes map[string]string) *encDecModel {
	t.Helper()
	return buildLesson[*encDecModel](t, encDecLesson, changes)
}

// TestEncDecLectureExample follows "They are watching ." through the page: T = 4
// encoder steps reading each token, the context c = h_4, and the greedy decoder
// writing "ils regardent ." then <eos>, each step reading the previous output.
func TestEncDecLectureExample(t *testing.T) {
	m := buildEncDecModel(t, nil)
	wantSrc := []string{"they", "are", "watching", "."}
	if !slices.Equal(m.tokens, wantSrc) {
		t.Fatalf("tokens: got %q want %q", m.tokens, wantSrc)
	}
	if got, want := m.Static().Meta["translation"], "ils regardent ."; got != want {
		t.Errorf("translation: got %q want %q", got, want)
	}
	T := len(wantSrc)
	if got, want := m.Steps(), T+1+4; got != want {
		t.Fatalf("steps: got %d want %d (4 encoder, the context, 3 words and <eos>)", got, want)
	}
	for s := 1; s <= T; s++ {
		f := m.At(s)
		if f.Meta["phase"] != "encoder" || f.Meta["reading"] != wantSrc[s-1] {
			t.Errorf("step %d: got phase %v reading %v want encoder reading %q", s, f.Meta["phase"], f.Meta["reading"], wantSrc[s-1])
		}
		if got, want := arrayOf(f, "h"), m.run.Encoder[s-1].Next.H.RawRowView(0); !slices.Equal(got, want) {
			t.Errorf("step %d: h_t differs from the model's encoder trace", s)
		}
	}
	ctx := m.At(T + 1)
	if ctx.Meta["phase"] != "context" {
		t.Errorf("step %d: got phase %v want context", T+1, ctx.Meta["phase"])
	}
	if got, want := arrayOf(ctx, "c"), arrayOf(m.At(T), "h"); !slices.Equal(got, want) {
		t.Errorf("c: got %v want h_T %v (q(h_1..h_T) = h_T)", got[:3], want[:3])
	}
	wantOut := []string{"ils", "regardent", ".", "<eos>"}
	prev := "<bos>"
	for i, w := range wantOut {
		f := m.At(T + 2 + i)
		if f.Meta["phase"] != "decoder" || f.Meta["t'"] != i+1 {
			t.Errorf("step %d: got phase %v t' %v want decoder %d", T+2+i, f.Meta["phase"], f.Meta["t'"], i+1)
		}
		if f.Meta["input"] != prev || f.Meta["output"] != w {
			t.Errorf("t'=%d: got input %v output %v want %q → %q", i+1, f.Meta["input"], f.Meta["output"], prev, w)
		}
		top := f.Meta["topk"].([]tokenProb)
		if len(top) != translationTopK || top[0].Token != w || top[0].P != f.Meta["probability"] {
			t.Errorf("t'=%d: top-k %v, want %d entries led by %q with the output's probability", i+1, top, translationTopK, w)
		}
		for j := 1; j < len(top); j++ {
			if top[j].P > top[j-1].P {
				t.Errorf("t'=%d: top-k not sorted: %v", i+1, top)
			}
		}
		prev = w
	}
}

// TestEncDecContextFeedsDecoder checks the architecture's wiring on the page's
// trace: s_0 = c, and c is part of every decoder step's input X = [embedding; c].
func TestEncDecContextFeedsDecoder(t *testing.T) {
	for _, input := range []string{"They are watching .", "go .", "he's calm ."} {
		m := buildEncDecModel(t, map[string]string{"input": input})
		c := m.run.Encoder[len(m.run.Encoder)-1].Next.H.RawRowView(0)
		e := m.tr.Config.Embed
		for i, st := range m.run.Steps {
			x := st.Decoder.X.RawRowView(0)
			if !slices.Equal(x[e:], c) {
				t.Errorf("%q t'=%d: the decoder input's context part is not h_T", input, i+1)
			}
		}
		if got := m.run.Steps[0].Decoder.Prev.H.RawRowView(0); !slices.Equal(got, c) {
			t.Errorf("%q: s_0 is not c", input)
		}
	}
}

// TestEncDecTypedSentences: any sentence runs, lengths follow the input, unknown
// words are named, and the untrained weights translate nothing sensible.
func TestEncDecTypedSentences(t *testing.T) {
	cases := []struct {
		input, unknown string
		T              int
	}{
		{"I lost .", "", 3},
		{"they are xylophoning quietly .", "xylophoning quietly", 5},
		{"  Go.  ", "", 2},
	}
	for _, c := range cases {
		m := buildEncDecModel(t, map[string]string{"input": c.input})
		if m.encSteps() != c.T || m.Steps() != c.T+1+len(m.run.Steps) {
			t.Errorf("%q: got T=%d steps=%d want T=%d", c.input, m.encSteps(), m.Steps(), c.T)
		}
		got, _ := m.Static().Meta["unknown_words"].(string)
		if c.unknown == "" && got != "" || c.unknown != "" && !strings.HasPrefix(got, c.unknown) {
			t.Errorf("%q: unknown words %q want %q", c.input, got, c.unknown)
		}
	}
	u := buildEncDecModel(t, map[string]string{"weights": weightsUntrained})
	if got := u.Static().Meta["translation"]; got == "ils regardent ." {
		t.Errorf("untrained weights translate correctly: %q", got)
	}
	if p := u.At(u.encSteps() + 2).Meta["probability"].(float64); p > 0.05 {
		t.Errorf("untrained first output probability %v, want a nearly flat distribution (< 0.05)", p)
	}
}

// TestEncDecBadInput: empty, too long or invalid text is refused with a sentence a
// student can act on, and nothing else changes (the run keeps its model).
func TestEncDecBadInput(t *testing.T) {
	cases := []struct{ input, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{strings.Repeat("go ", 25), "at most"},
		{"go \xff .", "UTF-8"},
	}
	for _, c := range cases {
		_, err := buildEncDec(encDecValues(map[string]string{"input": c.input}))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "lessons:") || strings.Contains(err.Error(), "models:") {
			t.Errorf("input %q: got %v want a plain sentence containing %q", c.input, err, c.want)
		}
	}
	run, err := sim.NewRun(encDecLesson.Params, encDecLesson.Model, encDecLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	run.Seek(3)
	before := run.Snapshot()
	msgs, err := run.Apply(sim.Command{Type: sim.SetCommand, Params: map[string]string{"input": "   "}})
	if err == nil || len(msgs) != 1 || msgs[0].Type != sim.ErrorMessage {
		t.Fatalf("set to an empty sentence: got %v, %d messages want one error", err, len(msgs))
	}
	after := run.Snapshot()
	if run.Values()["input"] != "They are watching ." || run.Step() != 3 || !bytes.Equal(stripSeq(before.Data), stripSeq(after.Data)) {
		t.Errorf("a refused sentence changed the run")
	}
}

// stripSeq blanks the header's "seq" so two snapshots of one state compare equal.
func stripSeq(data []byte) []byte {
	i := bytes.Index(data, []byte(`"seq":`))
	j := bytes.IndexByte(data[i:], ',')
	return append(append([]byte(nil), data[:i]...), data[i+j:]...)
}

// TestEncDecDeterminism: the same values give the same frames, and the shared
// bundled model is not changed by building pages.
func TestEncDecDeterminism(t *testing.T) {
	for _, w := range []string{weightsTrained, weightsUntrained} {
		v := encDecValues(map[string]string{"input": "she is reading a book .", "weights": w})
		a, _ := buildEncDec(v)
		b, _ := buildEncDec(v)
		for s := 1; s <= a.Steps(); s++ {
			if !reflect.DeepEqual(a.At(s), b.At(s)) {
				t.Fatalf("%s step %d: two builds differ", w, s)
			}
		}
		if !reflect.DeepEqual(a.Static(), b.Static()) {
			t.Fatalf("%s: static differs", w)
		}
	}
}

// TestEncDecPlots: the exported curves follow the steps.
func TestEncDecPlots(t *testing.T) {
	m := buildEncDecModel(t, nil)
	norms := encDecNorms(m)
	if len(norms[0].X) != 4 || len(norms[1].X) != 4 || norms[1].X[0] != 6 {
		t.Errorf("norms: got %v and %v", norms[0].X, norms[1].X)
	}
	if got := norms[0].Y[3]; math.Abs(got-norm2(arrayOf(m.At(4), "h"))) > 1e-12 {
		t.Errorf("‖h_4‖: got %v", got)
	}
	units := encoderUnits(func(sm sim.Model) *models.DecodeTrace { return sm.(*encDecModel).run })(m)
	if len(units) != 6 || units[0].Y[1] != m.run.Encoder[1].Next.H.At(0, 0) {
		t.Errorf("encoder units: got %d series", len(units))
	}
}

// TestEncDecContextAtEveryDecoderStep: c is an input of every decoder step, so the
// symbol c has values there (not "no values at this step"), and h stays h_T once the
// encoder has read x_T; s_t' has its own panel.
func TestEncDecContextAtEveryDecoderStep(t *testing.T) {
	m := buildEncDecModel(t, nil)
	T := m.encSteps()
	c, hT := arrayOf(m.At(T+1), "c"), arrayOf(m.At(T), "h")
	if c == nil || !slices.Equal(c, hT) {
		t.Fatalf("step %d: c = %v, want h_T", T+1, c)
	}
	for s := T + 1; s <= m.Steps(); s++ {
		f := m.At(s)
		if got := arrayOf(f, "c"); !slices.Equal(got, c) {
			t.Errorf("step %d: c = %.3v, want the context at every decoder step", s, got)
		}
		if got := arrayOf(f, "h"); !slices.Equal(got, hT) {
			t.Errorf("step %d: h = %.3v, want h_T", s, got)
		}
		if s > T+1 && arrayOf(f, "s") == nil {
			t.Errorf("step %d: no s_t'", s)
		}
	}
	var sPanel bool
	for _, p := range encDecLesson.Panels {
		sPanel = sPanel || p.Symbol == "s" && slices.Contains(p.Arrays, "s")
	}
	if !sPanel {
		t.Errorf("no panel shows the symbol s")
	}
}

// TestEncDecSeed: the untrained weights come from the seed, the same seed gives the
// same weights, the default seed gives the checkpoint's starting weights
// (TranslatorSpec.New), and the trained weights ignore it.
func TestEncDecSeed(t *testing.T) {
	state := func(changes map[string]string) []float64 {
		m := buildEncDecModel(t, changes)
		return arrayOf(m.At(m.encSteps()), "h")
	}
	untrained := func(seed string) map[string]string {
		return map[string]string{"weights": weightsUntrained, "seed": seed}
	}
	a, a2, b := state(untrained("7")), state(untrained("7")), state(untrained("8"))
	if !slices.Equal(a, a2) {
		t.Errorf("seed 7 twice: the untrained weights differ")
	}
	if slices.Equal(a, b) {
		t.Errorf("seeds 7 and 8: the same untrained weights")
	}
	spec, _ := zoo.FindTranslatorSpec(seq2seqName)
	def := buildEncDecModel(t, untrained(strconv.Itoa(int(spec.Config.Seed))))
	if def.tr.Model != nil {
		t.Errorf("an untrained page keeps its weights: got a model want none (WithoutWeights)")
	}
	if !mat.Equal(untrainedSeq2Seq(def.seed).Model.SrcEmbed.E.Value, spec.New().Model.SrcEmbed.E.Value) {
		t.Errorf("seed %d: the untrained weights are not the checkpoint's starting weights", spec.Config.Seed)
	}
	if got := buildEncDecModel(t, untrained("8")).Static().Meta["weights"]; !strings.Contains(got.(string), "seed 8") {
		t.Errorf("weights fact: got %q, want it to name seed 8", got)
	}
	if !slices.Equal(state(map[string]string{"seed": "7"}), state(map[string]string{"seed": "8"})) {
		t.Errorf("trained weights: the seed changed them")
	}
}

// BenchmarkEncDecStepFrame is one page step from scratch: build the model for the
// default sentence (encode and decode) and compute a decoder step's frame.
func BenchmarkEncDecStepFrame(b *testing.B) {
	v := encDecLesson.Params.Defaults()
	for b.Loop() {
		m, err := buildEncDec(v)
		if err != nil {
			b.Fatal(err)
		}
		m.At(m.Steps() - 1)
	}
}

// TestEncDecLayers (seed 004: the encoder and decoder may be multilayer RNNs): with
// L layers the heatmap's state has one row block per layer at every step; the
// context step shows the encoder's final states, which are the decoder's initial
// states; the diagram's c is the top layer's h_T; and the facts say so.
func TestEncDecLayers(t *testing.T) {
	for L := 1; L <= models.MaxSeq2SeqLayers; L++ {
		m := buildEncDecModel(t, map[string]string{"weights": weightsUntrained, "layers": strconv.Itoa(L)})
		T := m.encSteps()
		state := func(step int) sim.Array {
			for _, a := range m.At(step).Arrays {
				if a.Name == "state" {
					return a
				}
			}
			t.Fatalf("L=%d step %d: no state", L, step)
			return sim.Array{}
		}
		if a := state(1); len(a.Shape) != 2 || a.Shape[0] != L || a.Shape[1] != heatmapUnits {
			t.Fatalf("L=%d: state shape %v want [%d %d]", L, a.Shape, L, heatmapUnits)
		}
		if L == 1 {
			if m.stack != nil {
				t.Errorf("L=1 runs the stacked model")
			}
			continue
		}
		ctx := state(T + 1).Data
		for l := range L {
			hT := rowOf(m.stack.EncoderLayers[l][T-1])
			if !slices.Equal(ctx[l*heatmapUnits:(l+1)*heatmapUnits], hT[:heatmapUnits]) {
				t.Errorf("L=%d: the context step's block %d is not h_T of layer %d", L, l+1, l+1)
			}
			if s0 := m.stack.DecoderLayers[l][0].Prev.H.RawRowView(0); !slices.Equal(s0, hT) {
				t.Errorf("L=%d: decoder layer %d does not start from h_T of encoder layer %d", L, l+1, l+1)
			}
		}
		var c []float64
		for _, a := range m.At(T + 1).Arrays {
			if a.Name == "c" {
				c = a.Data
			}
		}
		if !slices.Equal(c, rowOf(m.stack.EncoderLayers[L-1][T-1])) {
			t.Errorf("L=%d: c is not the top layer's h_T", L)
		}
		dec := state(T + 2).Data
		if !slices.Equal(dec[(L-1)*heatmapUnits:], heatUnits(rowOf(m.stack.DecoderLayers[L-1][0]))) {
			t.Errorf("L=%d: the first decoder step's top block is not s_1 of layer L", L)
		}
		if got, want := m.Static().Meta["handed_over"].(string), strconv.Itoa(L*m.tr.Config.Hidden)+" numbers"; !strings.HasPrefix(got, want) {
			t.Errorf("L=%d: handed over %q want it to start %q", L, got, want)
		}
	}
}

// TestEncDecTrainedDepths (seed 004: the encoder and the decoder can be multilayer
// RNNs): with trained weights every L runs its own bundled model, the L-layer
// checkpoint of zoo.StackedTranslatorSpecs for L > 1, whose greedy translation the
// page shows; the weights parameter applies at every depth; every depth was trained
// with seq2seq-corpus's recipe; and the prose's held-out scores and weight counts are
// those recorded in the checkpoints and counted in the models, measured on the same
// test pairs. The facts list the depths side by side.
func TestEncDecTrainedDepths(t *testing.T) {
	one, _ := zoo.FindTranslatorSpec(seq2seqName)
	prose := strings.Join(encDecLesson.Prose, " ")
	depths := encDecDepths()
	if len(depths) != models.MaxSeq2SeqLayers {
		t.Fatalf("%d bundled depths, want L = 1 … %d", len(depths), models.MaxSeq2SeqLayers)
	}
	for _, spec := range zoo.StackedTranslatorSpecs {
		c := spec.Config
		if spec.Steps != one.Steps || c.Embed != one.Config.Embed || c.Hidden != one.Config.Hidden || c.Attention || spec.Task().Name != one.Task().Name {
			t.Errorf("%s: trained otherwise than %s: %+v %d steps", spec.Name, one.Name, c, spec.Steps)
		}
	}
	if want := fmt.Sprintf("%d minibatches of %d pairs, Adam at \\(\\eta = %g\\)", one.Steps, zoo.TranslatorBatch, zoo.TranslatorLR); !strings.Contains(prose, want) {
		t.Errorf("the prose does not state the recipe %q", want)
	}
	if want := fmt.Sprintf("the %d held-out test pairs", len(one.Task().Test)); !strings.Contains(prose, want) {
		t.Errorf("the prose does not say %q", want)
	}
	for _, d := range depths {
		m := buildEncDecModel(t, map[string]string{"layers": strconv.Itoa(d.L)})
		tr, meta, err := encDecWeights(weightsTrained, 0, d.L)
		if err != nil {
			t.Fatal(err)
		}
		if (d.L > 1) != (m.stack != nil) || (d.L > 1 && tr.Stack.Layers() != d.L) {
			t.Fatalf("L=%d: the page runs the wrong model", d.L)
		}
		st := m.Static().Meta
		if w := st["weights"].(string); !strings.Contains(w, meta["model"]) || st["held_out_bleu"] != meta.Float("test_bleu_greedy") {
			t.Errorf("L=%d: weights %q, held-out BLEU %v, want %s's", d.L, w, st["held_out_bleu"], meta["model"])
		}
		if got, want := st["translation"], tr.Greedy(m.src); got != want {
			t.Errorf("L=%d: translation %q, the model's %q", d.L, got, want)
		}
		count := tr.Params().Count()
		weights := strconv.Itoa(count/1000) + "," + fmt.Sprintf("%03d", count%1000)
		bleu, exact := fmt.Sprintf("%.3f", d.BLEU), fmt.Sprintf("%.1f %%", 100*d.Exact)
		if !strings.Contains(prose, bleu) || !strings.Contains(prose, exact) || !strings.Contains(prose, weights) {
			t.Errorf("L=%d: the prose does not give BLEU %s, exact %s, %s weights", d.L, bleu, exact, weights)
		}
		if !strings.Contains(st["by_depth"].(string), fmt.Sprintf("L = %d: BLEU %s", d.L, bleu)) {
			t.Errorf("L=%d: facts %q", d.L, st["by_depth"])
		}
		t.Logf("L=%d: %s, held-out BLEU %.4f, exact %.4f, %d weights, translates %q", d.L, meta["model"], d.BLEU, d.Exact, count, st["translation"])
	}
	for _, f := range encDecFacts.static {
		if f.key == "by_depth" && !strings.Contains(f.label, fmt.Sprintf("(%d test pairs)", len(one.Task().Test))) {
			t.Errorf("the by-depth fact's label %q does not give the %d test pairs", f.label, len(one.Task().Test))
		}
	}
	for _, p := range encDecLesson.Params {
		if p.Name == "weights" && p.When != nil {
			t.Errorf("the weights parameter applies only when %+v; every depth is trained", p.When)
		}
	}
}
