package lessons

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
)

// mtStages is the number of steps of the mt-data page: raw text, normalisation,
// tokens, ids, <eos> and padding, the mask, the minibatch.
const mtStages = 7

// mtMaxMinFreq is the largest minimum-frequency cut the page offers (and tabulates):
// past 5 most of the generated corpus's rare words are already <unk>.
const mtMaxMinFreq = 5

// mtBatchStream separates the minibatch's random stream from other uses of the seed.
const mtBatchStream = 0x6d74

// mtDataTokens is the training split tokenised, source and target, built once.
var mtDataTokens = sync.OnceValues(func() (src, tgt [][]string) {
	train, _ := data.Corpus()
	for _, p := range train {
		s, t := p.Tokens()
		src, tgt = append(src, s), append(tgt, t)
	}
	return src, tgt
})

// mtVocabs are the source and target vocabularies of the training split for each
// minimum frequency 1..mtMaxMinFreq, built once.
var mtVocabs = sync.OnceValue(func() [mtMaxMinFreq + 1][2]*models.Vocab {
	src, tgt := mtDataTokens()
	var out [mtMaxMinFreq + 1][2]*models.Vocab
	for f := 1; f <= mtMaxMinFreq; f++ {
		out[f] = [2]*models.Vocab{models.NewVocab(src, f), models.NewVocab(tgt, f)}
	}
	return out
})

type mtDataModel struct {
	index          int // the pair's index in the training split, -1 for typed text
	minFreq, steps int
	src, tgt       MTSide
	vs, vt         *models.Vocab
	// ownRow: the followed pair is row 1 of the minibatch. A half-typed pair is not a
	// training example, so then all B rows are corpus pairs.
	ownRow           bool
	batch            []int // training-split indices of the corpus rows, drawn by the seed
	batchSrc, batchY [][]int
	srcLens, yLens   []int
}

func buildMTData(v sim.Values) (sim.Model, error) {
	train, _ := data.Corpus()
	en, fr := strings.TrimSpace(v.String("english")), strings.TrimSpace(v.String("french"))
	m := &mtDataModel{index: -1, minFreq: v.Int("min_freq"), steps: v.Int("num_steps")}
	if en == "" && fr == "" {
		m.index = v.Int("pair")
		if m.index < 0 || m.index >= len(train) {
			return nil, fmt.Errorf("pair must be between 0 and %d, got %d", len(train)-1, m.index)
		}
		en, fr = mtRawForm(train[m.index].En, false), mtRawForm(train[m.index].Fr, true)
	}
	if m.minFreq < 1 || m.minFreq > mtMaxMinFreq {
		return nil, fmt.Errorf("minimum frequency must be between 1 and %d, got %d", mtMaxMinFreq, m.minFreq)
	}
	if m.steps < 1 {
		return nil, fmt.Errorf("num_steps must be at least 1, got %d", m.steps)
	}
	vocabs := mtVocabs()[m.minFreq]
	m.vs, m.vt = vocabs[0], vocabs[1]
	m.src, m.tgt = mtSide(en, m.vs, m.steps), mtSide(fr, m.vt, m.steps)
	if m.src.Missing && m.tgt.Missing {
		return nil, fmt.Errorf("type at least one word in English or in French (or clear both to use pair %d of the corpus)", v.Int("pair"))
	}
	m.ownRow = !m.src.Missing && !m.tgt.Missing
	b := v.Int("batch_size")
	corpusRows := b
	var srcs, tgts [][]string
	if m.ownRow {
		corpusRows = b - 1
		srcs, tgts = append(srcs, m.src.Tokens), append(tgts, m.tgt.Tokens)
	}
	rng := rand.New(rand.NewPCG(uint64(v.Int("seed")), mtBatchStream))
	for _, i := range rng.Perm(len(train)) {
		if len(m.batch) == corpusRows {
			break
		}
		if i != m.index {
			m.batch = append(m.batch, i)
		}
	}
	srcTok, tgtTok := mtDataTokens()
	for _, i := range m.batch {
		srcs, tgts = append(srcs, srcTok[i]), append(tgts, tgtTok[i])
	}
	m.batchSrc, m.srcLens = m.vs.BuildArray(srcs, m.steps)
	m.batchY, m.yLens = m.vt.BuildArray(tgts, m.steps)
	return m, nil
}

