package lessons

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// sdpPadding is how many <pad> positions follow the source in the scaled dot-product
// panel, as when the sentence shares a minibatch with a longer one: enough to see the
// padding mask's blank columns.
const sdpPadding = 3

// attentionModels are the bundled translators the page shows, by task: without
// attention (index 0) and with it (index 1). Nothing here trains them, so the shared
// loaded translators serve every page build (inference only reads the weights).
var attentionModels = sync.OnceValues(func() (map[string][2]*zoo.Translator, error) {
	out := map[string][2]*zoo.Translator{}
	for task, names := range zoo.LengthModels {
		var pair [2]*zoo.Translator
		for i, name := range names {
			tr, _, err := zoo.SharedTranslator(name)
			if err != nil {
				return nil, err
			}
			pair[i] = tr
		}
		out[task] = pair
	}
	return out, nil
})

// attentionModel is the attention page's sim.Model: one typed source decoded greedily
// by the attention model, step t' = 1 … T' being decoder step t' (its weights α_t'j,
// context c_t' and softmax), with the model without attention's translation beside
// it, scaled dot-product self-attention over the same encoder states, and the
// held-out BLEU by source length.
type attentionModel struct {
	task      string
	att, base *zoo.Translator
	src       attentionSource
	trace     *models.DecodeTrace // the decoding's steps, without the gates' traces (slim)
	outputs   []string            // y_1 … y_T', <eos> included
	without   string              // the model without attention's greedy translation
	answer    []string            // the reference's tokens and <eos>, nil when unknown
	sdp       sdpView
	lengths   map[string]lengthScores // by task
}

// sdpView is scaled dot-product self-attention over the encoder states of the padded
// source: Q = K = V = H (P×h).
type sdpView struct {
	tokens          []string   // the source and sdpPadding × <pad>
	weights         *mat.Dense // A, P×P
	allowed         []float64  // 1 where the mask lets query i see key j, else 0 (P×P)
	padding, causal bool
	peak, peakRaw   float64 // the mean over queries of max_j A_ij, with and without 1/√d_k
}

func buildAttention(v sim.Values) (sim.Model, error) {
	task := v.String("task")
	text := v.String("date")
	if task == "corpus" {
		text = v.String("sentence")
	}
	all, err := attentionModels()
	if err != nil {
		return nil, err
	}
	scores, err := attentionLengthScores()
	if err != nil {
		return nil, err
	}
	pair := all[task]
	m := &attentionModel{task: task, base: pair[0], att: pair[1], lengths: scores}
	if m.src, err = readSource(m.att, text); err != nil {
		return nil, err
	}
	if m.trace, err = m.att.Model.FreeRun(m.src.ids, m.att.Task.MaxOutput); err != nil {
		return nil, err // readSource checked the ids: a bug
	}
	slim(m.trace)
	for _, s := range m.trace.Steps {
		m.outputs = append(m.outputs, m.att.Tgt.Token(s.Output))
	}
	m.without = m.base.Greedy(m.src.ids)
	if len(m.src.refs) > 0 {
		m.answer = append(m.att.Task.Tokenize(m.src.refs[0]), m.att.Tgt.Token(models.EosID))
	}
	m.sdp = scaledDotProductView(m.att, m.src, v.Bool("padding_mask"), v.Bool("causal_mask"))
	return m, nil
}

// slim drops from a decoding's trace what the attention page never shows, the
// encoder's and the decoder's gate traces (three quarters of a run's memory): each
// step keeps its weights α, context, softmax and output.
func slim(tr *models.DecodeTrace) {
	tr.Encoder = nil
	for i := range tr.Steps {
		tr.Steps[i].Decoder = nil
	}
}

