package lessons

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// The bundled models the transformer page reads, by task: the Transformer trained
// with the causal mask, the GRU with attention of the attention page on the same task
// and split, and (dates only) the Transformer trained without the mask.
var (
	transformerMasked   = map[string]string{"dates": "transformer-dates", "corpus": "transformer-corpus"}
	transformerGRU      = map[string]string{"dates": "attention-dates", "corpus": "attention-corpus"}
	transformerUnmasked = "transformer-dates-unmasked"
)

// transformerEpoch is the seconds of one training epoch on the dates (168 minibatches
// of 32, one core) per model, measured in one run of
// go test ./zoo -run '^$' -bench TrainEpoch -benchtime 1x (BenchmarkTrainEpoch) on
// 2026-11-27, on the 2-core machine the models were trained on while other work
// shared it (load average 11–14): what the page reports, not a number the model
// computes.
var transformerEpoch = struct{ transformer, attention, seq2seq float64 }{16.0, 17.5, 1.7}

// transformerPage is what every transformer page shares: the three bundled models
// and their recorded held-out scores (read-only).
type transformerPage struct {
	masked   map[string]*zoo.TransformerTranslator // by task
	unmasked *zoo.TransformerTranslator            // dates
	gru      map[string]*zoo.Translator            // by task
	scores   map[string]zoo.Score                  // by model name, the held-out greedy scores
	teacher  zoo.TeacherForced                     // the unmasked model's held-out teacher-forced scores
}

var transformerShared = sync.OnceValues(func() (*transformerPage, error) {
	p := &transformerPage{scores: map[string]zoo.Score{}, masked: map[string]*zoo.TransformerTranslator{}, gru: map[string]*zoo.Translator{}}
	for task, name := range transformerMasked {
		tr, meta, err := zoo.SharedTransformer(name)
		if err != nil {
			return nil, err
		}
		p.masked[task] = tr
		p.scores[name] = zoo.Score{BLEU: meta.Float("test_bleu_greedy"), Exact: meta.Float("test_exact_greedy")}
		g, gm, err := zoo.SharedTranslator(transformerGRU[task])
		if err != nil {
			return nil, err
		}
		p.gru[task] = g
		p.scores[transformerGRU[task]] = zoo.Score{BLEU: zoo.Meta(gm).Float("test_bleu_greedy"), Exact: zoo.Meta(gm).Float("test_exact_greedy")}
	}
	tr, meta, err := zoo.SharedTransformer(transformerUnmasked)
	if err != nil {
		return nil, err
	}
	p.unmasked = tr
	p.scores[transformerUnmasked] = zoo.Score{BLEU: meta.Float("test_bleu_greedy"), Exact: meta.Float("test_exact_greedy")}
	p.teacher = zoo.TeacherForced{Tokens: meta.Float("test_teacher_tokens"), Exact: meta.Float("test_teacher_exact")}
	return p, nil
})

// transformerModel is the transformer page's sim.Model: one typed date decoded
// greedily one output at a time (step t' is output ŷ_t'), with the chosen layer's and
// head's weights of the three attentions, the decoder fed the correct answer (teacher
// forcing), the positional encodings and the comparison with the GRU.
type transformerModel struct {
	page          *transformerPage
	task          string                     // dates or corpus
	tr            *zoo.TransformerTranslator // the masked or the unmasked model
	model         *models.Transformer        // tr.Model, or a copy of it without 1/√d_k
	src           attentionSource
	layer, head   int // 0-based
	masked        bool
	scaled        bool
	encSelf       *mat.Dense // the shown head's encoder self-attention
	steps         []models.TransformerStep
	outputs       []string   // ŷ_1 … ŷ_T', <eos> included
	inputs        []string   // the decoder's inputs <bos>, ŷ_1, …, ŷ_{T'−1}
	answer        []string   // the reference's tokens and <eos>; nil for a sentence the corpus lacks
	teacherIn     []string   // <bos> and the reference's tokens (or the model's own output)
	teacherSelf   *mat.Dense // the shown head's decoder self-attention fed the answer
	teacherRight  int        // positions whose argmax is the reference's next token under teacher forcing
	peek          float64    // fed the answer, the largest mean weight of a head on the next position (i, i+1)
	teacherOut    string     // those argmaxes, as a date
	gruOut        string
	peak, peakAlt float64 // mean largest weight with the page's scaling and with the other
	ent, entAlt   float64 // mean entropy of the weights, likewise
	altOut        string  // the free decoding with the other scaling
}