func (m *mtDataModel) Steps() int { return mtStages }

// mtStageNames name the pipeline's stages, one a step.
var mtStageNames = []string{"raw text", "normalisation", "tokens", "vocabulary ids", "<eos>, truncation, padding", "valid-length mask", "a minibatch"}

// Passes: the steps are the pipeline's named stages.
func (m *mtDataModel) Passes() []sim.Pass {
	return []sim.Pass{{Name: "pipeline", Steps: mtStages, Stages: mtStageNames}}
}

// intsToFloats is xs as float64s.
func intsToFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// matrixOf is rows as the array name, one row of the matrix each.
func matrixOf(name string, rows [][]int) sim.Array {
	var data []float64
	for _, r := range rows {
		data = append(data, intsToFloats(r)...)
	}
	return sim.Matrix(name, len(rows), len(rows[0]), data)
}

// At is stage t's table and facts, with the arrays of the stages reached so far:
// ids from stage 4, the mask m_t and the valid length L from stage 5, the minibatch
// at stage 7. A side the student has not typed has no arrays.
func (m *mtDataModel) At(t int) sim.Frame {
	tab, meta := m.stage(t)
	meta["pipeline"] = tab
	f := sim.Frame{Meta: meta}
	side := func(prefix string, x MTSide) {
		if x.Missing {
			return
		}
		if t >= 4 {
			f.Arrays = append(f.Arrays, sim.Vector(prefix+"_ids", intsToFloats(x.IDs)))
		}
		if t >= 5 {
			f.Arrays = append(f.Arrays, sim.Vector(prefix+"_mask", intsToFloats(Mask(x.ValidLen, m.steps))),
				sim.Vector(prefix+"_L", []float64{float64(x.ValidLen)}))
		}
	}
	side("src", m.src)
	side("tgt", m.tgt)
	if t == 7 {
		dec := make([][]int, len(m.batchY))
		mask := make([][]int, len(m.batchY))
		for i, y := range m.batchY {
			dec[i], mask[i] = DecoderInput(y), Mask(m.yLens[i], m.steps)
		}
		f.Arrays = append(f.Arrays, matrixOf("X", m.batchSrc), sim.Vector("X_valid_len", intsToFloats(m.srcLens)),
			matrixOf("dec_input", dec), matrixOf("Y", m.batchY), sim.Vector("Y_valid_len", intsToFloats(m.yLens)), matrixOf("mask", mask))
	}
	return f
}

