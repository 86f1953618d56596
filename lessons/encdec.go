package lessons

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// seq2seqName is the bundled GRU encoder-decoder the encoder-decoder and seq2seq
// pages show (TranslatorSpecs).
const seq2seqName = "seq2seq-corpus"

// translationTopK is how many of the decoder's most probable tokens a step lists
// (the topk panel draws five rows).
const translationTopK = 5

// The weights a translation page can start from.
const (
	weightsTrained   = "trained"   // the bundled checkpoint
	weightsUntrained = "untrained" // fresh random weights, as before training
)

// seq2seqWeights is the translator of the encoder-decoder pages' weights parameter:
// for weightsTrained the bundled seq2seq with its checkpoint's metadata, shared and
// read-only (SharedTranslator): the encoder-decoder page never trains, and the
// seq2seq page copies it before it does; otherwise untrainedSeq2Seq(seed), with no
// metadata.
func seq2seqWeights(weights string, seed uint64) (*zoo.Translator, zoo.Meta, error) {
	if weights != weightsTrained {
		return untrainedSeq2Seq(seed), nil, nil
	}
	return zoo.SharedTranslator(seq2seqName)
}

// encDecWeights is seq2seqWeights with L layers a side: for L > 1 and weightsTrained
// the bundled stacked translator (zoo.SharedStackedTranslator, read-only), whose
// Stack is the model; for L > 1 untrained, the one-layer translator of the seed, of
// which the page keeps the vocabularies and the sizes and draws the stack itself.
func encDecWeights(weights string, seed uint64, L int) (*zoo.Translator, zoo.Meta, error) {
	if L > 1 && weights == weightsTrained {
		return zoo.SharedStackedTranslator(L)
	}
	return seq2seqWeights(weights, seed)
}

// untrainedSeq2Seq is the bundled seq2seq's architecture with fresh weights drawn
// from seed, exactly as training from scratch starts (NewTranslator): the same seed
// always gives the same weights, so a page may drop them and draw them again.
func untrainedSeq2Seq(seed uint64) *zoo.Translator {
	spec, _ := zoo.FindTranslatorSpec(seq2seqName)
	cfg := spec.Config
	cfg.Seed = seed
	return zoo.NewTranslator(spec.Task(), cfg)
}

// loadedTranslator is a bundled translator with its checkpoint's metadata.
type loadedTranslator struct {
	tr   *zoo.Translator
	meta zoo.Meta
}

// tokenProb is one row of a top-k list in a frame's meta.
type tokenProb struct {
	Token string  `json:"token"`
	P     float64 `json:"p"`
}

// topKMeta is a decoder step's translationTopK most probable target tokens.
func topKMeta(tr *zoo.Translator, st models.DecodeStep) []tokenProb {
	var out []tokenProb
	for _, tp := range st.TopK(translationTopK) {
		out = append(out, tokenProb{Token: tr.Tgt.Token(tp.ID), P: sig4(tp.Prob)})
	}
	return out
}

// heatmapUnits is how many hidden units the state heatmaps draw: 32 of h = 64 rows
// stay 7 px tall, legible on a projector (all 64 would be 3 px stripes); the symbol
// readouts and the diagram's tooltips list the full vectors.
const heatmapUnits = 32

// heatUnits is the first heatmapUnits entries of a state.
func heatUnits(v []float64) []float64 { return v[:min(len(v), heatmapUnits)] }

// rowOf copies row 0 of a 1×n state.
func rowOf(tr *models.StepTrace) []float64 {
	return append([]float64(nil), tr.Next.H.RawRowView(0)...)
}

// norm2 is ‖v‖₂.
func norm2(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// unknownFlags marks, per source token, whether the vocabulary reads it as <unk>
// (the diagram marks those tokens).
func unknownFlags(ids []int) []bool {
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = id == models.UnkID
	}
	return out
}