func buildTransformer(v sim.Values) (sim.Model, error) {
	page, err := transformerShared()
	if err != nil {
		return nil, err
	}
	task := v.String("task")
	m := &transformerModel{page: page, task: task, layer: v.Int("layer") - 1, head: v.Int("head") - 1, masked: v.Bool("mask") || task != "dates", scaled: v.Bool("scale")}
	m.tr = page.masked[task]
	if !m.masked {
		m.tr = page.unmasked
	}
	text := v.String("date")
	if task == "corpus" {
		text = v.String("sentence")
	}
	reader := &zoo.Translator{Task: m.tr.Task, Src: m.tr.Src, Tgt: m.tr.Tgt}
	if m.src, err = readSource(reader, text); err != nil {
		return nil, err
	}
	m.model = withScaling(m.tr.Model, m.scaled)
	enc, steps, err := m.model.FreeRun(m.src.ids, m.tr.Task.MaxOutput)
	if err != nil {
		return nil, err // readSource checked the ids: a bug
	}
	m.steps = steps
	m.encSelf = enc.Layers[m.layer].Self.Weights[m.head]
	m.inputs = []string{m.tr.Tgt.Token(models.BosID)}
	for i, s := range m.steps {
		m.outputs = append(m.outputs, m.tr.Tgt.Token(s.Output))
		if i < len(m.steps)-1 {
			m.inputs = append(m.inputs, m.tr.Tgt.Token(s.Output))
		}
	}
	labels := stepOutputs(m.steps) // no reference: the decoder is fed its own translation
	if len(m.src.refs) > 0 {
		m.answer = append(m.tr.Task.Tokenize(m.src.refs[0]), m.tr.Tgt.Token(models.EosID))
		labels = m.tr.Tgt.IDs(m.answer)
		labels[len(labels)-1] = models.EosID
	}
	teacherIDs := models.TeacherInput(labels)
	m.teacherIn = m.tr.Tgt.Tokens(teacherIDs)
	teacher, err := m.model.Decode(enc, teacherIDs)
	if err != nil {
		return nil, err
	}
	m.teacherSelf = teacher.Layers[m.layer].Self.Weights[m.head]
	m.peek = nextPositionWeight(teacher)
	var guess []int
	for t, y := range labels {
		g := models.Argmax(teacher.Logits.RawRowView(t))
		guess = append(guess, g)
		if g == y {
			m.teacherRight++
		}
	}
	m.teacherOut = m.tr.Words(guess)
	m.gruOut = page.gru[task].Greedy(m.src.ids)
	alt := withScaling(m.tr.Model, !m.scaled)
	altEnc, altSteps, err := alt.FreeRun(m.src.ids, m.tr.Task.MaxOutput)
	if err != nil {
		return nil, err
	}
	m.altOut = m.tr.Words(stepOutputs(altSteps))
	m.peak, m.ent = saturation(enc, teacher)
	altTeacher, err := alt.Decode(altEnc, teacherIDs)
	if err != nil {
		return nil, err
	}
	m.peakAlt, m.entAlt = saturation(altEnc, altTeacher)
	return m, nil
}

// nextPositionWeight is, over the decoder's self-attention heads fed the answer,
// the largest mean weight a query i puts on key i+1, the position that holds the
// character query i must predict: 0 under the causal mask, which forbids it.
func nextPositionWeight(dec *models.DecoderTrace) float64 {
	var best float64
	for _, l := range dec.Layers {
		for _, w := range l.Self.Weights {
			n, _ := w.Dims()
			if n < 2 {
				continue
			}
			var next float64
			for i := range n - 1 {
				next += w.At(i, i+1)
			}
			best = max(best, next/float64(n-1))
		}
	}
	return best
}

// withScaling is t itself when its scaling is the one asked for, else a copy that
// shares its weights (read-only) with 1/√d_k switched on or off.
func withScaling(t *models.Transformer, scaled bool) *models.Transformer {
	if t.Unscaled == !scaled {
		return t
	}
	c := *t
	c.Unscaled = !scaled
	return &c
}

func stepOutputs(steps []models.TransformerStep) []int {
	out := make([]int, len(steps))
	for i, s := range steps {
		out[i] = s.Output
	}
	return out
}

