package lessons

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// captionDefault is the image the page opens with: a held-out image on which
// approach 1 (h⁽⁰⁾ = x) swaps the two shapes' kinds and approaches 2 and 3 are right
// (TestCaptioningDefaultImage holds it).
const captionDefault = "red circle 1 1, blue triangle 3 1"

// captionTopK is how many words each approach's list shows at a step.
const captionTopK = 5

// captionImageMaxLen bounds the image's text: two shapes of the longest names,
// "yellow triangle 3 3, yellow triangle 2 3" is 40 characters.
const captionImageMaxLen = 64

// captionModel is the captioning lesson's sim.Model: the three bundled captioners
// (seed 002's approaches) each writing a caption of one image greedily, step t being
// the t-th word; the approach chosen by the page is shown in detail.
type captionModel struct {
	ms    []zoo.CaptionModel // the shared bundled models (read-only)
	scene data.Scene
	focus int                    // index into ms of the approach shown in detail
	runs  []*models.CaptionTrace // one per approach
	logp  [][]float64            // per approach, log P(y⁽¹⁾ … y⁽ᵗ⁾ | x) after each of its steps
	steps int                    // the longest run
}

func buildCaptioning(v sim.Values) (sim.Model, error) {
	text := v.String("image")
	if strings.TrimSpace(text) == "" {
		text = captionDefault
	}
	scene, err := data.ParseScene(text)
	if err != nil {
		return nil, err
	}
	ms, err := zoo.SharedCaptioners()
	if err != nil {
		return nil, err
	}
	a, err := strconv.Atoi(v.String("approach"))
	if err != nil || a < 1 || a > len(ms) {
		a = 1
	}
	m := &captionModel{ms: ms, scene: scene, focus: a - 1}
	for _, cm := range ms {
		tr, err := cm.Model.Greedy(scene.Render(), zoo.CaptionMaxSteps)
		if err != nil {
			return nil, err
		}
		lp, sum := make([]float64, len(tr.Steps)), 0.0
		for i, st := range tr.Steps {
			sum += math.Log(st.Probs[st.Output])
			lp[i] = sum
		}
		m.runs, m.logp = append(m.runs, tr), append(m.logp, lp)
		m.steps = max(m.steps, len(tr.Steps))
	}
	return m, nil
}

func (m *captionModel) Steps() int { return m.steps }

// Fork copies the page's state: the models are the shared read-only ones and the
// runs are never written after Build.
func (m *captionModel) Fork() (sim.Model, error) { c := *m; return &c, nil }

// word is a caption token id as text.
func captionWord(id int) string { return data.CaptionVocab.Token(id) }

// written is an approach's caption in words, without <eos>.
func (m *captionModel) written(i int) string {
	return strings.Join(data.CaptionVocab.Tokens(m.runs[i].Words()), " ")
}

// approachLabel names approach i (0-based) as the page's lists do.
func approachLabel(i int) string {
	return fmt.Sprintf("%d: %s", i+1, models.CaptionApproaches[i])
}

// sentenceBLEU is the caption's BLEU against the grammar's (uniform, N = 4, the
// add-one smoothing a single short sentence needs to score above 0 with a wrong word).
func (m *captionModel) sentenceBLEU(i int) float64 {
	res, err := models.SentenceBLEUTokens(data.CaptionVocab.Tokens(m.runs[i].Words()), [][]string{m.scene.Caption()},
		models.BLEUOptions{MaxN: 4, Weights: models.WeightsUniform, Smoothing: models.SmoothAddOne})
	if err != nil {
		return 0 // an empty caption: no n-grams
	}
	return res.BLEU
}