// unknownWords lists the tokens of a sentence that the source vocabulary reads as <unk>.
func unknownWords(tokens []string, ids []int) string {
	var unk []string
	for i, id := range ids {
		if id == models.UnkID {
			unk = append(unk, tokens[i])
		}
	}
	return strings.Join(unk, " ")
}

// encDecModel is the encoder-decoder page's sim.Model: one sentence read by the
// encoder (steps 1…T), the context c (step T+1), then the greedy decoder (steps
// T+2…), every step from one models.DecodeTrace.
type encDecModel struct {
	// tr is the shared bundled translator (read-only), or, untrained, the seed's
	// vocabularies only (WithoutWeights): the page uses weights only to build run.
	tr      *zoo.Translator
	weights string
	seed    uint64   // draws the untrained weights
	meta    zoo.Meta // the checkpoint's, nil when untrained
	tokens  []string // x_1 … x_T as typed, normalised
	src     []int
	run     *models.DecodeTrace  // FreeRun: <bos>, then each step's own output; the top layer when layers > 1
	layers  int                  // L, the GRU layers of the encoder and of the decoder
	stack   *models.StackedTrace // every layer's steps when layers > 1, else nil
}

// buildEncDec makes the page's model: the bundled checkpoint, or untrained weights
// drawn from the seed exactly as training from scratch would start (NewTranslator).
func buildEncDec(v sim.Values) (sim.Model, error) {
	m := &encDecModel{weights: v.String("weights"), seed: uint64(v.Int("seed")), layers: v.Int("layers")}
	var err error
	if m.tr, m.meta, err = encDecWeights(m.weights, m.seed, m.layers); err != nil {
		return nil, err
	}
	if m.src, m.tokens, err = m.tr.Source(v.String("input")); err != nil {
		return nil, err
	}
	switch {
	case m.layers > 1:
		if m.stack, err = stackOf(m.tr, m.layers).FreeRun(m.src, m.tr.Task.MaxOutput); err != nil {
			return nil, err
		}
		m.run = m.stack.DecodeTrace
	default:
		if m.run, err = m.tr.Model.FreeRun(m.src, m.tr.Task.MaxOutput); err != nil {
			return nil, err
		}
	}
	if m.weights == weightsUntrained {
		m.tr = m.tr.WithoutWeights() // 1.7 MB a session need not keep: the run is all the page shows
	}
	return m, nil
}

// stackOf is the L-layer model of encDecWeights' translator tr: the bundled one, or for
// untrained weights the bundled architecture with L layers a side, its weights drawn
// from the seed of tr's one-layer model.
func stackOf(tr *zoo.Translator, L int) *models.StackedSeq2Seq {
	if tr.Stack != nil {
		return tr.Stack
	}
	return models.NewStackedSeq2Seq(tr.Model.Config, L)
}

// layerStates is the heatmap's "state" at one step, one row per layer (bottom first),
// each row the first heatmapUnits units: the encoder's step t (1-based), or the
// decoder's step t' when decoder is true. With one layer it is the one state.
func (m *encDecModel) layerStates(step int, decoder bool) []float64 {
	var rows []float64
	if m.stack == nil {
		if decoder {
			return heatUnits(rowOf(m.run.Steps[step-1].Decoder))
		}
		return heatUnits(rowOf(m.run.Encoder[step-1]))
	}
	layers := m.stack.EncoderLayers
	if decoder {
		layers = m.stack.DecoderLayers
	}
	for _, l := range layers {
		rows = append(rows, heatUnits(rowOf(l[step-1]))...)
	}
	return rows
}

// stateMatrix is layerStates as the L × units matrix the heatmap draws.
func (m *encDecModel) stateMatrix(step int, decoder bool) sim.Array {
	v := m.layerStates(step, decoder)
	L := max(m.layers, 1)
	return sim.Matrix("state", L, len(v)/L, v)
}

// encSteps is T, the number of source tokens.
func (m *encDecModel) encSteps() int { return len(m.tokens) }