func (m *mtDataModel) Static() sim.Frame {
	ce, cf := mtCounts(m.vs), mtCounts(m.vt)
	cut := make([]float64, max(len(ce), len(cf)))
	for i := range cut {
		cut[i] = float64(m.minFreq)
	}
	src, tgt := mtDataTokens()
	all := mtVocabs()
	ue, uf := make([]float64, mtMaxMinFreq), make([]float64, mtMaxMinFreq)
	tab := table{Title: "minimum frequency vs vocabulary size and <unk> share (training split)",
		Head: []string{"|V| English", "<unk> English", "|V| French", "<unk> French"}}
	for f := 1; f <= mtMaxMinFreq; f++ {
		ue[f-1], uf[f-1] = 100*UnkShare(all[f][0], src), 100*UnkShare(all[f][1], tgt)
		row := tableRow{Label: fmt.Sprintf("minimum frequency %d", f), Cells: []tableCell{
			{Text: strconv.Itoa(all[f][0].Len())}, {Text: fmt.Sprintf("%.2f %%", ue[f-1])},
			{Text: strconv.Itoa(all[f][1].Len())}, {Text: fmt.Sprintf("%.2f %%", uf[f-1])}}}
		if f == m.minFreq {
			row.Mark = "now"
		}
		tab.Rows = append(tab.Rows, row)
	}
	source := "typed by you"
	switch {
	case m.index >= 0:
		source = fmt.Sprintf("pair %d of the training split, shown raw as a translation file writes it (capital letter, punctuation attached, French narrow no-break space before ! and ?)", m.index)
	case m.src.Missing:
		source = "typed by you: French only so far"
	case m.tgt.Missing:
		source = "typed by you: English only so far"
	}
	meta := map[string]any{
		"pair_from": source,
		"min_freq":  m.minFreq, "num_steps": m.steps,
		"source_vocabulary_size": m.vs.Len(), "target_vocabulary_size": m.vt.Len(),
		"training_pairs": len(src),
		"unk_table":      tab,
		"marks":          map[string]int{"frequencies": mtKept(ce, m.minFreq), "unk-rate": m.minFreq},
		// the line panels' x axes, named in their tooltips
		"axes": map[string]any{"count_en": map[string]any{"col_title": "rank"}, "unk_percent_en": map[string]any{"col_title": "minimum frequency"}},
	}
	if m.src.Missing || m.tgt.Missing {
		meta["missing"] = mtMissingNote(m.tgt.Missing)
	}
	if !m.src.Missing {
		meta["english"] = m.src.Raw
	}
	if !m.tgt.Missing {
		meta["french"] = m.tgt.Raw
	}
	return sim.Frame{Meta: meta, Arrays: []sim.Array{
		sim.Vector("T", []float64{float64(m.steps)}),
		sim.Vector("count_en", ce), sim.Vector("count_fr", cf), sim.Vector("min_freq", cut),
		sim.Vector("unk_percent_en", ue), sim.Vector("unk_percent_fr", uf),
	}}
}

func frequencySeries(sm sim.Model) []Series {
	m := sm.(*mtDataModel)
	curve := func(label string, counts []float64) Series {
		s := Series{Label: label}
		for i, c := range counts {
			s.X, s.Y = append(s.X, math.Log10(float64(i+1))), append(s.Y, c)
		}
		return s
	}
	ce, cf := mtCounts(m.vs), mtCounts(m.vt)
	n := max(len(ce), len(cf))
	cut := Series{Label: fmt.Sprintf("min_freq = %d", m.minFreq), X: []float64{0, math.Log10(float64(n))}, Y: []float64{float64(m.minFreq), float64(m.minFreq)}}
	return []Series{curve("English", ce), curve("French", cf), cut}
}

// unkRateSeries is the share of <unk> tokens u(f) = Σ_{w: n_w < f} n_w / Σ_w n_w
// of each side of the training split against the cut f = min_freq = 1 … mtMaxMinFreq,
// with the page's current f marked by a vertical line.
func unkRateSeries(sm sim.Model) []Series {
	m := sm.(*mtDataModel)
	src, tgt := mtDataTokens()
	all := mtVocabs()
	en, fr := Series{Label: "English"}, Series{Label: "French"}
	top := 0.0
	for f := 1; f <= mtMaxMinFreq; f++ {
		ue, uf := 100*UnkShare(all[f][0], src), 100*UnkShare(all[f][1], tgt)
		en.X, en.Y = append(en.X, float64(f)), append(en.Y, ue)
		fr.X, fr.Y = append(fr.X, float64(f)), append(fr.Y, uf)
		top = max(top, ue, uf)
	}
	now := Series{Label: fmt.Sprintf("min_freq = %d (this page)", m.minFreq),
		X: []float64{float64(m.minFreq), float64(m.minFreq)}, Y: []float64{0, top}}
	return []Series{en, fr, now}
}

func mtTrainSize() int {
	train, _ := data.Corpus()
	return len(train)
}