func (m *captionModel) Static() sim.Frame {
	ref := m.scene.Caption()
	answers := make([]any, m.steps)
	for t := range answers {
		switch {
		case t < len(ref):
			answers[t] = ref[t]
		case t == len(ref):
			answers[t] = models.EosToken
		}
	}
	run := m.runs[m.focus]
	tokens := make([]string, m.steps)
	for t := range tokens {
		if t < len(run.Steps) {
			tokens[t] = captionWord(run.Steps[t].Input)
		}
	}
	var shapes []map[string]any
	for _, sh := range m.scene.Shapes {
		shapes = append(shapes, map[string]any{"row": sh.Row, "col": sh.Col, "colour": data.SceneColours[sh.Colour], "shape": data.SceneShapes[sh.Kind]})
	}
	var rows []map[string]string
	for i := range m.ms {
		n := strconv.Itoa(i + 1)
		rows = append(rows, map[string]string{"label": approachLabel(i), "input": "input_" + n, "output": "output_" + n, "topk": "topk_" + n})
	}
	meta := map[string]any{
		"scene": shapes, "grid": data.SceneGrid, "colours": data.SceneColours, "shapes": data.SceneShapes, "param": "image",
		"dec_rows": rows, "tokens": tokens, "prompt_len": 1, "answers": answers, "vocab": data.CaptionVocab.List(),
		// prompt_len: <bos> is known from the start; each later input is the word written the step before
		"captions": m.captionTable(), "held_out": m.heldOutTable(),
		"image": m.scene.String(), "reference": m.scene.CaptionText(),
		"approach_shown": approachLabel(m.focus),
		"embed":          zoo.CaptionEmbed, "hidden": zoo.CaptionHidden, "vocab_size": data.CaptionVocab.Len(),
		"held_out_set": fmt.Sprintf("%d images never trained on (%d with one shape, %d with two)",
			int(m.ms[0].Meta.Float("held_out_images")), int(m.ms[0].Meta.Float("held_out_one")), int(m.ms[0].Meta.Float("held_out_two"))),
	}
	if data.SceneHeldOut(m.scene) {
		meta["seen"] = "no: a held-out image"
	} else {
		meta["seen"] = "yes: a training image"
	}
	for i, cm := range m.ms {
		n := strconv.Itoa(i + 1)
		verdict := "right"
		if m.written(i) != m.scene.CaptionText() {
			verdict = "wrong"
		}
		meta["caption_"+n] = fmt.Sprintf("“%s”, %s", m.written(i), verdict)
		meta["held_out_bleu_"+n] = cm.Meta.Float("held_out_bleu")
		meta["held_out_exact_"+n] = cm.Meta.Float("held_out_exact")
	}
	return sim.Frame{Meta: meta}
}