// Passes: the encoder reads x_1..x_T, one step hands over the context c, then the
// decoder writes y_1..y_T′.
func (m *encDecModel) Passes() []sim.Pass {
	return []sim.Pass{
		{Name: "encoder", Steps: m.encSteps(), Index: "t"},
		{Steps: 1, Stages: []string{"context c"}},
		{Name: "decoder", Steps: len(m.run.Steps), Index: "t′"},
	}
}

func (m *encDecModel) Steps() int { return m.encSteps() + 1 + len(m.run.Steps) }

func (m *encDecModel) outputs() []string {
	out := make([]string, len(m.run.Steps))
	for i, st := range m.run.Steps {
		out[i] = m.tr.Tgt.Token(st.Output)
	}
	return out
}

func (m *encDecModel) Static() sim.Frame {
	columns := append(append([]string(nil), m.tokens...), "c") // one label per step: x_t, c, then t' (not the outputs, which the steps reveal)
	for i := range m.run.Steps {
		columns = append(columns, "t'="+strconv.Itoa(i+1))
	}
	meta := map[string]any{
		"source":            m.tokens,
		"source_unk":        unknownFlags(m.src),
		"tokens":            columns,
		"enc_steps":         m.encSteps(),
		"dec_rows":          []map[string]string{{"label": "greedy", "input": "input", "output": "output", "state": "s", "feedback": "true"}},
		"translation":       m.tr.Words(m.run.Outputs()),
		"hidden":            m.tr.Config.Hidden,
		"embed":             m.tr.Config.Embed,
		"source_vocabulary": m.tr.Src.Len(),
		"target_vocabulary": m.tr.Tgt.Len(),
		"layers":            fmt.Sprintf("L = %d: %d GRU %s in the encoder, as many in the decoder", max(m.layers, 1), max(m.layers, 1), map[bool]string{true: "layer", false: "layers"}[m.layers <= 1]),
		"handed_over":       fmt.Sprintf("%d numbers: L × h = %d × %d initial decoder states, of which c (the top layer's) is also an input at every step", max(m.layers, 1)*m.tr.Config.Hidden, max(m.layers, 1), m.tr.Config.Hidden),
	}
	if u := unknownWords(m.tokens, m.src); u != "" {
		meta["unknown_words"] = u + " (read as <unk>)"
	}
	if m.weights == weightsTrained {
		meta["weights"] = fmt.Sprintf("bundled checkpoint %s, %s training steps", m.meta["model"], m.meta["steps"])
		meta["held_out_bleu"] = m.meta.Float("test_bleu_greedy")
	} else {
		meta["weights"] = fmt.Sprintf("untrained: random initial weights (seed %d)", m.seed)
	}
	meta["by_depth"] = encDecDepthScores()
	return sim.Frame{Meta: meta}
}

// At is step t's frame: the encoder's h_t (t ≤ T), the context c = h_T (t = T+1),
// then the decoder's s_t'. Once the encoder has read x_T its state stays h_T, and c
// is an input of every decoder step, so both are in the context's and every decoder
// step's frame too.
func (m *encDecModel) At(t int) sim.Frame {
	T := m.encSteps()
	if t <= T {
		h := rowOf(m.run.Encoder[t-1])
		return sim.Frame{
			Arrays: []sim.Array{sim.Vector("h", h), m.stateMatrix(t, false)},
			Meta: map[string]any{
				"phase": "encoder", "t": t, "reading": m.tokens[t-1],
				"h_t_norm": round4(norm2(h)),
			},
		}
	}
	hT := rowOf(m.run.Encoder[T-1])
	c := append([]float64(nil), m.run.Steps[0].Context.RawRowView(0)...)
	if t == T+1 {
		return sim.Frame{
			Arrays: []sim.Array{sim.Vector("h", hT), sim.Vector("c", c), m.stateMatrix(T, false)}, // h_T^{(l)} = s_0^{(l)}
			Meta: map[string]any{
				"phase": "context", "context": m.contextFact(),
				"c_norm": round4(norm2(c)),
			},
		}
	}
	tp := t - T - 1
	st := m.run.Steps[tp-1]
	s := rowOf(st.Decoder)
	done := make([]string, 0, tp)
	for _, prev := range m.run.Steps[:tp] {
		done = append(done, m.tr.Tgt.Token(prev.Output))
	}
	return sim.Frame{
		Arrays: []sim.Array{sim.Vector("s", s), m.stateMatrix(tp, true), sim.Vector("h", hT), sim.Vector("c", c)},
		Meta: map[string]any{
			"phase": "decoder", "t'": tp,
			"input":       m.tr.Tgt.Token(st.Input),
			"output":      m.tr.Tgt.Token(st.Output),
			"probability": round4(st.Probs[st.Output]),
			"so_far":      strings.Join(done, " "),
			"topk":        topKMeta(m.tr, st),
		},
	}
}