var mtDataLesson = &Lesson{
	Slug:    "mt-data",
	Short:   "MT data",
	Section: "4.6",
	Title:   "Machine translation data",
	Summary: "Follow an English–French pair from raw text to the padded id matrices, valid lengths and masks a seq2seq model is trained on.",
	Prose: []string{
		`<b>Machine translation</b> turns a sentence of one language, the <i>source language</i> (here English), into a sentence of another, the <i>target language</i> (French). Input and output are both sequences of any length, and their lengths differ: translation is a central problem of <b>sequence transduction</b>. The field is as old as digital computers (the 1940s, when code breaking in the Second World War suggested treating a foreign language as a cipher). For decades it was <i>statistical</i> machine translation, assembled from separately estimated parts such as a translation model and a language model; <i>neural</i> machine translation, which these pages follow, trains one network end to end. That changes the data. A language model learns from text in a single language; a translator learns from a corpus of aligned pairs, a source sentence and its translation, so both sides are preprocessed together and a training example is always a whole pair.`,
		`A translation model does not read text: it reads rectangles of integers. This page follows one English–French pair of Unroll's corpus (the lectures' “they are watching .” → “ils regardent .” opens it) through every step of the lecture's preprocessing, one stage per step of the scrubber.`,
		`<b>Normalise</b>: lowercase, replace the non-breaking spaces of French typography, and put a space before each , . ! ? so that punctuation becomes a token of its own. <b>Tokenise</b> at spaces. <b>Map to ids</b> with a vocabulary built on the training split: four special tokens come first — <code>&lt;unk&gt;</code> 0 for unknown words, <code>&lt;pad&gt;</code> 1 for padding, <code>&lt;bos&gt;</code> 2 and <code>&lt;eos&gt;</code> 3 for the beginning and end of a sequence — then the words by frequency. A word seen fewer than <i>min_freq</i> times gets no id of its own and becomes <code>&lt;unk&gt;</code>: a smaller vocabulary, at the price of the sentences it blurs.`,
		`A minibatch needs every sequence to have the same length \(T\) (<i>num_steps</i>). Append <code>&lt;eos&gt;</code>, cut longer sequences to their first \(T\) ids and fill shorter ones with <code>&lt;pad&gt;</code>. The <b>valid length</b> \(L\) remembers how many entries are real, and its mask \(m_t\) tells the encoder and the loss to ignore the padding. Finally the decoder is trained with <b>teacher forcing</b> (section 4.6): its input is <code>&lt;bos&gt;</code> followed by the labels shifted right by one, so at step \(t\) it reads the true \(y_{t-1}\) and must predict \(y_t\). The loss of a minibatch averages the per-token losses \(\ell_{i,t}\) of its \(B\) sentences over the valid steps only: all of them summed, divided by their number, so a long sentence weighs more than a short one (it is not the mean of each sentence's mean).`,
		`Unroll's translators on the next pages differ from this lecture pipeline in two details: their encoder reads the source without an <code>&lt;eos&gt;</code>, and each minibatch of 32 pairs is padded to its own longest sentence instead of being cut to a fixed \(T\), so nothing is truncated. Padding changes nothing else: the masked loss of a minibatch is the same whatever length it is padded to.`,
		`Pick another pair by its index, or type your own English and French (words the corpus does not know become <code>&lt;unk&gt;</code>). Type one side alone and the page follows it as far as it goes, with a note for the other; the minibatch needs both, because a training example is a pair. Move <i>min_freq</i> and watch the frequency plot's cut and the <code>&lt;unk&gt;</code> table; shorten <i>num_steps</i> to see truncation cut off the <code>&lt;eos&gt;</code>.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-L}{L} = \min(|\htmlClass{sym-y}{y}| + 1,\ \htmlClass{sym-T}{T}) \qquad \text{(the tokens plus } \langle\mathrm{eos}\rangle\text{, at most } T)`,
			Symbols: []Symbol{{ID: "L", Array: "tgt_L"}, {ID: "y", Array: "tgt_ids"}, {ID: "T", Array: "T"}}},
		{TeX: `\htmlClass{sym-m}{m_t} = \begin{cases} 1 & t \le L \\ 0 & t > L \end{cases}, \qquad \ell = \frac{\sum_{i=1}^{B} \sum_{t=1}^{T} m_{i,t}\, \ell_{i,t}}{\sum_{i=1}^{B} \sum_{t=1}^{T} m_{i,t}}`,
			Symbols: []Symbol{{ID: "m", Array: "tgt_mask"}}},
		{TeX: `\htmlClass{sym-dec}{\text{decoder input}} = (\langle\mathrm{bos}\rangle, y_1, \dots, y_{T-1}), \qquad \htmlClass{sym-Y}{\text{labels}} = (y_1, \dots, y_T)`,
			Symbols: []Symbol{{ID: "dec", Array: "dec_input"}, {ID: "Y", Array: "Y"}}},
		{TeX: `\htmlClass{sym-u}{u}(f) = 100\,\% \cdot \frac{\sum_{w:\ n_w < f} n_w}{\sum_w \htmlClass{sym-n}{n_w}}, \qquad f = \text{min\_freq}`,
			Symbols: []Symbol{{ID: "u", Array: "unk_percent_en"}, {ID: "n", Array: "count_en"}}},
	},
	Arrays: []Array{
		{Name: "count_en", Label: "English word count", Axes: []Axis{Ranks}},
		{Name: "count_fr", Label: "French word count", Axes: []Axis{Ranks}},
		{Name: "min_freq", Label: "minimum frequency", Axes: []Axis{Ranks}},
		{Name: "unk_percent_en", Label: "unknown English tokens (%)", Axes: []Axis{Ranks}},
		{Name: "T", Label: `padded length \(T\)`, Axes: []Axis{Scalar}},
		{Name: "tgt_ids", Label: `\(y_1, \dots, y_T\)`, Axes: []Axis{Positions}, PerStep: true},
		{Name: "tgt_L", Label: `valid length \(L\)`, Axes: []Axis{Scalar}, PerStep: true},
		{Name: "tgt_mask", Label: `\(m_t\)`, Axes: []Axis{Positions}, PerStep: true},
		{Name: "dec_input", Label: `decoder input \((\langle\mathrm{bos}\rangle, y_1, \dots, y_{T-1})\)`, Axes: []Axis{Batch, Positions}, PerStep: true},
		{Name: "Y", Label: `labels \(Y\)`, Axes: []Axis{Batch, Positions}, PerStep: true},
		{Name: "unk_percent_fr", Label: "unknown French tokens (%)", Axes: []Axis{Ranks}},
	},
	Stage: []string{"frequencies", "pipeline"}, // on the stage the pipeline shows only the current step's stage (table.js), so it fits beside the chart
	Panels: []Panel{
		{ID: "pipeline", Meta: []string{"pipeline"}, Kind: Table, Title: "the pair, stage by stage", Symbol: "m", Also: []string{"L", "T", "y", "dec", "Y"},
			Note: "Each step adds one stage. Grey ids are <pad>, red <unk>, blue <bos>/<eos>; a mask's 0s are the padded steps."},
		{ID: "frequencies", Static: []string{"marks", "axes"}, Kind: Line, Title: "token count by frequency rank (log count)", Arrays: []string{"count_en", "count_fr", "min_freq"}, Legend: []string{"English", "French", "minimum frequency"}, LogY: true, Symbol: "n",
			Note: "Few words are frequent, most are rare (Zipf). Below the flat line of the minimum frequency words become <unk>; the dashed line is the English vocabulary's last kept rank."},
		{ID: "unk-rate", Static: []string{"marks", "axes"}, Kind: Line, Title: "share of <unk> tokens (%) vs the minimum frequency", Arrays: []string{"unk_percent_en", "unk_percent_fr"}, Legend: []string{"English", "French"}, Symbol: "u",
			Note: "x is the minimum frequency, 1…5; the dashed line is the current value."},
		{ID: "unk_table", Static: []string{"unk_table"}, Kind: Table, Title: "vocabulary size and <unk> share vs the minimum frequency", Symbol: "u",
			Note: "The current minimum frequency's row is marked."},
	},
	Params: sim.Specs{
		{Name: "pair", Label: "pair index", Kind: sim.Int, Default: "0", Min: 0, Max: float64(mtTrainSize() - 1), Step: 1,
			Help: "Which pair of the training split to follow (0 is “they are watching .”, 1 is “go .”). Used when both sentences below are empty."},
		{Name: "english", Label: "your English", Kind: sim.Text, MaxLen: 100, MaxLenWhy: mtTypedWhy, Default: "",
			Help: "Type an English sentence and its French translation to follow them instead of a corpus pair; one side alone is followed as far as it goes."},
		{Name: "french", Label: "your French", Kind: sim.Text, MaxLen: 100, MaxLenWhy: mtTypedWhy, Default: ""},
		{Name: "min_freq", Label: "minimum frequency", Kind: sim.Int, Default: "2", Min: 1, Max: mtMaxMinFreq, Step: 1,
			Help: "Words seen fewer times than this in the training split become <unk>."},
		{Name: "num_steps", Label: "padded length", Kind: sim.Int, Default: "8", Min: 3, Max: 15, Step: 1, Symbol: "T",
			Help: "Every sequence is cut or padded to this length."},
		{Name: "batch_size", Label: "batch size", Kind: sim.Int, Default: "4", Min: 1, Max: 8, Step: 1, Symbol: "B"},
		seedSpec(1, "Which other pairs fill the minibatch."),
	},
	Plots: []Plot{
		{Name: "frequencies", Title: "token frequency vs rank (log-log)", XLabel: `\(\log_{10}\) rank`, YLabel: "count", LogY: true, Series: frequencySeries},
		{Name: "unk-rate", Title: "share of <unk> tokens vs min_freq", XLabel: "min_freq", YLabel: "<unk> tokens (%)", Series: unkRateSeries},
	},
	Build:   buildMTData,
	Facts:   mtDataFacts,
	Largest: sim.Values{"num_steps": "15", "batch_size": "8", "english": "they are watching the big red car and the small cat .", "french": "ils regardent la grande voiture rouge et le petit chat ."},
	// 122 KB measured with num_steps 15, a batch of 8 and both sentences typed, 62 KB at the defaults: corpus and vocabularies are shared.
	SessionBytes: 192 << 10,
}

// mtDataFacts labels the page's facts in the lecture's words.
var mtDataFacts = factTable{
	static: []fact{
		{key: "english", label: "English"},
		{key: "french", label: "French"},
		{key: "pair_from", label: "the pair"},
		{key: "training_pairs", label: "training pairs"},
		{key: "min_freq", label: "minimum frequency (rarer words become <unk>)"},
		{key: "source_vocabulary_size", label: "English vocabulary size"},
		{key: "target_vocabulary_size", label: "French vocabulary size"},
		{key: "num_steps", label: `padded length \(T\)`},
	},
	step: []fact{
		{key: "stage", label: "stage"},
		{key: "what", label: "what happens"},
		{key: "source_tokens", label: "English tokens"},
		{key: "target_tokens", label: "French tokens"},
		{key: "source_unk", label: "English <unk>"},
		{key: "target_unk", label: "French <unk>"},
		{key: "source_vocabulary_size", label: "English vocabulary size"},
		{key: "target_vocabulary_size", label: "French vocabulary size"},
		{key: "source_valid_length", label: "English valid length"},
		{key: "target_valid_length", label: "French valid length"},
		{key: "batch_size", label: "minibatch size B"},
	},
}