// saturation is the mean, over every row of every head of every attention (encoder
// self-attention, and the decoder's two fed the reference), of the row's largest
// weight and of its entropy −Σ_j A_ij ln A_ij: 1 and 0 when the softmax is one-hot.
func saturation(enc *models.EncoderTrace, dec *models.DecoderTrace) (peak, entropy float64) {
	var all []*mat.Dense
	for _, l := range enc.Layers {
		all = append(all, l.Self.Weights...)
	}
	for _, l := range dec.Layers {
		all = append(all, l.Self.Weights...)
		all = append(all, l.Cross.Weights...)
	}
	n := 0
	for _, w := range all {
		rows, _ := w.Dims()
		for i := range rows {
			row := w.RawRowView(i)
			peak += slices.Max(row)
			for _, a := range row {
				if a > 0 {
					entropy -= a * math.Log(a)
				}
			}
			n++
		}
	}
	return peak / float64(n), entropy / float64(n)
}

// Fork is a copy: nothing of the page trains, and the shared models are read only.
func (m *transformerModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

func (m *transformerModel) Steps() int { return len(m.steps) }

// headMatrix is the weights of the page's head as a flat row-major array.
func headMatrix(w *mat.Dense) (int, int, []float64) {
	r, c := w.Dims()
	return r, c, slices.Clone(w.RawMatrix().Data)
}

// causalAllowed is 1 where query i may see key j in a decoder self-attention of n
// positions: j ≤ i with the causal mask, everywhere without it.
func causalAllowed(n int, masked bool) []float64 {
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if !masked || j <= i {
				out[i*n+j] = 1
			}
		}
	}
	return out
}

func (m *transformerModel) facts() map[string]any {
	p := m.page
	task := m.tr.Task
	mine := p.scores[transformerMasked[m.task]]
	gru := p.scores[transformerGRU[m.task]]
	un := p.scores[transformerUnmasked]
	out := m.tr.Words(stepOutputs(m.steps))
	meta := map[string]any{
		"source_x":              task.Join(m.src.tokens),
		"transformer_output":    out,
		"gru_output":            m.gruOut,
		"next_position_weight":  fmt.Sprintf("%.3f (the largest mean weight of a decoder head on position i + 1, fed the answer)", m.peek),
		"shown":                 fmt.Sprintf("layer %d of %d, head %d of %d (dₖ = %d)", m.layer+1, m.model.Config.Layers, m.head+1, m.model.Config.Heads, m.model.Config.D/m.model.Config.Heads),
		"held_out_transformer":  fmt.Sprintf("exact %.1f %%, BLEU %.3f", 100*mine.Exact, mine.BLEU),
		"held_out_gru":          fmt.Sprintf("exact %.1f %%, BLEU %.3f", 100*gru.Exact, gru.BLEU),
		"sequential_steps":      fmt.Sprintf("GRU: T + T′ = %d + %d = %d cell steps one after another; Transformer: 2N = %d layers, each over every position at once", len(m.src.ids), len(m.steps), len(m.src.ids)+len(m.steps), 2*m.model.Config.Layers),
		"epoch_time":            epochText(),
		"mask_state":            maskState(m.masked),
		"saturation":            m.saturationText(),
		"other_scaling_output":  m.altOut,
		"positional_wavelength": fmt.Sprintf("2π ≈ 6.3 positions (dimensions 1, 2) to 2π·10000^(%d/%d) ≈ %.0f (dimensions %d, %d)", m.model.Config.D-2, m.model.Config.D, 2*math.Pi*math.Pow(10000, float64(m.model.Config.D-2)/float64(m.model.Config.D)), m.model.Config.D-1, m.model.Config.D),
	}
	for k, v := range m.src.notes {
		meta[k] = v
	}
	if len(m.src.refs) > 0 {
		meta["reference"] = strings.Join(m.src.refs, " | ")
		meta["transformer_correct"] = slices.Contains(m.src.refs, out)
		meta["gru_correct"] = slices.Contains(m.src.refs, m.gruOut)
		meta["other_scaling_output"] = fmt.Sprintf("%s (%s)", m.altOut, rightWord(slices.Contains(m.src.refs, m.altOut)))
		meta["teacher_forced"] = fmt.Sprintf("%s: %d of %d outputs right", m.teacherOut, m.teacherRight, len(m.answer))
	} else {
		meta["teacher_forced"] = "no reference for this sentence: the decoder is fed its own translation"
	}
	if m.task == "dates" {
		meta["held_out_unmasked"] = fmt.Sprintf("fed the answer: %.1f %% of outputs right; writing its own: exact %.1f %%", 100*p.teacher.Tokens, 100*un.Exact)
	} else {
		meta["mask_state"] = "on (the corpus has no Transformer trained without it)"
	}
	return meta
}

// round3 is x to 3 decimals.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func rightWord(ok bool) string {
	if ok {
		return "right"
	}
	return "wrong"
}