// encoderStates runs the encoder GRU over ids from h_0 = 0 and returns h_1 … h_n as
// the rows of an n×h matrix (on padding too, as a batched encoder does).
func encoderStates(m *models.EncoderDecoder, ids []int) *mat.Dense {
	states := mat.NewDense(len(ids), m.Config.Hidden, nil)
	var h *mat.Dense // nil: h_0 = 0
	for t, id := range ids {
		h = m.Encoder.Step(m.SrcEmbed.Forward([]int{id}), models.State{H: h}).Next.H
		states.SetRow(t, h.RawRowView(0))
	}
	return states
}

// sdpMask is the key mask of the switches: padding allows keys j < valid, causal
// allows j ≤ i, both allow what both allow; nil allows every key.
func sdpMask(valid int, padding, causal bool) models.KeyMask {
	pad := models.PaddingMask(valid)
	switch {
	case padding && causal:
		return func(i, j int) bool { return pad(i, j) && models.CausalMask(i, j) }
	case padding:
		return pad
	case causal:
		return models.CausalMask
	}
	return nil
}

// scaledDotProductView computes softmax(QKᵀ/√d_k) with Q = K = V = H, the encoder
// states of the source followed by sdpPadding <pad> tokens, under the chosen masks.
func scaledDotProductView(tr *zoo.Translator, src attentionSource, padding, causal bool) sdpView {
	ids := slices.Clone(src.ids)
	tokens := slices.Clone(src.tokens)
	for range sdpPadding {
		ids = append(ids, models.PadID)
		tokens = append(tokens, tr.Src.Token(models.PadID))
	}
	h := encoderStates(tr.Model, ids)
	mask := sdpMask(len(src.ids), padding, causal)
	_, weights := models.ScaledDotProduct(h, h, h, mask)
	var raw mat.Dense // √d_k Q: softmax(QKᵀ), the weights without the scaling
	_, dk := h.Dims()
	raw.Scale(math.Sqrt(float64(dk)), h)
	_, unscaled := models.ScaledDotProduct(&raw, h, h, mask)

	n := len(ids)
	view := sdpView{tokens: tokens, weights: weights, allowed: make([]float64, n*n), padding: padding, causal: causal}
	for i := range n {
		for j := range n {
			if mask == nil || mask(i, j) {
				view.allowed[i*n+j] = 1
			}
		}
	}
	view.peak, view.peakRaw = meanRowMax(weights), meanRowMax(unscaled)
	return view
}