// depthScore is one bundled depth's held-out greedy scores, as its checkpoint
// records them.
type depthScore struct {
	L                int
	BLEU, Exact      float64
	Parameters, Seed string
}

// encDecDepths reads every bundled depth's recorded held-out scores: L = 1 is
// seq2seq-corpus, L > 1 zoo.StackedTranslatorSpecs, all on the same 398 test pairs.
func encDecDepths() []depthScore {
	var out []depthScore
	for L := 1; L <= models.MaxSeq2SeqLayers; L++ {
		tr, meta, err := encDecWeights(weightsTrained, 0, L)
		if err != nil {
			continue // no bundled model of this depth
		}
		out = append(out, depthScore{L: L, BLEU: meta.Float("test_bleu_greedy"), Exact: meta.Float("test_exact_greedy"),
			Parameters: strconv.Itoa(tr.Params().Count()), Seed: meta["seed"]})
	}
	return out
}

// encDecDepthScores is the facts' line comparing the bundled depths.
func encDecDepthScores() string {
	var parts []string
	for _, d := range encDecDepths() {
		parts = append(parts, fmt.Sprintf("L = %d: BLEU %.3f, exact %.1f %% (%s weights)", d.L, d.BLEU, 100*d.Exact, d.Parameters))
	}
	return strings.Join(parts, "; ")
}

// contextFact says what the decoder starts from.
func (m *encDecModel) contextFact() string {
	T := subscript(m.encSteps())
	if m.stack == nil {
		return fmt.Sprintf("c = h%s, the encoder's last state; the decoder starts from s₀ = c", T)
	}
	return fmt.Sprintf("c = h%s of layer %d (the top), read by the decoder's first layer at every step; decoder layer l starts from encoder layer l's h%s (%d × %d numbers)",
		T, m.layers, T, m.layers, m.tr.Config.Hidden)
}

// encDecNorms is the encoder-decoder plot: ‖h_t‖ over the encoder's steps and ‖s_t'‖
// over the decoder's, on the page's step axis.
func encDecNorms(sm sim.Model) []Series {
	m := sm.(*encDecModel)
	h := Series{Label: `\(\|h_t\|\) (encoder)`}
	s := Series{Label: `\(\|s_{t'}\|\) (decoder)`}
	for t, tr := range m.run.Encoder {
		h.X, h.Y = append(h.X, float64(t+1)), append(h.Y, norm2(rowOf(tr)))
	}
	for i, st := range m.run.Steps {
		s.X, s.Y = append(s.X, float64(m.encSteps()+2+i)), append(s.Y, norm2(rowOf(st.Decoder)))
	}
	return []Series{h, s}
}

// encDecOutputProb is the probability of each greedy output against t'.
func encDecOutputProb(sm sim.Model) []Series {
	m := sm.(*encDecModel)
	p := Series{Label: `\(P(\hat{y}_{t'} \mid \hat{y}_{<t'}, c)\)`}
	for i, st := range m.run.Steps {
		p.X, p.Y = append(p.X, float64(i+1)), append(p.Y, st.Probs[st.Output])
	}
	return []Series{p}
}