func (m *captionModel) At(t int) sim.Frame {
	ref := m.scene.Caption()
	meta := map[string]any{}
	switch {
	case t <= len(ref):
		meta["label"] = ref[t-1]
	case t == len(ref)+1:
		meta["label"] = models.EosToken
	}
	var arrays []sim.Array
	for i, run := range m.runs {
		n := strconv.Itoa(i + 1)
		k := min(t, len(run.Steps)) - 1 // a finished run stays at its last step
		arrays = append(arrays, sim.Vector("logp_"+n, []float64{m.logp[i][k]}))
		if t > len(run.Steps) {
			meta["output_"+n] = "finished: wrote <eos>"
			meta["written_"+n] = "finished"
			continue
		}
		st := run.Steps[t-1]
		var top []tokenProb
		for _, tp := range st.TopK(captionTopK) {
			top = append(top, tokenProb{Token: captionWord(tp.ID), P: sig4(tp.Prob)})
		}
		meta["topk_"+n], meta["input_"+n], meta["output_"+n] = top, captionWord(st.Input), captionWord(st.Output)
		meta["written_"+n] = fmt.Sprintf("%s (ŷ = %.3f)", captionWord(st.Output), st.Probs[st.Output])
	}
	run := m.runs[m.focus]
	k := min(t, len(run.Steps)) - 1
	st := run.Steps[k]
	if t <= len(run.Steps) {
		meta["prediction"] = captionWord(st.Output)
		if l, ok := meta["label"]; ok {
			meta["correct"] = l == captionWord(st.Output)
		}
		meta["input"] = fmt.Sprintf("y%s = %s", script("("+strconv.Itoa(t-1)+")", false), captionWord(st.Input))
	} else {
		meta["input"] = "none: the caption has ended"
	}
	arrays = append(arrays,
		sim.Vector("x", slices.Clone(run.X)),
		sim.Vector("h", mat1(st.Decoder.Next.H.RawRowView(0))),
		sim.Vector("P", slices.Clone(st.Probs)),
	)
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// mat1 copies a row.
func mat1(r []float64) []float64 { return slices.Clone(r) }

// captionTable is the grammar's caption and each approach's, word by word, marked
// right (green) where the word is the grammar's at that position, else wrong (red).
func (m *captionModel) captionTable() table {
	ref := m.scene.Caption()
	tab := table{Title: "the captions written word by word, against the grammar's caption"}
	row := tableRow{Label: "grammar"}
	for _, w := range ref {
		row.Cells = append(row.Cells, tableCell{Text: w})
	}
	tab.Rows = append(tab.Rows, row)
	for i := range m.runs {
		r := tableRow{Label: approachLabel(i)}
		for j, w := range data.CaptionVocab.Tokens(m.runs[i].Words()) {
			mark := "unk"
			if j < len(ref) && ref[j] == w {
				mark = "on"
			}
			r.Cells = append(r.Cells, tableCell{Text: w, Mark: mark})
		}
		if len(r.Cells) == 0 {
			r.Cells = []tableCell{{Text: "(nothing)", Mark: "unk"}}
		}
		tab.Rows = append(tab.Rows, r)
	}
	return tab
}

// heldOutTable is each approach's held-out BLEU and exact match, as recorded in its
// checkpoint by cmd/train, and this image's sentence BLEU.
func (m *captionModel) heldOutTable() table {
	f := func(x float64) tableCell { return tableCell{Text: fmt.Sprintf("%.3f", x)} }
	meta := m.ms[0].Meta
	tab := table{
		Title: fmt.Sprintf("held-out images (%s never trained on): corpus BLEU and exact match; this image's BLEU",
			meta["held_out_images"]),
		Head: []string{"BLEU", "exact", fmt.Sprintf("exact, 1 shape (%s)", meta["held_out_one"]), fmt.Sprintf("exact, 2 shapes (%s)", meta["held_out_two"]), "this image"},
	}
	for i, cm := range m.ms {
		tab.Rows = append(tab.Rows, tableRow{Label: approachLabel(i), Cells: []tableCell{
			f(cm.Meta.Float("held_out_bleu")), f(cm.Meta.Float("held_out_exact")),
			f(cm.Meta.Float("held_out_exact_one")), f(cm.Meta.Float("held_out_exact_two")), f(m.sentenceBLEU(i)),
		}})
	}
	return tab
}

// logpSeries is each approach's log P(y⁽¹⁾ … y⁽ᵗ⁾ | x), the export of the page's line panel.
func logpSeries(sm sim.Model) []Series {
	m := sm.(*captionModel)
	var out []Series
	for i, lp := range m.logp {
		s := Series{Label: approachLabel(i)}
		for t := range m.steps {
			s.X, s.Y = append(s.X, float64(t+1)), append(s.Y, lp[min(t, len(lp)-1)])
		}
		out = append(out, s)
	}
	return out
}

// captionStepTeX is the decoder's step in each approach (seed 002's three).
var captionStepTeX = map[string]string{
	"1": `\htmlClass{sym-h}{h^{(t)}} = \mathrm{GRU}\big(e(y^{(t-1)}),\ h^{(t-1)}\big), \quad h^{(0)} = \htmlClass{sym-x}{x}`,
	"2": `\htmlClass{sym-h}{h^{(t)}} = \mathrm{GRU}\big([e(y^{(t-1)});\ \htmlClass{sym-x}{x}],\ h^{(t-1)}\big), \quad h^{(0)} = 0`,
	"3": `\htmlClass{sym-h}{h^{(t)}} = \mathrm{GRU}\big([e(y^{(t-1)});\ \htmlClass{sym-x}{x}],\ h^{(t-1)}\big), \quad h^{(0)} = x`,
}

var captioningLesson = &Lesson{
	Slug:    "captioning",
	Short:   "Captioning",
	Section: "003", // seed 003's image captioning follows its sentiment classification; the three approaches are seed 002's "vector to sequence"
	Title:   "Image captioning: vector to sequence",
	Summary: "One vector x, a whole sentence out: a GRU writes a caption of a drawn image, with x as its first state, as an input at every step, or both.",
	Prose: []string{
		`Some tasks have a single vector as input and a sequence as output: a caption for an image, or the decoder of a sequence-to-sequence model reading the encoder's summary. Here the images are tiny: one or two coloured shapes on a 3 × 3 grid, drawn as a 15 × 15 picture with three colour channels, so \(v\) has 675 numbers. A dense layer with a tanh turns \(v\) into a vector \(x\) of 32 numbers, and a GRU with 32 units writes the caption word by word, each word fed back as the next step's input, until it writes <i>&lt;eos&gt;</i>.`,
		`How should the decoder get \(x\)? The lecture lists three answers, and each is a model here, trained the same way: <b>1</b>, make \(x\) the first state \(h^{(0)}\) and let the recurrence carry it; <b>2</b>, start from \(h^{(0)} = 0\) and feed \(x\) at every step next to the previous word; <b>3</b>, both. In approach 1 the state must hold on to everything about the image while it also tracks where the sentence is; in approaches 2 and 3 the image is read again at each word. Pick which one the heatmap and the equations show; the lists of the most probable words always show all three side by side at the same step.`,
		`Each caption comes from a grammar: one shape is placed by its cell (“a red circle at the top left”, “… in the centre”), two shapes by how they stand (“a red circle left of a blue square”, the left one first, or “… above …” when they share a column, the top one first), so every image has exactly one right caption. A fifth of all images, chosen once by a hash, is never trained on: the table gives each model's corpus BLEU and exact match on them. Held-out images with one shape are the hardest: single shapes are rare in the world, and a held-out one puts a colour, a kind and a cell together that no training image did.`,
		`<b>Draw your own image</b>: pick a colour and a shape under the grid, then click a cell to put it there (click it again to take it away); at most two shapes. Or type it in the image field, or try: <a href="?image=red+circle+1+1%2C+blue+triangle+3+1">a held-out pair in one column</a>, <a href="?image=green+square+2+2">one shape in the centre</a>, <a href="?image=red+square+1+1">a held-out single shape</a>, <a href="?image=yellow+circle+1+1%2C+red+triangle+2+3">a pair on a diagonal</a>.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-x}{x} = \tanh(v\, W_v + b_v)`, Symbols: []Symbol{{ID: "x", Array: "x"}}},
		{TeX: captionStepTeX["1"], Symbols: []Symbol{{ID: "h", Array: "h"}, {ID: "x", Array: "x"}}, Param: "approach", Variants: captionStepTeX},
		{TeX: `\htmlClass{sym-P}{\hat y^{(t)}} = \mathrm{softmax}(o^{(t)}), \quad o^{(t)} = h^{(t)} V + c, \quad y^{(t)} = \arg\max \hat y^{(t)}`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\htmlClass{sym-logp}{\log P(y^{(1)}, \dots, y^{(t)} \mid x)} = \sum_{s=1}^{t} \log \hat y^{(s)}_{y^{(s)}}`, Symbols: []Symbol{{ID: "logp", Array: "logp_1"}}},
	},
	Arrays: []Array{
		{Name: "x", Label: `\(x\)`, Axes: []Axis{Units}, PerStep: true, Scale: []float64{-1, 1}},
		{Name: "h", Label: "h⁽ᵗ⁾", Axes: []Axis{Units}, PerStep: true, Scale: []float64{-1, 1}},
		{Name: "P", Label: "ŷ⁽ᵗ⁾", Axes: []Axis{Vocabulary}, PerStep: true, Scale: []float64{0, 1}, Labels: "vocab"},
		{Name: "logp_1", Label: "log P(y⁽¹⁾ … y⁽ᵗ⁾ | x), approach 1", Axes: []Axis{Scalar}, PerStep: true},
		{Name: "logp_2", Label: "log P(y⁽¹⁾ … y⁽ᵗ⁾ | x), approach 2", Axes: []Axis{Scalar}, PerStep: true},
		{Name: "logp_3", Label: "log P(y⁽¹⁾ … y⁽ᵗ⁾ | x), approach 3", Axes: []Axis{Scalar}, PerStep: true},
	},
	Stage: []string{"scene", "captions"},
	Panels: []Panel{
		{ID: "scene", Kind: Scene, Title: `the image \(v\)`, Static: []string{"scene", "grid", "colours", "shapes", "param"},
			Note: "To draw: pick a colour and a shape under the grid, click an empty cell to place it, a filled one to take its shape away. At most two shapes, as in the grammar."},
		{ID: "topks", Static: []string{"dec_rows"}, Meta: []string{"topk_1", "topk_2", "topk_3", "input_1", "input_2", "input_3", "output_1", "output_2", "output_3", "label"},
			Kind: TopKs, Title: `\(\hat y^{(t)}\): the five most probable words under each approach`, Arrays: []string{"P"}, Symbol: "P",
			Note: "Each approach feeds back its own word, so after a mistake the three read different inputs. The grammar's word is outlined."},
		{ID: "captions", Static: []string{"captions"}, Kind: Table, Title: "the three captions of this image", Also: []string{"P"}},
		{ID: "tokens", Static: []string{"tokens", "answers", "prompt_len"}, Meta: []string{"prediction", "correct"}, Kind: Tokens, Title: "the chosen approach: input y⁽ᵗ⁻¹⁾, the grammar's word, the word written", Arrays: []string{"h"}},
		{ID: "h", Static: []string{"tokens", "prompt_len"}, Kind: Heatmap, Title: `the chosen approach's state \(h^{(t)}\), units × steps`, Arrays: []string{"h"}, Scale: []float64{-1, 1}, Symbol: "h",
			Note: "After <eos> the caption has ended and the state no longer changes."},
		{ID: "x", Kind: Bars, Title: `the image's vector \(x\) (the chosen approach's encoder)`, Arrays: []string{"x"}, Scale: []float64{-1, 1}, Symbol: "x"},
		{ID: "logp", Kind: Line, Title: `\(\log P(y^{(1)}, \dots, y^{(t)} \mid x)\) of the caption written so far`, Arrays: []string{"logp_1", "logp_2", "logp_3"},
			Legend: []string{"1: h⁽⁰⁾ = x", "2: x at every step", "3: both"}, Symbol: "logp",
			Note: "Flat where a model is sure of its word; a drop is a word it hesitated over."},
		{ID: "held_out", Static: []string{"held_out"}, Kind: Table, Title: "held-out BLEU and exact match of each approach", Also: []string{"P"},
			Note: "Recorded in each checkpoint by go run ./cmd/train -only captioning, recomputed by the tests."},
	},
	Params: sim.Specs{
		{Name: "image", Label: "image", Kind: sim.Text, MaxLen: captionImageMaxLen, Default: captionDefault,
			MaxLenWhy: "an image has at most two shapes, and two of the longest take 40 characters",
			Help:      "Shapes separated by commas, each “colour shape row column”, e.g. “red circle 1 1, blue square 2 3”; rows and columns from 1 to 3."},
		{Name: "approach", Label: "approach shown in detail (seed 002's 1, 2 or 3)", Kind: sim.Choice, Default: "1", Choices: []string{"1", "2", "3"},
			Help: "1: x initialises h⁽⁰⁾; 2: x is an input at every step; 3: both. The lists and tables always show all three."},
	},
	Plots: []Plot{
		{Name: "logp", Title: `\(\log P(y^{(1)}, \dots, y^{(t)} \mid x)\) of each approach's caption`, XLabel: `step \(t\)`, YLabel: `\(\log P\)`, Series: logpSeries},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/captioning.html"), Scripts: []string{captioningScript},
		Companions: []Companion{
			{"approach-1", pyTorchHTML("notes/captioning-approach-1.html")},
			{"approach-2", pyTorchHTML("notes/captioning-approach-2.html")},
			{"approach-3", pyTorchHTML("notes/captioning-approach-3.html")},
		}},
	Build:   buildCaptioning,
	Facts:   captioningFacts,
	Largest: sim.Values{"image": "yellow triangle 1 1, yellow triangle 1 3"}, // the longest caption
	// three greedy captions of at most 18 steps, with every step's trace, and the tables
	SessionBytes: 256 << 10,
}