// meanRowMax is the mean over rows with any weight of the row's largest weight: 1
// when every query looks at one key only, 1/m when it spreads over m keys.
func meanRowMax(a *mat.Dense) float64 {
	rows, _ := a.Dims()
	var sum float64
	n := 0
	for i := range rows {
		if top := slices.Max(a.RawRowView(i)); top > 0 {
			sum += top
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func (m *attentionModel) Steps() int { return len(m.trace.Steps) }

// facts are the static facts: what was translated, both translations, the reference,
// the scaled dot-product panel's set-up and the BLEU-by-length evidence.
func (m *attentionModel) facts() map[string]any {
	task := m.att.Task
	meta := map[string]any{
		"source_x":          task.Join(m.src.tokens),
		"with_attention":    m.att.Words(m.trace.Outputs()),
		"without_attention": m.without,
		"source_length_T":   len(m.src.ids),
	}
	for k, v := range m.src.notes {
		meta[k] = v
	}
	if len(m.src.refs) > 0 {
		meta["reference"] = strings.Join(m.src.refs, " | ")
		meta["with_attention_correct"] = slices.Contains(m.src.refs, meta["with_attention"].(string))
		meta["without_attention_correct"] = slices.Contains(m.src.refs, m.without)
	}
	meta["scaled_dot_product"] = fmt.Sprintf("Q = K = V = the encoder states h₁ … h%s and %d <pad> positions, no projections (W^Q = W^K = W^V = I, dₖ = %d): the source attends to itself",
		subscript(len(m.src.ids)), sdpPadding, m.att.Config.Hidden)
	meta["mean_largest_weight"] = fmt.Sprintf("%.3f with 1/√dₖ, %.3f without", m.sdp.peak, m.sdp.peakRaw)
	corpus, dates := m.lengths["corpus"], m.lengths["dates"]
	meta["corpus_BLEU_by_length"] = corpus.trend()
	meta["dates_BLEU_by_length"] = fmt.Sprintf("%s without attention, %s with, over %s characters: a date fits in h = %d numbers, so no bottleneck shows",
		dates.bleuRange(0), dates.bleuRange(1), dates.span(), m.base.Config.Hidden)
	return meta
}

func (m *attentionModel) Static() sim.Frame {
	meta := m.facts()
	if m.answer != nil {
		meta["answers"] = m.answer
	}
	meta["vocab"] = m.att.Tgt.List()
	corpus := m.lengths["corpus"].Buckets // the bars: where the bottleneck shows
	labels := make([]string, len(corpus))
	without := make([]float64, len(labels))
	with := make([]float64, len(labels))
	for i, b := range corpus {
		labels[i], without[i], with[i] = b.Label(), b.BLEU[0], b.BLEU[1]
	}
	meta["labels"] = labels
	meta["axes"] = map[string]any{
		"alpha": map[string]any{"rows": m.outputs, "cols": m.src.tokens, "row_title": "output yₜ′", "col_title": "source xⱼ", "value": "αₜ′ⱼ"},
		"c":     map[string]any{"rows": m.outputs, "cols": unitNames(m.att.Config.Hidden), "row_title": "output yₜ′", "col_title": "unit of cₜ′", "value": "cₜ′"},
		"A":     map[string]any{"rows": m.sdp.tokens, "cols": m.sdp.tokens, "row_title": "query i", "col_title": "key j", "value": "Aᵢⱼ", "mask": "A_allowed"},
	}
	n := len(m.sdp.tokens)
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Matrix("A", n, n, m.sdp.weights.RawMatrix().Data),
			sim.Matrix("A_allowed", n, n, m.sdp.allowed),
			sim.Vector("without attention", without),
			sim.Vector("with attention", with),
		},
		Meta: meta,
	}
}

// unitNames are "1" … "n", the column labels of a vector's units.
func unitNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

func (m *attentionModel) At(t int) sim.Frame {
	s := m.trace.Steps[t-1]
	out := m.outputs[t-1]
	j := models.Argmax(s.Attention)
	meta := map[string]any{
		"pred":     out,
		"looks_at": fmt.Sprintf("x%s = %q (α = %.3f)", subscript(j+1), m.src.tokens[j], s.Attention[j]),
		"norm_c":   round4(mat.Norm(s.Context, 2)),
	}
	if m.answer != nil {
		meta["correct"] = t <= len(m.answer) && m.answer[t-1] == out
	}
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("alpha", slices.Clone(s.Attention)),
			sim.Vector("c", slices.Clone(s.Context.RawRowView(0))),
			sim.Vector("P", slices.Clone(s.Probs)),
		},
		Meta: meta,
	}
}

// lengthSeries is the corpus's held-out score against source length (bucket
// midpoints), without and with attention: BLEU, or the exact-match share when exact.
func lengthSeries(exact bool) func(sim.Model) []Series {
	return func(sm sim.Model) []Series {
		m := sm.(*attentionModel)
		out := []Series{{Label: "without attention"}, {Label: "with attention"}}
		for k := range out {
			for _, b := range m.lengths["corpus"].Buckets {
				y := b.BLEU[k]
				if exact {
					y = b.Exact[k]
				}
				out[k].X = append(out[k].X, float64(b.Lo+b.Hi)/2)
				out[k].Y = append(out[k].Y, y)
			}
		}
		return out
	}
}