var encDecLesson = &Lesson{
	Slug:    "encoder-decoder",
	Short:   "Encoder-decoder",
	Section: "4.6",
	Title:   "The encoder-decoder architecture",
	Summary: "Watch an encoder read a sentence of any length into a fixed-size context c and a decoder write the French translation from it, token by token.",
	Prose: []string{
		`In machine translation both the input and the output are sequences of any length, and their lengths differ: "they are watching ." has four tokens, "ils regardent ." three. The <b>encoder-decoder</b> architecture splits the job in two. The <b>encoder</b> reads the variable-length input and turns it into a state of a fixed shape; the <b>decoder</b> maps that fixed-shape state to a variable-length output. As an interface the architecture is three calls: the encoder maps the input sequence to its outputs (here the states \(\mathbf{h}_1, \dots, \mathbf{h}_T\)); the decoder turns those into its initial state; then the decoder maps one input token and its state to an output distribution and a new state, as often as the output needs. Any pair of networks that implements these calls is an encoder-decoder; here both are GRUs (a GRU seq2seq model, trained on the bundled English–French corpus).`,
		`<b>Encoder, steps \(t = 1 \dots T\)</b>: the GRU reads one embedded token \(\mathbf{x}_t\) per step and updates its hidden state, \(\mathbf{h}_t = f(\mathbf{x}_t, \mathbf{h}_{t-1})\) from \(\mathbf{h}_0 = \mathbf{0}\). The token being read is marked in the diagram and each \(\mathbf{h}_t\) fills one column of the heatmap.`,
		`<b>Context</b>: the encoder turns all its states into the <b>context variable</b> \(\mathbf{c} = q(\mathbf{h}_1, \dots, \mathbf{h}_T)\). This model takes the simplest choice, \(q = \mathbf{h}_T\): whatever the sentence's length, everything the decoder will know about it must fit into these \(h = 64\) numbers.`,
		`<b>Decoder, steps \(t' = 1, 2, \dots\)</b>: the decoder starts from \(\mathbf{s}_0 = \mathbf{c}\) and the token <code>&lt;bos&gt;</code>. At each step it reads its previous output \(y_{t'-1}\) together with \(\mathbf{c}\), updates its state \(\mathbf{s}_{t'}\), and a softmax over the French vocabulary gives \(P(y_{t'} \mid y_1, \dots, y_{t'-1}, \mathbf{c})\). The most probable token (listed with its runners-up) is written and fed back in as the next input, until the decoder writes <code>&lt;eos&gt;</code>. The symbol \(t'\) is deliberately different from the encoder's \(t\): the two sequences have their own lengths.`,
		`<b>More layers.</b> The encoder and the decoder can each be a deep RNN, a stack as in the lesson on deep RNNs. With \(L\) layers, layer \(l\) of the encoder reads the state of layer \(l-1\) at the same step, and the context is the top layer's final state, \(\mathbf{c} = \mathbf{h}_T^{(L)}\). The decoder has as many layers, and each starts from the final state of the encoder layer at its height, \(\mathbf{s}_0^{(l)} = \mathbf{h}_T^{(l)}\) (so both stacks need the same depth and width); \(\mathbf{c}\) is read by its first layer at every step, and its top layer feeds the softmax. What crosses from the encoder to the decoder is then \(L \times h\) numbers instead of \(h\). Set <i>layers</i> to 2 or 3 to run such a model. Each depth has its own bundled model, trained exactly as the one-layer one (3000 minibatches of 32 pairs, Adam at \(\eta = 0.005\), the gradient norm clipped at 1), each from its own seed. Greedy, on the 398 held-out test pairs: \(L = 1\) scores BLEU 0.855 (75.9 % of the outputs exactly the reference) with 108,156 weights, \(L = 2\) 0.866 (78.6 %) with 157,692, \(L = 3\) 0.855 (76.1 %) with 207,228. On a corpus this small depth buys little, and since each depth was trained from a single seed, gaps this small may owe as much to the seed as to the depth. The heatmap shows one block per layer; the diagram and the bars show the top layer.`,
		`Type any English sentence. Words the corpus never saw are read as <code>&lt;unk&gt;</code> and listed under "about this model". Switch to <b>untrained</b> weights to see that the architecture alone translates nothing: the decoder's distribution is nearly flat and its outputs are arbitrary. Those weights are drawn from the <i>seed</i> (beside the step controls); with one layer they are the very weights training from scratch starts from on the next page.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-h}{\mathbf{h}_t} = f(\mathbf{x}_t, \mathbf{h}_{t-1}), \quad \mathbf{h}_0 = \mathbf{0}`, Symbols: []Symbol{{ID: "h", Array: "h"}}},
		{TeX: `\htmlClass{sym-c}{\mathbf{c}} = q(\mathbf{h}_1, \dots, \mathbf{h}_T) = \mathbf{h}_T`, Symbols: []Symbol{{ID: "c", Array: "c"}}},
		{TeX: `\htmlClass{sym-s}{\mathbf{s}_{t'}} = g(y_{t'-1}, \mathbf{c}, \mathbf{s}_{t'-1}), \quad \mathbf{s}_0 = \mathbf{c},\ y_0 = \langle\mathrm{bos}\rangle`, Symbols: []Symbol{{ID: "s", Array: "s"}}},
		{TeX: `P(y_{t'} \mid y_1, \dots, y_{t'-1}, \mathbf{c}) = \mathrm{softmax}(\mathbf{s}_{t'} W + \mathbf{b})`},
		{TeX: `L \text{ layers: } \mathbf{h}_t^{(l)} = f_l(\mathbf{h}_t^{(l-1)}, \mathbf{h}_{t-1}^{(l)}),\ \mathbf{c} = \mathbf{h}_T^{(L)},\ \mathbf{s}_0^{(l)} = \mathbf{h}_T^{(l)},\ \mathbf{s}_{t'} = \mathbf{s}_{t'}^{(L)}`},
	},
	Arrays: []Array{
		{Name: "h", Label: `\(h_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "c", Label: `\(\mathbf{c}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "s", Label: `\(s_{t'}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "state", Label: `\(h_t^{(l)}\), then \(s_{t'}^{(l)}\)`, Axes: []Axis{Layers, Units}, PerStep: true},
	},
	Stage: []string{"diagram"},
	Panels: []Panel{
		{ID: "diagram", Static: []string{"enc_steps", "dec_rows", "source", "tokens", "translation", "source_unk"}, Meta: []string{"input", "output"}, Kind: EncDec, Title: `encoder \(\to\) context \(\mathbf{c}\) \(\to\) decoder`, Arrays: []string{"h", "c", "s"}, Scale: []float64{-1, 1}, Symbol: "c",
			Note: "Each node's strip shows its first units. The context c is the encoder's last state, and it feeds every decoder step. Red tokens are not in the vocabulary: the model reads <unk>."},
		{ID: "states", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state at each step: \(\mathbf{h}_t\), then \(\mathbf{c}\), then \(\mathbf{s}_{t'}\), units 1–32 of 64, one block per layer`, Arrays: []string{"state"}, Scale: []float64{-1, 1}, Symbol: "h",
			Note: "One column per step: the encoder's tokens, the context c (a copy of the last encoder state, every layer's with L > 1: the decoder's initial states), then the decoder's steps t'."},
		{ID: "topk", Meta: []string{"topk", "phase"}, Kind: TopK, Title: `\(P(y_{t'} \mid y_{<t'}, \mathbf{c})\): the five most probable tokens`,
			Note: "The decoder writes the top token and reads it back in at the next step."},
		{ID: "s", Kind: Bars, Title: `decoder state \(\mathbf{s}_{t'}\) at this step, all 64 units`, Arrays: []string{"s"}, Scale: []float64{-1, 1}, Symbol: "s",
			Note: `Empty until the decoder starts; the heatmap's last columns show the first 32 units of each \(s_{t'}\).`},
	},
	Params: sim.Specs{
		{Name: "input", Label: "English sentence", Kind: sim.Text, Default: "They are watching .", MaxLen: 120, MaxLenWhy: translationWhy,
			Help: "Any sentence; words the corpus does not know become <unk>."},
		{Name: "layers", Label: "layers", Symbol: "L", Kind: sim.Int, Default: "1", Min: 1, Max: models.MaxSeq2SeqLayers, Step: 1,
			Help: "GRU layers in the encoder and in the decoder; each depth has its own bundled checkpoint, trained the same way."},
		{Name: "weights", Label: "weights", Kind: sim.Choice, Default: weightsTrained, Choices: []string{weightsTrained, weightsUntrained},
			Help: "trained: the bundled checkpoint of this depth; untrained: random initial weights."},
		seedSpec(seq2seqTrainSeed, "Draws the untrained weights (the trained checkpoint ignores it)."),
	},
	Plots: []Plot{
		{Name: "state-norms", Title: `size of the hidden states \(\|h_t\|\), \(\|s_{t'}\|\)`, XLabel: "page step (encoder, context, decoder)", YLabel: "Euclidean norm", Series: encDecNorms},
		{Name: "output-probability", Title: "probability of each greedy output", XLabel: `decoder step \(t'\)`, YLabel: `\(P(\hat{y}_{t'})\)`, Series: encDecOutputProb},
		{Name: "encoder-states", Title: `encoder hidden state \(h_t\), first units`, XLabel: `encoder step \(t\)`, YLabel: `\(h_{t,j}\)`,
			Series: encoderUnits(func(sm sim.Model) *models.DecodeTrace { return sm.(*encDecModel).run })},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/encoder-decoder.html"), Scripts: []string{seq2seqScript}},
	Build:   buildEncDec,
	Facts:   encDecFacts,
	Largest: sim.Values{"input": longSentence, "weights": weightsUntrained, "seed": "7", "layers": "3"},
	// 665 KB measured on a 20-token sentence with untrained weights and L = 3 (20 decoder steps, every layer's step traces),
	// 84 KB at the defaults: the traces, never the weights.
	SessionBytes: 768 << 10,
}

// encDecFacts labels the page's facts in the lecture's words.
var encDecFacts = factTable{
	static: []fact{
		{key: "translation", label: "translation", keep: true},
		{key: "held_out_bleu", label: "held-out BLEU", measured: true},
		{key: "by_depth", label: "held-out greedy scores by depth (398 test pairs)"},
		{key: "embed", label: "embedding size"},
		{key: "hidden", label: "hidden units h"},
		{key: "source_vocabulary", label: "English vocabulary"},
		{key: "target_vocabulary", label: "French vocabulary"},
		{key: "enc_steps", label: "encoder steps", keep: true},
		{key: "layers", label: "layers L"},
		{key: "handed_over", label: "encoder to decoder"},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "phase", label: "phase", keep: true},
		{key: "t", label: "t"},
		{key: "reading", label: `reading \(x_t\)`},
		{key: "h_t_norm", label: `\(\|h_t\|\)`, measured: true},
		{key: "context", label: "context"},
		{key: "c_norm", label: "‖c‖", measured: true},
		{key: "t'", label: "t′"},
		{key: "input", label: `input \(y_{t'-1}\)`, keep: true},
		{key: "output", label: `output \(\hat{y}_{t'}\)`, keep: true},
		{key: "probability", label: `\(p(\hat{y}_{t'})\)`, measured: true},
		{key: "so_far", label: "translation so far"},
	},
}