func maskState(masked bool) string {
	if masked {
		return "on: the model trained and decodes with M (−∞ after each position)"
	}
	return "off: a model trained without M, so every position also saw the answer's later characters"
}

func (m *transformerModel) saturationText() string {
	with, without := m.peak, m.peakAlt
	ew, ewo := m.ent, m.entAlt
	if !m.scaled {
		with, without, ew, ewo = without, with, ewo, ew
	}
	return fmt.Sprintf("largest weight %.3f with 1/√dₖ, %.3f without; entropy %.3f nats with, %.3f without", with, without, ew, ewo)
}

// epochText is the measured time per epoch.
func epochText() string {
	e := transformerEpoch
	return fmt.Sprintf("Transformer %.1f s, GRU with attention %.1f s, GRU without attention %.1f s (one epoch of the dates, one core, measured once)", e.transformer, e.attention, e.seq2seq)
}

func (m *transformerModel) Static() sim.Frame {
	meta := m.facts()
	if m.answer != nil {
		meta["answers"] = m.answer
	}
	meta["vocab"] = m.tr.Tgt.List()
	meta["labels"] = []string{"exact match", "BLEU"}
	d := m.model.Config.D
	pePositions := len(m.src.ids)
	peRows := make([]string, pePositions)
	for i := range peRows {
		peRows[i] = strconv.Itoa(i)
	}
	meta["axes"] = map[string]any{
		"enc_self":     map[string]any{"rows": m.src.tokens, "cols": m.src.tokens, "row_title": "query xᵢ", "col_title": "key xⱼ", "value": "Aᵢⱼ"},
		"dec_self":     map[string]any{"rows": m.outputs, "cols": m.inputs, "row_title": "output ŷₜ′", "col_title": "decoder input", "value": "Aₜ′ⱼ", "mask": "dec_allowed"},
		"cross":        map[string]any{"rows": m.outputs, "cols": m.src.tokens, "row_title": "output ŷₜ′", "col_title": "source xⱼ", "value": "Aₜ′ⱼ"},
		"teacher_self": map[string]any{"rows": m.teacherIn, "cols": m.teacherIn, "row_title": "input (the answer)", "col_title": "input", "value": "Aᵢⱼ", "mask": "teacher_allowed"},
		"PE":           map[string]any{"rows": peRows, "cols": unitNames(d), "row_title": "position pos", "col_title": "dimension", "value": "PE"},
	}
	r, c, encSelf := headMatrix(m.encSelf)
	tr, tc, teacherSelf := headMatrix(m.teacherSelf)
	pe := models.PositionalEncoding(pePositions, d)
	mine, gru, un := m.page.scores[transformerMasked[m.task]], m.page.scores[transformerGRU[m.task]], m.page.scores[transformerUnmasked]
	n := len(m.inputs)
	f := sim.Frame{
		Arrays: []sim.Array{
			sim.Matrix("enc_self", r, c, encSelf),
			sim.Matrix("teacher_self", tr, tc, teacherSelf),
			sim.Matrix("teacher_allowed", tr, tc, causalAllowed(tr, m.masked)),
			sim.Matrix("dec_allowed", n, n, causalAllowed(n, m.masked)),
			sim.Matrix("PE", pePositions, d, pe.RawMatrix().Data),
			// 3 decimals: three bars' labels fit side by side on a phone
			sim.Vector("Transformer", []float64{round3(mine.Exact), round3(mine.BLEU)}),
			sim.Vector("GRU with attention", []float64{round3(gru.Exact), round3(gru.BLEU)}),
			// the dates' model, which only the dates' bars (panel scores) show
			sim.Vector("Transformer without mask", []float64{round3(un.Exact), round3(un.BLEU)}),
		},
		Meta: meta,
	}
	return f
}

func (m *transformerModel) At(t int) sim.Frame {
	s := m.steps[t-1]
	out := m.outputs[t-1]
	self := make([]float64, len(m.inputs))
	copy(self, s.Self[m.layer][m.head])
	cross := slices.Clone(s.Cross[m.layer][m.head])
	j := models.Argmax(cross)
	f := sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("dec_self", self),
			sim.Vector("cross", cross),
			sim.Vector("P", slices.Clone(s.Probs)),
		},
		Meta: map[string]any{
			"pred":     out,
			"looks_at": fmt.Sprintf("x%s = %q (A = %.3f)", subscript(j+1), m.src.tokens[j], cross[j]),
			"p_max":    round4(s.Probs[s.Output]),
		},
	}
	if m.answer != nil {
		f.Meta["correct"] = t <= len(m.answer) && m.answer[t-1] == out
	}
	return f
}