// alignmentSeries is the alignment as a path: for each output step t', the source
// position with the largest weight and the expected position Σ_j j α_t'j.
func alignmentSeries(sm sim.Model) []Series {
	m := sm.(*attentionModel)
	top := Series{Label: `\(\arg\max_j \alpha_{t'j}\) (the most attended source position)`}
	mean := Series{Label: `\(\sum_j j\,\alpha_{t'j}\) (the expected source position)`}
	for t, s := range m.trace.Steps {
		x := float64(t + 1)
		top.X, top.Y = append(top.X, x), append(top.Y, float64(models.Argmax(s.Attention)+1))
		var e float64
		for j, a := range s.Attention {
			e += float64(j+1) * a
		}
		mean.X, mean.Y = append(mean.X, x), append(mean.Y, e)
	}
	return []Series{top, mean}
}

// alignmentGrid is the attention weights α_t'j of the whole decoding: a row per
// output token, a column per source token.
func alignmentGrid(sm sim.Model) Grid {
	m := sm.(*attentionModel)
	g := Grid{Rows: m.outputs, Cols: m.src.tokens, Lo: 0, Hi: 1}
	for _, s := range m.trace.Steps {
		g.Values = append(g.Values, s.Attention)
	}
	return g
}

var attentionLesson = &Lesson{
	Slug:    "attention",
	Short:   "Attention",
	Section: "4.6",
	Title:   "Attention: learning to align",
	Summary: "Bahdanau attention on dates and on the corpus: the attention weights filling in as the decoder steps, the context vector of each step, BLEU against source length with and without attention, and scaled dot-product attention with its masks.",
	Prose: []string{
		`A plain encoder-decoder hands the decoder one vector, the context \(c = h_T\), and the same vector at every output step: the whole source must fit into \(h\) numbers before the first word comes out. Lecture 002 calls this fixed-length context a possible <b>bottleneck</b>, worst for long sequences. Bahdanau et al. let the decoder look back instead. At each output step \(t'\) a small feed-forward network \(f_\theta\) scores every encoder state \(h_j\) against the decoder's previous state \(s_{t'-1}\); a softmax turns the scores into <b>attention weights</b> \(\alpha_{t'j}\) that are positive and sum to 1 over the source; and the step reads its own context \(c_{t'} = \sum_j \alpha_{t'j} h_j\), a soft choice of the source positions that matter now. \(f_\theta\) is trained with the rest of the model: nobody tells it which words belong together.`,
		`Step through the decoder. Each step adds one row to the <b>alignment</b>: the weights of the output token \(y_{t'}\) (row) over the source tokens \(x_j\) (columns), dark where it looks. On a date the output is always year-month-day, wherever the source put them, so the rows jump: the year's digits look at the year, the month's at the month's name or number, the day's at the day. On the corpus the weights mostly walk along the sentence, as French word order is close to English. The panel below it shows the context \(c_{t'}\) of each step as a row of its 64 numbers: it changes from step to step, where without attention every row would be the same \(h_T\).`,
		`The bars are the evidence for the bottleneck, on the corpus: held-out BLEU for each range of source lengths, for the bundled model without attention and the one with it (same sizes, \(e = 32\), \(h = 64\), same training), greedy decoding over the whole test split. Without attention the score falls as the sentences get longer; with attention it holds. The corpus's sentences are short (at most 8 words in the test split), so the fall is modest; the lecture warns that it grows with length, above all past the lengths seen in training. On the dates both models are almost perfect at every length (the facts give the numbers): a date carries little information and 64 numbers hold it, so there attention shows <i>where</i> the model reads rather than rescuing it.`,
		`The Transformer (lecture 002) keeps the weighting and drops the recurrence: <b>scaled dot-product attention</b> scores a query against a key by their dot product, \(\mathrm{softmax}(QK^\top/\sqrt{d_k})\,V\). Dividing by \(\sqrt{d_k}\) stops the scores of long vectors from growing with \(d_k\) and making every softmax one-hot (“to control the skew”); the facts give the mean largest weight with and without it. The last panel applies it to this very source: the encoder states are the queries, keys and values at once (an encoder self-attention layer, every position attending to every position), and three <code>&lt;pad&gt;</code> tokens follow the sentence, as in a minibatch with a longer sentence. A <b>mask</b> adds \(-\infty\) to the scores it forbids, so their weight is exactly 0: the <b>padding mask</b> hides the <code>&lt;pad&gt;</code> keys (switch it off and the padding takes weight it should not); the <b>causal mask</b> lets position \(i\) see only keys \(j \le i\), the mask of a decoder's self-attention, which must not see the words it has yet to write.`,
		`<b>No projections here.</b> A Transformer layer first maps the states \(H\) by three learned matrices, \(Q = H W^Q\), \(K = H W^K\), \(V = H W^V\). This panel has none: \(W^Q = W^K = W^V = I\), so \(Q = K = V = H\) and \(d_k = h = 64\), and it shows what the raw states of a model trained for Bahdanau attention say about one another. With \(Q = K\) the scores \(H H^\top\) are symmetric: position \(i\) scores \(j\) exactly as \(j\) scores \(i\), and without masks the weights \(A_{ij}\) and \(A_{ji}\) differ only by their rows' normalisations. Learned projections would lift that: \(W^Q \ne W^K\) lets a position look for something other than what it offers to others, \(W^V\) chooses what is passed on apart from what is matched (and its width \(d_v\)), and several heads, each with its own three matrices, can look for several things at once.`,
		`Choose the task and type a date in any of the trained forms (“22 November 2026”, “nov 22, 2026”, “Sunday 22/11/26”, “the 22nd of november 2026”, “20261122” …) between 1969 and 2068, or an English sentence in the corpus's vocabulary, such as the held-out “she doesn't want to sing the songs .”, which only the model with attention translates right. A date the calendar does not have (31 February), outside those years, with the wrong weekday or in another form is refused with the reason, and the page keeps the date it had. Every accepted date has its answer, and so does a sentence of the corpus: the page colours each output green or orange. A sentence the corpus lacks has no answer to compare with, and the model can get it wrong: for “we are not eating the apples .”, words it knows in a sentence it never saw, it writes “nous ne sommes pas à la soupe .”.`,
	},
	Equations: []Equation{
		{TeX: `e_{t'j} = f_\theta(s_{t'-1}, h_j) = \tanh(s_{t'-1} W_q + h_j W_k)\, v^\top`},
		{TeX: `\htmlClass{sym-alpha}{\alpha_{t'j}} = \frac{\exp(e_{t'j})}{\sum_{k=1}^{T} \exp(e_{t'k})}`, Symbols: []Symbol{{ID: "alpha", Array: "alpha"}}},
		{TeX: `\htmlClass{sym-c}{c_{t'}} = \sum_{j=1}^{T} \alpha_{t'j}\, h_j`, Symbols: []Symbol{{ID: "c", Array: "c"}}},
		{TeX: `s_{t'} = g\big([\mathrm{emb}(y_{t'-1});\, c_{t'}],\ s_{t'-1}\big)`},
		{TeX: `\htmlClass{sym-P}{P(y_{t'} \mid y_{<t'}, x)} = \mathrm{softmax}(s_{t'} W + b)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\mathrm{Attention}(Q, K, V) = \htmlClass{sym-A}{A}\,V, \quad A = \mathrm{softmax}\Big(\frac{Q K^\top}{\sqrt{d_k}} + M\Big)`, Symbols: []Symbol{{ID: "A", Array: "A"}}},
		{TeX: `Q = H W^Q,\ K = H W^K,\ V = H W^V`},
		{TeX: `\text{here } W^Q = W^K = W^V = I:\ Q = K = V = H`},
		{TeX: `M_{ij} = \begin{cases} 0 & \text{query } i \text{ may see key } j \\ -\infty & \text{masked} \end{cases}`},
	},
	Arrays: []Array{
		{Name: "alpha", Label: `\(\alpha_{t',t}\)`, Axes: []Axis{Positions}, PerStep: true},
		{Name: "c", Label: `\(\mathbf{c}_{t'}\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(P(y_{t'})\)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "without attention", Label: "BLEU without attention", Axes: []Axis{Ranks}, Labels: "labels"},
		{Name: "with attention", Label: "BLEU with attention", Axes: []Axis{Ranks}, Labels: "labels"},
		{Name: "A", Label: `\(\mathrm{softmax}(QK^\top/\sqrt{d_k})\)`, Axes: []Axis{Positions, Positions}},
		{Name: "A_allowed", Label: "allowed pairs", Axes: []Axis{Positions, Positions}},
	},
	Stage: []string{"alignment", "decoder"},
	Panels: []Panel{
		{ID: "decoder", Static: []string{"answers"}, Meta: []string{"pred", "correct"}, Kind: Tokens, Title: `decoder output \(y_{t'}\), fed back as the next step's input`,
			Note: "Green: the output matches the correct answer; orange: it does not (when the page knows the answer, shown above the outputs)."},
		{ID: "alignment", Static: []string{"axes"}, Kind: Alignment, Title: `attention weights \(\alpha_{t'j}\): rows = output tokens, columns = source tokens`, Arrays: []string{"alpha"}, Scale: []float64{0, 1}, Symbol: "alpha",
			Note: "Each row sums to 1. A row is added at every decoder step; the framed row is the current one."},
		{ID: "context", Static: []string{"axes"}, Kind: Alignment, Title: `context vector \(c_{t'} = \sum_j \alpha_{t'j} h_j\) at each decoder step (one row per step, h = 64 units)`, Arrays: []string{"c"}, Scale: []float64{-1, 1}, Symbol: "c",
			Note: `Rows line up with the weights above. Without attention every row would be the same vector \(h_T\).`},
		{ID: "softmax", Kind: TopK, Title: `the decoder's softmax \(P(y_{t'} \mid y_{<t'}, x)\), top 5`, Arrays: []string{"P"}, Symbol: "P"},
		{ID: "bleu-length", Static: []string{"axes"}, Kind: Bars, Title: `corpus: held-out BLEU by source length (words)`, Arrays: []string{"without attention", "with attention"}, Scale: []float64{0, 1},
			Note: "The corpus's test split in ranges of source length, each with at least 40 pairs; greedy decoding, corpus BLEU (N = 4) per range. The facts give the dates' numbers."},
		{ID: "sdp", Static: []string{"axes"}, Kind: Alignment, Title: `scaled dot-product self-attention \(A = \mathrm{softmax}(QK^\top/\sqrt{d_k} + M)\), \(Q = K = V\) = encoder states`, Arrays: []string{"A", "A_allowed"}, Scale: []float64{0, 1}, Symbol: "A",
			Note: "Hatched cells are masked (weight exactly 0). Rows are queries, columns keys; the last three positions are padding."},
	},
	Params: append(translationSpecs(),
		sim.ParamSpec{Name: "padding_mask", Label: "padding mask", Kind: sim.Bool, Default: "true",
			Help: "Scaled dot-product panel: give the <pad> keys weight 0."},
		sim.ParamSpec{Name: "causal_mask", Label: "causal mask", Kind: sim.Bool, Default: "false",
			Help: "Scaled dot-product panel: let query i see only keys j ≤ i, as in a decoder."},
	),
	Plots: []Plot{
		{Name: "bleu-length", Title: "corpus: held-out BLEU against source length", XLabel: "source length (words, middle of each range)", YLabel: "corpus BLEU", Series: lengthSeries(false)},
		{Name: "exact-length", Title: "corpus: held-out exact matches against source length", XLabel: "source length (words, middle of each range)", YLabel: "share of exact translations", Series: lengthSeries(true)},
		{Name: "alignment", Title: `where the decoder looks: source position per output step \(t'\)`, XLabel: `output step \(t'\)`, YLabel: `source position \(j\)`, Series: alignmentSeries},
		{Name: "weights", Title: `attention weights \(\alpha_{t'j}\)`, XLabel: `source token \(x_j\)`, YLabel: `output token \(y_{t'}\)`, Grid: alignmentGrid},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/attention.html"), Scripts: []string{seq2seqScript},
		Companions: []Companion{
			{"without", pyTorchHTML("notes/attention-without.html")},
		}},
	Build:   buildAttention,
	Facts:   attentionFacts,
	Largest: sim.Values{"task": "corpus", "sentence": longSentence},
	// 127 KB measured on a 20-token corpus sentence, 52 KB at the defaults: α, c_t' and P per step (slim); both translators are shared.
	SessionBytes: 208 << 10,
}

// attentionFacts labels the page's facts in the lecture's words.
var attentionFacts = factTable{
	static: []fact{
		{key: "source_x", label: "source x"},
		{key: "source_length_T", label: "source length T"},
		{key: "date_form", label: "date form"},
		{key: "reference", label: "reference"},
		{key: "without_attention", label: "without attention"},
		{key: "without_attention_correct", label: "without attention: right"},
		{key: "with_attention", label: "with attention"},
		{key: "with_attention_correct", label: "with attention: right"},
		{key: "unknown_words", label: "unknown words"},
		{key: "scaled_dot_product", label: "scaled dot product"},
		{key: "mean_largest_weight", label: "mean largest weight"},
		{key: "dates_BLEU_by_length", label: "dates: BLEU by length"},
		{key: "corpus_BLEU_by_length", label: "corpus: BLEU by length"},
	},
	step: append(decodedFacts(),
		fact{key: "looks_at", label: "looks at"},
		fact{key: "norm_c", label: `\(\|\mathbf{c}_{t'}\|\)`, measured: true},
	),
}

// The attention page reads a typed source: a date for the date task, an English
// sentence for the corpus. This file turns it into source ids with a message a
// student can act on, and finds the correct output when the page can know it.

// attentionSource is a typed source read for one translator: its ids and tokens, the
// correct outputs when known, and notes for the page.
type attentionSource struct {
	ids    []int
	tokens []string
	refs   []string // correct outputs: the ISO date, or the corpus's French sentences
	notes  map[string]string
}

// readSource checks a typed source against tr's task and vocabulary. Errors are for
// the student: an empty or too long source, a character the date model never saw, a
// date that is not a calendar date of the task's years in one of its trained forms
// (data.CheckDate), or a sentence with no word of the corpus.
func readSource(tr *zoo.Translator, text string) (attentionSource, error) {
	if tr.Task.Name == "dates" { // Source speaks of sentences and words; a date has characters
		switch n := len(tr.Task.Tokenize(text)); {
		case n == 0:
			return attentionSource{}, fmt.Errorf("the date is empty: type a date, such as 22 November 2026 or 22/11/26")
		case n > tr.Task.MaxSource:
			return attentionSource{}, fmt.Errorf("the date has %d characters; at most %d fit", n, tr.Task.MaxSource)
		}
	}
	ids, tokens, err := tr.Source(text)
	if err != nil {
		return attentionSource{}, err
	}
	src := attentionSource{ids: ids, tokens: tokens, notes: map[string]string{}}
	var unknown []string // each unknown token once
	known := 0
	for i, id := range ids {
		switch {
		case id != models.UnkID:
			known++
		case !slices.Contains(unknown, tokens[i]):
			unknown = append(unknown, tokens[i])
		}
	}
	if tr.Task.Name == "dates" {
		if len(unknown) > 0 {
			return attentionSource{}, fmt.Errorf("the date model never saw %s; a date is written with letters, digits, spaces and the signs / . , -",
				quoteList(unknown))
		}
		// a date the task knows: a calendar date in its range, in a trained form
		if err := data.CheckDate(text); err != nil {
			return attentionSource{}, err
		}
		iso, form, _ := data.RecogniseDate(text)
		src.refs = []string{iso}
		src.notes["date_form"] = fmt.Sprintf("%q (one of the %d trained forms)", form, len(data.DateFormats()))
		return src, nil
	}
	if known == 0 {
		what := "none of the words " + quoteList(unknown) + " is"
		if len(unknown) == 1 {
			what = fmt.Sprintf("the word %q is not", unknown[0])
		}
		return attentionSource{}, fmt.Errorf("%s in the corpus's English vocabulary; try a sentence such as \"they are watching .\"", what)
	}
	if len(unknown) > 0 {
		src.notes["unknown_words"] = quoteList(unknown) + " (read as <unk>)"
	}
	src.refs, src.notes["in_corpus"] = corpusReferences(tokens)
	return src, nil
}

// corpusIndex maps an English sentence's tokens (joined by spaces) to its French
// sentences in the corpus, per split (0 test, 1 train); built once.
var corpusIndex = sync.OnceValue(func() map[string][2][]string {
	task := zoo.CorpusTask()
	index := map[string][2][]string{}
	for split, pairs := range [][]data.Pair{task.Test, task.Train} {
		for _, p := range pairs {
			key := strings.Join(task.Tokenize(p.En), " ")
			refs := index[key]
			if fr := task.Join(task.Tokenize(p.Fr)); !slices.Contains(refs[split], fr) {
				refs[split] = append(refs[split], fr)
			}
			index[key] = refs
		}
	}
	return index
})

// corpusReferences are the French sentences paired with the English tokens in the
// corpus, and where the pair is: the test split, the training split or neither.
func corpusReferences(tokens []string) ([]string, string) {
	refs := corpusIndex()[strings.Join(tokens, " ")]
	switch {
	case len(refs[0]) > 0:
		return refs[0], "yes, in the held-out test split (never trained on)"
	case len(refs[1]) > 0:
		return refs[1], "yes, in the training split (the model has seen it)"
	}
	return nil, "no: a new sentence, so there is no reference to compare with"
}

// quoteList writes tokens as "a", "b" and "c".
func quoteList(tokens []string) string {
	q := make([]string, len(tokens))
	for i, t := range tokens {
		q[i] = fmt.Sprintf("%q", t)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// lengthScores is one task's BLEU by source length (zoo.LengthScores), with the
// attention page's ways of writing it.
type lengthScores struct{ zoo.LengthScores }

// attentionLengthScores is zoo.AttentionLengthScores for the attention page.
func attentionLengthScores() (map[string]lengthScores, error) {
	all, err := zoo.AttentionLengthScores()
	if err != nil {
		return nil, err
	}
	out := make(map[string]lengthScores, len(all))
	for task, s := range all {
		out[task] = lengthScores{s}
	}
	return out, nil
}

// bleuRange writes the lowest and highest BLEU of model k (0 without attention, 1 with)
// over the buckets: "0.848–0.905", or one number when they agree to 3 decimals.
func (s lengthScores) bleuRange(k int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range s.Buckets {
		lo, hi = min(lo, b.BLEU[k]), max(hi, b.BLEU[k])
	}
	if fmt.Sprintf("%.3f", lo) == fmt.Sprintf("%.3f", hi) {
		return fmt.Sprintf("%.3f", lo)
	}
	return fmt.Sprintf("%.3f–%.3f", lo, hi)
}

// span is the source lengths the buckets cover, "3–8".
func (s lengthScores) span() string {
	return fmt.Sprintf("%d–%d", s.Buckets[0].Lo, s.Buckets[len(s.Buckets)-1].Hi)
}

// trend is the first and last bucket's BLEU of both models, for the page's facts.
func (s lengthScores) trend() string {
	first, last := s.Buckets[0], s.Buckets[len(s.Buckets)-1]
	return fmt.Sprintf("without attention %.3f (%s) → %.3f (%s); with attention %.3f → %.3f",
		first.BLEU[0], first.Label(), last.BLEU[0], last.Label(), first.BLEU[1], last.BLEU[1])
}