// captioningFacts labels the page's facts in the lecture's words.
var captioningFacts = factTable{
	static: []fact{
		{key: "image", label: "image v"},
		{key: "seen", label: "seen in training"},
		{key: "reference", label: "the grammar's caption"},
		{key: "caption_1", label: "caption, approach 1: h⁽⁰⁾ = x"},
		{key: "caption_2", label: "caption, approach 2: x at every step"},
		{key: "caption_3", label: "caption, approach 3: both"},
		{key: "held_out_bleu_1", label: "held-out BLEU, approach 1", measured: true},
		{key: "held_out_bleu_2", label: "held-out BLEU, approach 2", measured: true},
		{key: "held_out_bleu_3", label: "held-out BLEU, approach 3", measured: true},
		{key: "held_out_exact_1", label: "held-out exact match, approach 1", measured: true},
		{key: "held_out_exact_2", label: "held-out exact match, approach 2", measured: true},
		{key: "held_out_exact_3", label: "held-out exact match, approach 3", measured: true},
		{key: "held_out_set", label: "held-out set"},
		{key: "approach_shown", label: "approach shown in detail"},
		{key: "embed", label: "word embedding size e"},
		{key: "hidden", label: "GRU units h, the size of x"},
		{key: "vocab_size", label: "vocabulary size V"},
	},
	step: []fact{
		{key: "input", label: "input of the chosen approach"},
		{key: "label", label: "the grammar's word", keep: true},
		{key: "written_1", label: "written, approach 1"},
		{key: "written_2", label: "written, approach 2"},
		{key: "written_3", label: "written, approach 3"},
		{key: "prediction", label: `chosen approach's \(y^{(t)}\)`, keep: true},
	},
}