// positionalGrid is the positional encodings of the page's source length.
func positionalGrid(sm sim.Model) Grid {
	m := sm.(*transformerModel)
	n, d := len(m.src.ids), m.model.Config.D
	pe := models.PositionalEncoding(n, d)
	g := Grid{Cols: unitNames(d), Lo: -1, Hi: 1}
	for i := range n {
		g.Rows = append(g.Rows, strconv.Itoa(i))
		g.Values = append(g.Values, slices.Clone(pe.RawRowView(i)))
	}
	return g
}

// crossGrid is the encoder-decoder attention of the page's layer and head over the
// whole decoding.
func crossGrid(sm sim.Model) Grid {
	m := sm.(*transformerModel)
	g := Grid{Rows: m.outputs, Cols: m.src.tokens, Lo: 0, Hi: 1}
	for _, s := range m.steps {
		g.Values = append(g.Values, slices.Clone(s.Cross[m.layer][m.head]))
	}
	return g
}

// teacherGrid is the decoder self-attention fed the answer, masked cells 0.
func teacherGrid(sm sim.Model) Grid {
	m := sm.(*transformerModel)
	w := m.teacherSelf
	g := Grid{Rows: m.teacherIn, Cols: m.teacherIn, Lo: 0, Hi: 1}
	r, _ := w.Dims()
	for i := range r {
		g.Values = append(g.Values, slices.Clone(w.RawRowView(i)))
	}
	return g
}

var transformerLesson = &Lesson{
	Slug:    "transformer",
	Short:   "Transformer",
	Section: "002", // lecture 002 (LSE ST449 lecture 5), "Transformer architecture" and "Attention module"
	Title:   "The Transformer: attention without recurrence",
	Summary: "A small Transformer on the attention page's dates: every head's encoder self-attention, masked decoder self-attention and encoder-decoder attention, the positional encodings, decoding one character at a time, and what goes wrong without the mask or without the 1/√dₖ.",
	Prose: []string{
		`The attention page's GRU reads the date one character after another: \(h_j\) needs \(h_{j-1}\), so a sentence of \(T\) tokens is \(T\) steps that cannot run side by side. The <b>Transformer</b> of lecture 002 (Vaswani et al., 2017) keeps the encoder-decoder shape and the attention, and drops the recurrence. Every layer looks at all positions at once with <b>scaled dot-product attention</b>: a position's query \(q\) is compared with every key \(k_j\) by the dot product, the scores are divided by \(\sqrt{d_k}\) and turned into weights by a softmax, and the output is the weighted mean of the values \(v_j\). The queries, keys and values are the layer's input multiplied by learned matrices, and there are \(h\) <b>heads</b>, each with its own \(W_i^Q, W_i^K, W_i^V\), whose outputs are concatenated and mixed by \(W^O\). Between attentions sits a small <b>feed-forward network</b> applied to each position on its own; around each block a <b>residual connection</b> and <b>layer normalisation</b>, \(Z = \mathrm{LN}(X + \mathrm{Sublayer}(X))\), keep the signal's scale steady through the stack.`,
		`This model is small: \(N = 2\) layers in the encoder and in the decoder, \(h = 4\) heads, \(d = 32\) (so \(d_k = d_v = 8\)) and \(d_{ff} = 64\), trained on the attention page's two tasks with the same splits as its GRUs: dates, character by character, and the English–French corpus, word by word. The three matrices side by side are the three kinds of attention, for the layer and head you choose. In the <b>encoder self-attention</b> each character of the source looks at every character of the source. In the <b>masked decoder self-attention</b> each output position looks at the decoder's inputs so far, \(\langle bos\rangle, \hat{y}_1, \dots\); the hatched cells are the ones the mask forbids. In the <b>encoder-decoder attention</b> the queries come from the decoder and the keys and values from the encoder's output (in the equations \(X\) is an encoder layer's input, \(Y\) a decoder layer's, \(Z\) what the decoder's self-attention made of \(Y\), and \(H\) the encoder's output): it plays the part of Bahdanau's \(\alpha_{t'j}\), and, as there, the outputs find their source: on “22 November 2026” every head of layer 2 sends the year's last two digits to “26”, the month's digits into “november” and the day's to “22” (the first two digits, “20”, are not written in the source at all).`,
		`Attention by itself does not know the order of its inputs: permute the keys and values together and every output stays the same. The model learns order from the <b>positional encoding</b> added to each embedding, sinusoids whose wavelengths grow geometrically along the dimensions, from about 6 positions to tens of thousands. The heatmap shows it for the positions of your date: the first dimensions change fast from one position to the next, the last ones hardly at all, so each position gets its own pattern and nearby positions similar ones.`,
		`Step through the decoding. Each step runs the decoder over everything written so far and adds one output \(\hat{y}_{t'}\), one row to the decoder's self-attention and one to the encoder-decoder attention. Training does not need these steps: with the answer known, the decoder reads \(\langle bos\rangle, y_1, \dots, y_{T'-1}\) and predicts every position in one pass, which is the parallel training the lecture promises. That only works because of the <b>mask</b>: \(-\infty\) added to the scores of every position after the query's own makes their weight exactly 0, so position \(t'\) cannot read \(y_{t'}\) from its neighbour. The matrix below the three is that training pass on your input, the decoder fed the correct answer.`,
		`Switch the <b>mask</b> off and the page loads a second Transformer, trained the same way but without \(M\). Fed the answer it is almost always right (the facts give its held-out share): its self-attention puts the weight on the next position, where the answer sits, as the matrix fed the answer shows. It has learned to copy, not to translate. When it must write the date itself, the next position does not exist yet, and it fails on almost every date. Switch off the <b>division by \(\sqrt{d_k}\)</b> instead and the same trained model runs with scores \(\sqrt{8} \approx 2.8\) times larger: the softmax sharpens towards one-hot (the facts give the mean largest weight and the entropy of the weights both ways), the model's activations leave the range it was trained in, and its output may change. Dot products of random vectors grow like \(\sqrt{d_k}\), and the division is what the lecture calls controlling the skew of the softmax.`,
		`The bars compare the models on the task's held-out split, the attention page's (600 dates, or 398 sentence pairs), greedy decoding: exact match and corpus BLEU (on characters for the dates, on words for the corpus). The facts add how many steps must run one after another, and how long one epoch of training took each model, measured once on the 2-core machine that trained them. The GRU's chain grows with the length of the date and the Transformer's is fixed by its depth: that is what “allows for parallelization” means, since hardware with many cores (a GPU) runs all positions of a layer at once. Here it does not show as time: every model trains on one core, the Transformer one sentence at a time, and an epoch took about as long as the GRU with attention (whose attention is recomputed at every step) and ten times longer than the GRU without attention, each of whose steps is one matrix product for the whole minibatch. Choose the task and type a date in one of the trained forms, between 1969 and 2068, or an English sentence in the corpus's vocabulary; a sentence the corpus lacks has no reference, and the matrix below the three then shows the decoder fed its own translation. The mask switch applies to the dates only: there is no corpus Transformer trained without the mask. On the corpus the Transformer scores a little above the GRU with attention, on the dates a little below it (the bars give the numbers); both are small models trained for a few minutes, so the gap says little about the two architectures.`,
	},
	Equations: []Equation{
		{TeX: `\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\Big(\frac{Q K^\top}{\sqrt{d_k}} + M\Big) V`},
		{TeX: `\mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \dots, \mathrm{head}_h)\, W^O`},
		{TeX: `\mathrm{head}_i = \mathrm{Attention}(Q W_i^Q, K W_i^K, V W_i^V)`},
		{TeX: `\htmlClass{sym-Aenc}{A^{\mathrm{enc}}_i} = \mathrm{softmax}\big(X W_i^Q (X W_i^K)^\top / \sqrt{d_k}\big)`, Symbols: []Symbol{{ID: "Aenc", Array: "enc_self"}}},
		{TeX: `\htmlClass{sym-Adec}{A^{\mathrm{dec}}_i} = \mathrm{softmax}\big(Y W_i^Q (Y W_i^K)^\top / \sqrt{d_k} + M\big)`, Symbols: []Symbol{{ID: "Adec", Array: "dec_self"}}},
		{TeX: `M_{t'j} = 0 \text{ for } j \le t', \quad M_{t'j} = -\infty \text{ for } j > t'`},
		{TeX: `\htmlClass{sym-Across}{A^{\mathrm{cross}}_i} = \mathrm{softmax}\big(Z W_i^Q (H W_i^K)^\top / \sqrt{d_k}\big)`, Symbols: []Symbol{{ID: "Across", Array: "cross"}}},
		{TeX: `\htmlClass{sym-PE}{PE_{pos,\,2i},\ PE_{pos,\,2i+1}} = \sin, \cos\big(pos / 10000^{2i/d}\big)`, Symbols: []Symbol{{ID: "PE", Array: "PE"}}},
		{TeX: `\mathrm{FFN}(x) = \mathrm{ReLU}(x W^{(1)} + b^{(1)})\, W^{(2)} + b^{(2)}`},
		{TeX: `\htmlClass{sym-P}{P(y_{t'} \mid y_{<t'}, x)} = \mathrm{softmax}(Y_{t'} W + b)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
	},
	Arrays: []Array{
		{Name: "enc_self", Label: `\(A^{\mathrm{enc}}_i\)`, Axes: []Axis{Positions, Positions}, Scale: []float64{0, 1}},
		{Name: "dec_self", Label: `\(A^{\mathrm{dec}}_i\)`, Axes: []Axis{Positions}, PerStep: true, Scale: []float64{0, 1}},
		{Name: "dec_allowed", Label: "allowed pairs", Axes: []Axis{Positions, Positions}},
		{Name: "cross", Label: `\(A^{\mathrm{cross}}_i\)`, Axes: []Axis{Positions}, PerStep: true, Scale: []float64{0, 1}},
		{Name: "teacher_self", Label: `\(A^{\mathrm{dec}}_i\) fed the answer`, Axes: []Axis{Positions, Positions}, Scale: []float64{0, 1}},
		{Name: "teacher_allowed", Label: "allowed pairs", Axes: []Axis{Positions, Positions}},
		{Name: "PE", Label: `\(PE\)`, Axes: []Axis{Positions, Units}, Scale: []float64{-1, 1}},
		{Name: "P", Label: `\(P(y_{t'})\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "Transformer", Label: "Transformer", Axes: []Axis{Ranks}, Labels: "labels"},
		{Name: "GRU with attention", Label: "GRU with attention", Axes: []Axis{Ranks}, Labels: "labels"},
		{Name: "Transformer without mask", Label: "Transformer without mask", Axes: []Axis{Ranks}, Labels: "labels"},
	},
	Stage: []string{"dec-self", "cross"},
	Panels: []Panel{
		{ID: "decoder", Static: []string{"answers"}, Meta: []string{"pred", "correct"}, Kind: Tokens, Title: `decoder output \(\hat{y}_{t'}\), fed back as the next input`,
			Note: "Green: the output matches the correct answer; orange: it does not (when the page knows the answer)."},
		{ID: "enc-self", Static: []string{"axes"}, Kind: Alignment, Title: `encoder self-attention \(A^{\mathrm{enc}}_i\)`, Arrays: []string{"enc_self"}, Scale: []float64{0, 1}, Symbol: "Aenc",
			Note: "Every source token (a character of a date, a word of a sentence) looks at every source token; each row sums to 1."},
		{ID: "dec-self", Static: []string{"axes"}, Kind: Alignment, Title: `masked decoder self-attention \(A^{\mathrm{dec}}_i\)`, Arrays: []string{"dec_self", "dec_allowed"}, Scale: []float64{0, 1}, Symbol: "Adec",
			Note: "A row per output; hatched cells are masked (−∞ before the softmax, weight exactly 0)."},
		{ID: "cross", Static: []string{"axes"}, Kind: Alignment, Title: `encoder-decoder attention \(A^{\mathrm{cross}}_i\)`, Arrays: []string{"cross"}, Scale: []float64{0, 1}, Symbol: "Across",
			Note: "Queries from the decoder, keys and values from the encoder: where each output reads the source."},
		{ID: "teacher", Static: []string{"axes"}, Kind: Alignment, Title: `decoder self-attention fed the correct answer (training's one pass)`, Arrays: []string{"teacher_self", "teacher_allowed"}, Scale: []float64{0, 1}, Symbol: "Adec",
			Note: "Without the mask, weight on the cell right of the diagonal is the model reading the character it must predict."},
		{ID: "softmax", Kind: TopK, Title: `the decoder's softmax \(P(y_{t'} \mid y_{<t'}, x)\), top 5`, Arrays: []string{"P"}, Symbol: "P"},
		{ID: "pe", Static: []string{"axes"}, Kind: Alignment, Title: `positional encoding \(PE\): rows = positions of the source, columns = the d = 32 dimensions`, Arrays: []string{"PE"}, Scale: []float64{-1, 1}, Symbol: "PE",
			Note: "Added to each embedding. Fast sinusoids on the left, slow ones on the right."},
		{ID: "scores", Static: []string{"labels"}, Kind: Bars, Title: `held-out dates (600): exact match and BLEU`, Arrays: []string{"Transformer", "GRU with attention", "Transformer without mask"}, Scale: []float64{0, 1},
			When: &sim.Applies{Param: "task", Values: []string{"dates"}, Why: "the dates' scores"},
			Note: "Greedy decoding of the attention page's test split; recorded with the checkpoints and checked by go test ./zoo."},
		{ID: "scores-corpus", Static: []string{"labels"}, Kind: Bars, Title: `held-out corpus pairs (398): exact match and BLEU`, Arrays: []string{"Transformer", "GRU with attention"}, Scale: []float64{0, 1},
			When: &sim.Applies{Param: "task", Values: []string{"corpus"}, Why: "the corpus's scores"},
			Note: "Greedy decoding of the attention page's test split, corpus BLEU (N = 4) on words; recorded with the checkpoints and checked by go test ./zoo."},
	},
	Params: append(translationSpecs(),
		sim.ParamSpec{Name: "layer", Label: "layer", Kind: sim.Int, Default: "1", Min: 1, Max: 2, Help: "Which of the N = 2 encoder and decoder layers the three matrices show."},
		sim.ParamSpec{Name: "head", Label: "head", Kind: sim.Int, Default: "1", Min: 1, Max: 4, Help: "Which of the h = 4 heads of that layer."},
		sim.ParamSpec{Name: "mask", Label: "causal mask", Kind: sim.Bool, Default: "true",
			When: &sim.Applies{Param: "task", Values: []string{"dates"}, Why: "only the dates have a Transformer trained without the mask"},
			Help: "Off: the Transformer trained without the mask, whose decoder saw the whole answer."},
		sim.ParamSpec{Name: "scale", Label: "divide by √dₖ", Kind: sim.Bool, Default: "true",
			Help: "Off: the same trained model with scores QKᵀ instead of QKᵀ/√dₖ."},
	),
	Plots: []Plot{
		{Name: "positional-encoding", Title: `positional encoding \(PE\)`, XLabel: "dimension", YLabel: "position", Grid: positionalGrid},
		{Name: "encoder-decoder-attention", Title: `encoder-decoder attention \(A^{\mathrm{cross}}_i\)`, XLabel: `source character \(x_j\)`, YLabel: `output \(\hat{y}_{t'}\)`, Grid: crossGrid},
		{Name: "teacher-self-attention", Title: `decoder self-attention fed the answer`, XLabel: "input", YLabel: "input (query)", Grid: teacherGrid},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/transformer.html"), Scripts: []string{transformerScript, seq2seqScript},
		Companions: []Companion{
			{"gru-attention", pyTorchHTML("notes/transformer-gru-attention.html")},
		}},
	Build:        buildTransformer,
	Facts:        transformerFacts,
	Largest:      sim.Values{"task": "corpus", "sentence": longSentence},
	SessionBytes: 160 << 10, // 74 KB measured at the defaults stepped to the end, 99 KB at the largest date; the models are shared
}

// transformerFacts labels the page's facts in the lecture's words.
var transformerFacts = factTable{
	static: []fact{
		{key: "source_x", label: "source x"},
		{key: "date_form", label: "date form"},
		{key: "in_corpus", label: "in the corpus"},
		{key: "unknown_words", label: "unknown words"},
		{key: "reference", label: "reference"},
		{key: "transformer_output", label: "Transformer"},
		{key: "transformer_correct", label: "Transformer: right"},
		{key: "gru_output", label: "GRU with attention"},
		{key: "gru_correct", label: "GRU with attention: right"},
		{key: "mask_state", label: `causal mask \(M\)`},
		{key: "teacher_forced", label: "fed the answer (teacher forcing)"},
		{key: "next_position_weight", label: "weight on the answer's next character"},
		{key: "saturation", label: `softmax with and without \(1/\sqrt{d_k}\)`},
		{key: "other_scaling_output", label: `output with the other \(\sqrt{d_k}\) setting`},
		{key: "shown", label: "matrices shown"},
		{key: "positional_wavelength", label: `wavelengths of \(PE\)`},
		{key: "held_out_transformer", label: "held out: Transformer"},
		{key: "held_out_gru", label: "held out: GRU with attention"},
		{key: "held_out_unmasked", label: "held out: Transformer without mask"},
		{key: "sequential_steps", label: "steps one after another"},
		{key: "epoch_time", label: "time per training epoch"},
	},
	step: append(decodedFacts(),
		fact{key: "looks_at", label: "encoder-decoder attention looks at"},
		fact{key: "p_max", label: `\(P(\hat{y}_{t'})\)`, measured: true},
	),
}
