package lessons

import (
	"fmt"
	"math"
	"slices"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// birnnDefault is the sentence the page opens with: the lecture's third example,
// where only the end of the sentence says the blank is "very".
const birnnDefault = "i am ___ hungry and i can eat half a pig ."

// birnnModel is the birnn lesson's sim.Model: a unidirectional and a bidirectional
// RNN reading one sentence. Step s is the forward cells' s-th step (time s) and the
// backward cell's s-th step (time T − s + 1): both passes start at their own end.
type birnnModel struct {
	uni, bi *zoo.FillBlank
	meta    [2]zoo.Meta // the checkpoints' metadata: unidirectional, bidirectional
	ids     []int
	blank   int // 0-based position of ___
	text    string
	seed    uint64
	runs    *[2]zoo.BlankRun  // nil when the weights changed since the last run
	pair    *zoo.NextWordPair // the bundled next-word models, shared and read-only
	next    *nextWordRun      // the next-word models' guesses on this sentence, computed once

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
}

func buildBirnn(v sim.Values) (sim.Model, error) {
	text := v.String("sentence")
	if text == "" {
		text = birnnDefault
	}
	ids, err := data.ParseBlank(text)
	if err != nil {
		return nil, err
	}
	// The bundled models are shared and read-only; TrainStep replaces both by fresh weights.
	uni, mu, err := zoo.SharedFillBlank(false)
	if err != nil {
		return nil, err
	}
	bi, mb, err := zoo.SharedFillBlank(true)
	if err != nil {
		return nil, err
	}
	pair, err := zoo.SharedNextWordPair()
	if err != nil {
		return nil, err
	}
	return &birnnModel{uni: uni, bi: bi, meta: [2]zoo.Meta{mu, mb}, pair: pair, ids: ids,
		blank: slices.Index(ids, 0), text: text, seed: uint64(v.Int("seed"))}, nil
}

func (m *birnnModel) run() *[2]zoo.BlankRun {
	if m.runs == nil {
		m.runs = &[2]zoo.BlankRun{m.uni.Run(m.ids, m.blank), m.bi.Run(m.ids, m.blank)}
	}
	return m.runs
}

func (m *birnnModel) Steps() int { return len(m.ids) }

// nextWordRun is what the bundled next-word models (zoo.SharedNextWordPair) predict for
// x_{t+1}, t = 1 … T−1, on the page's sentence: the unidirectional model; the
// bidirectional one with the whole sentence in its input, as in training; and the
// bidirectional one from x_1 … x_t only, as when it generates.
type nextWordRun struct {
	uni, biFull, biPrefix [][]float64
}

func (m *birnnModel) nextWords() *nextWordRun {
	if m.next == nil {
		p := m.pair
		m.next = &nextWordRun{uni: p.Uni.Predict(m.ids), biFull: p.Bi.Predict(m.ids), biPrefix: p.Bi.PredictPrefix(m.ids)}
	}
	return m.next
}

// dependencePairs counts the pairs (ŷ_t, x_s) of the sentence ids for which the next-word
// output ŷ_t of each shared model (unidirectional, bidirectional) changes when the
// word x_s is replaced by another: the pairs a gradient path joins, measured on the
// models rather than assumed. A unidirectional RNN's ŷ_t reads x_1 … x_t only; a
// bidirectional one's reads every word.
func dependencePairs(p *zoo.NextWordPair, ids []int) (uni, bi int) {
	count := func(m *zoo.NextWord) int {
		base := m.Outputs(ids) // ŷ_t for t = 1 … T
		n := 0
		for s := range ids {
			alt := slices.Clone(ids)
			alt[s] = (ids[s] + 1) % len(data.BlankVocab)
			changed := m.Outputs(alt)
			for t := range ids {
				if !slices.Equal(changed[t], base[t]) {
					n++
				}
			}
		}
		return n
	}
	return count(p.Uni), count(p.Bi)
}

// ready is the first step at which each model's prediction for the blank exists:
// the unidirectional one when its forward pass reaches the blank, the bidirectional
// one when both passes have.
func (m *birnnModel) ready() (uni, bi int) {
	T, b := len(m.ids), m.blank+1
	return b, max(b, T-b+1)
}

func topWord(p []float64) (string, float64) {
	k := models.Argmax(p)
	return data.BlankAnswers[k], round4(p[k])
}

func (m *birnnModel) Static() sim.Frame {
	tokens := make([]string, len(m.ids))
	for i, id := range m.ids {
		tokens[i] = data.BlankVocab[id]
	}
	answers := make([]any, len(m.ids))
	runs := m.run()
	uw, up := topWord(runs[0].Probs)
	bw, bp := topWord(runs[1].Probs)
	meta := map[string]any{
		"tokens": tokens, "input": m.text, "vocab": data.BlankAnswers, "hidden": zoo.BlankHidden,
		"unidirectional": fmt.Sprintf("%s (p = %.3f)", uw, up),
		"bidirectional":  fmt.Sprintf("%s (p = %.3f)", bw, bp),
		"blank_position": m.blank + 1,
	}
	if a := data.BlankAnswerOf(m.ids, m.blank); a >= 0 {
		answers[m.blank] = data.BlankAnswers[a]
		meta["answer"] = data.BlankAnswers[a]
	} else {
		meta["answer"] = "not a sentence of the training grammar: no right answer known"
	}
	meta["answers"] = answers
	nw := m.pair
	meta["next_word_training"] = fmt.Sprintf("unidirectional %.3f (%.0f%% right), bidirectional %.3f (%.0f%% right)",
		nw.UniFull.Loss, 100*nw.UniFull.Accuracy, nw.BiFull.Loss, 100*nw.BiFull.Accuracy)
	meta["next_word_generating"] = fmt.Sprintf("unidirectional %.3f (%.0f%% right), bidirectional %.3f (%.0f%% right)",
		nw.UniPrefix.Loss, 100*nw.UniPrefix.Accuracy, nw.BiPrefix.Loss, 100*nw.BiPrefix.Accuracy)
	T := len(m.ids)
	uniDeps, biDeps := dependencePairs(m.pair, m.ids)
	meta["dependencies"] = fmt.Sprintf("unidirectional %d, bidirectional %d of T² = %d", uniDeps, biDeps, T*T)
	meta["cell_steps"] = fmt.Sprintf("unidirectional 2T = %d, bidirectional 4T = %d", 2*T, 4*T)
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoints"
		meta["held_out_accuracy_unidirectional"] = m.meta[0].Float("accuracy")
		meta["held_out_accuracy_bidirectional"] = m.meta[1].Float("accuracy")
		meta["held_out_chance"] = m.meta[1].Float("chance")
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	return sim.Frame{Meta: meta}
}

func (m *birnnModel) At(t int) sim.Frame {
	runs := m.run()
	T := len(m.ids)
	uniReady, biReady := m.ready()
	meta := map[string]any{
		"forward_reads":  fmt.Sprintf("x%s = %s", subscript(t), data.BlankVocab[m.ids[t-1]]),
		"backward_reads": fmt.Sprintf("x%s = %s", subscript(T-t+1), data.BlankVocab[m.ids[T-t]]),
	}
	arrays := []sim.Array{
		sim.Vector("H_uni", runs[0].Fwd[t-1]),
		sim.Vector("H_fwd", runs[1].Fwd[t-1]),
		sim.Vector("H_bwd", runs[1].Bwd[T-t]), // ←H_{T−t+1}: the backward pass's t-th step
	}
	if t < T {
		nw := m.nextWords()
		guess := func(p []float64) string {
			k := models.Argmax(p)
			return fmt.Sprintf("%s (p = %.3f)", data.BlankVocab[k], p[k])
		}
		meta["next_word"] = fmt.Sprintf("x%s = %s", subscript(t+1), data.BlankVocab[m.ids[t]])
		meta["next_uni"] = guess(nw.uni[t-1])
		meta["next_bi_full"] = guess(nw.biFull[t-1])
		meta["next_bi_prefix"] = guess(nw.biPrefix[t-1])
	}
	if t >= uniReady {
		arrays = append(arrays, sim.Vector("P_uni", runs[0].Probs))
		w, p := topWord(runs[0].Probs)
		meta["unidirectional"] = fmt.Sprintf("%s (p = %.3f)", w, p)
	} else {
		meta["unidirectional"] = "has not reached the blank yet"
	}
	if t >= biReady {
		b := m.blank
		arrays = append(arrays, sim.Vector("H_cat", append(slices.Clone(runs[1].Fwd[b]), runs[1].Bwd[b]...)),
			sim.Vector("P_bi", runs[1].Probs))
		w, p := topWord(runs[1].Probs)
		meta["bidirectional"] = fmt.Sprintf("%s (p = %.3f)", w, p)
	} else {
		meta["bidirectional"] = fmt.Sprintf("waits for both passes to reach the blank (step %d)", biReady)
	}
	return sim.Frame{Arrays: arrays, Meta: meta}
}

// TrainStep trains both models from scratch: the first call replaces the bundled
// weights by fresh ones drawn from the seed, then every call is one minibatch of
// Adam for each model. The loss reported is the bidirectional model's.
func (m *birnnModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() { m.uni, m.bi = zoo.NewFillBlank(false, m.seed), zoo.NewFillBlank(true, m.seed+1) })
	uniLoss, uniAcc := m.uni.TrainStep(rng)
	loss, acc := m.bi.TrainStep(rng)
	m.runs = nil
	if math.IsNaN(uniLoss) {
		loss = uniLoss // either model diverging ends the training
	}
	return m.progress(loss, map[string]any{"accuracy": round4(acc),
		"unidirectional_loss": round4(uniLoss), "unidirectional_accuracy": round4(uniAcc)})
}

// rightContextSeries is the probability each model gives the bidirectional model's
// final answer when only the first k words after the blank are there, k = 0..T−b.
func rightContextSeries(sm sim.Model) []Series {
	m := sm.(*birnnModel)
	target := models.Argmax(m.run()[1].Probs)
	if a := data.BlankAnswerOf(m.ids, m.blank); a >= 0 {
		target = a
	}
	uni := Series{Label: "unidirectional"}
	bi := Series{Label: "bidirectional"}
	for k := 0; m.blank+1+k <= len(m.ids); k++ {
		ids := m.ids[:m.blank+1+k]
		uni.X, bi.X = append(uni.X, float64(k)), append(bi.X, float64(k))
		uni.Y = append(uni.Y, m.uni.Run(ids, m.blank).Probs[target])
		bi.Y = append(bi.Y, m.bi.Run(ids, m.blank).Probs[target])
	}
	return []Series{bi, uni}
}

// nextWordSeries is the probability the next-word models give the sentence's true
// x_{t+1} at each t: the unidirectional model, and the bidirectional one with the
// whole sentence in and with x_1 … x_t only.
func nextWordSeries(sm sim.Model) []Series {
	m := sm.(*birnnModel)
	nw := m.nextWords()
	out := []Series{{Label: "bidirectional, whole sentence in"}, {Label: "bidirectional, words so far"}, {Label: "unidirectional"}}
	for t := 1; t < len(m.ids); t++ {
		y := m.ids[t]
		for i, p := range [][]float64{nw.biFull[t-1], nw.biPrefix[t-1], nw.uni[t-1]} {
			out[i].X, out[i].Y = append(out[i].X, float64(t)), append(out[i].Y, p[y])
		}
	}
	return out
}

// nextWordTrainingSeries is the training loss of the bundled next-word models, step
// by step: the bidirectional one falls towards zero, the unidirectional one stays
// where the words so far leave it.
func nextWordTrainingSeries(sm sim.Model) []Series {
	p := sm.(*birnnModel).pair
	bi, uni := Series{Label: "bidirectional"}, Series{Label: "unidirectional"}
	for i := range p.BiLoss {
		bi.X, bi.Y = append(bi.X, float64(i+1)), append(bi.Y, p.BiLoss[i])
		uni.X, uni.Y = append(uni.X, float64(i+1)), append(uni.Y, p.UniLoss[i])
	}
	return []Series{bi, uni}
}

var birnnLesson = &Lesson{
	Slug:    "birnn",
	Short:   "Bidirectional",
	Section: "4.5",
	Title:   "Bidirectional RNNs",
	Summary: "Fill in “I am ___ hungry”: a left-to-right RNN can only guess, a bidirectional one reads the end of the sentence and knows.",
	Prose: []string{
		`Every RNN so far reads left to right, so its state at step \(t\) knows \(X_1, \dots, X_t\) and nothing after. That is right for predicting the next word, but not for filling in a blank: in “I am ___ hungry, and I can eat half a pig” the word is <i>very</i>, in “I am ___ hungry, I just ate” it is <i>not</i>, and in “I am ___.” perhaps <i>happy</i>. What comes before the blank is the same each time; only what comes after decides.`,
		`A <b>bidirectional RNN</b> runs two RNNs over the sentence: a forward one \(\overrightarrow{H}_t\) from the first word to the last, and a backward one \(\overleftarrow{H}_t\) from the last word to the first, each with its own weights. At every position the two states are put side by side, \(H_t = [\overrightarrow{H}_t, \overleftarrow{H}_t]\), so the output at \(t\) sees the whole sentence: the past through the forward state, the future through the backward one. The price: nothing can be output until the whole input has been read, so it suits tagging and encoding a finished sentence, not generating one word at a time.`,
		`The idea is older than RNNs. In a hidden Markov model a hidden state \(h_t\) emits the word \(x_t\) with probability \(P(x_t \mid h_t)\) and moves on with \(P(h_{t+1} \mid h_t)\). To ask how likely each hidden state is at step \(t\) given the whole sequence, dynamic programming runs two recursions: a forward one that sums over all paths through \(x_1, \dots, x_t\), and a backward one that sums over all paths through \(x_T, \dots, x_{t+1}\); their product at \(t\), normalised, is \(P(h_t \mid x_1, \dots, x_T)\) (the forward–backward algorithm). A bidirectional RNN keeps the shape, one recursion from each end meeting at every step, but replaces the probability tables by learned functions: \(\overrightarrow{H}_t\) and \(\overleftarrow{H}_t\) mean nothing statistically, they are whatever features training makes useful.`,
		`Both models here were trained on the same generated sentences: a subject (“i am”, “she is”, “my dog is”, …), the blank, and an ending that decides the word (<i>very</i>, <i>not</i>, <i>happy</i> or <i>sad</i>). Some endings start alike (“hungry and i can eat…” vs “hungry because i just ate”), so a model has to read beyond the next word. Step through: the forward pass fills its heatmap from the left, the backward pass from the right. The unidirectional model must answer when it reaches the blank and can only guess; the bidirectional answer exists once both passes have reached the blank. On sentences held out of training the bidirectional model is right every time. The unidirectional one does worse than simply always giving the commonest answer (the chance level in the facts): nothing before the blank tells it which answer the sentence needs.`,
		fmt.Sprintf(`<b>Why it cannot be a language model.</b> Trained to predict the next word, a bidirectional RNN cheats: \(\overleftarrow{H}_t\) is computed from \(x_T, \dots, x_{t+1}, x_t\), so the word to predict is already in its input. To show it, a unidirectional and a bidirectional next-word model were trained on the same sentences (%d minibatches each, bundled with the page). The facts give their loss on the held-out sentences: with the whole sentence in, the bidirectional loss is close to zero and far below the unidirectional one. Generating is another matter: then only \(x_1, \dots, x_t\) exist, the backward pass starts at \(x_t\), and the bidirectional model does worse than the unidirectional one. Step through to see each model's guess for \(x_{t+1}\); the export plots draw the probability each gives the true next word, and both models' training loss.`, zoo.NextWordSteps),
		`<b>The price of looking both ways.</b> Every output now depends on every word: the gradient from \(\hat y_t\) runs back through \(t-1\) steps of the forward pass and \(T-t\) of the backward one, so each output's gradient covers the whole sequence, and a training pass runs both RNNs forward and back, \(4T\) cell steps against \(2T\). The facts count on your sentence, by changing one word at a time in the next-word models, the pairs \((\hat y_t, x_s)\) that are joined: \(T(T+1)/2\) for the unidirectional model, all \(T^2\) for the bidirectional one. Nothing can be computed until the whole input is there.`,
		`Type your own sentence with ___ (only words of the training sentences are known). The export plot shows how the probability of the answer grows as more words after the blank are kept: the unidirectional model's line does not move, because those words come after its answer. <b>Train from scratch</b> retrains both models live from random weights.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-H_fwd}{\overrightarrow{H}_t} = \phi(X_t W_{xh}^{(f)} + \overrightarrow{H}_{t-1} W_{hh}^{(f)} + b_h^{(f)})`, Symbols: []Symbol{{ID: "H_fwd", Array: "H_fwd"}}},
		{TeX: `\htmlClass{sym-H_bwd}{\overleftarrow{H}_t} = \phi(X_t W_{xh}^{(b)} + \overleftarrow{H}_{t+1} W_{hh}^{(b)} + b_h^{(b)})`, Symbols: []Symbol{{ID: "H_bwd", Array: "H_bwd"}}},
		{TeX: `\htmlClass{sym-H_cat}{H_t} = [\overrightarrow{H}_t, \overleftarrow{H}_t], \qquad \htmlClass{sym-P_bi}{\hat y} = \mathrm{softmax}(H_t W_{hq} + b_q)`, Symbols: []Symbol{{ID: "H_cat", Array: "H_cat"}, {ID: "P_bi", Array: "P_bi"}}},
		{TeX: `\mathrm{unidirectional}\colon\ \htmlClass{sym-H_uni}{H_t} = \phi(X_t W_{xh} + H_{t-1} W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H_uni", Array: "H_uni"}}},
		{TeX: `\htmlClass{sym-P_uni}{\hat y} = \mathrm{softmax}(H_t W_{hq} + b_q)`, Symbols: []Symbol{{ID: "P_uni", Array: "P_uni"}}},
	},
	Arrays: []Array{
		{Name: "H_fwd", Label: `\(\overrightarrow{H}_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_bwd", Label: `\(\overleftarrow{H}_t\)`, Axes: []Axis{Units}, PerStep: true, Dir: Backward},
		{Name: "H_cat", Label: `\([\overrightarrow{H}_t; \overleftarrow{H}_t]\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P_uni", Label: `\(\hat{y}\) (unidirectional)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "P_bi", Label: `\(\hat{y}\) (bidirectional)`, Axes: []Axis{Vocabulary}, PerStep: true, Labels: "vocab"},
		{Name: "H_uni", Label: `\(H_t\) (unidirectional)`, Axes: []Axis{Units}, PerStep: true},
	},
	Loss:  "loss_curve",
	Stage: []string{"tokens", "graph"},
	Panels: []Panel{
		{ID: "tokens", Static: []string{"tokens", "answers"}, Kind: Tokens, Title: "sentence", Arrays: []string{"H_fwd", "H_bwd"}, // marks both passes' current tokens
			Note: "The blank's right answer is under it when the sentence is one the task generates."},
		{ID: "graph", Static: []string{"tokens"}, Kind: Graph, Title: "forward and backward passes", Arrays: []string{"H_fwd", "H_bwd"}, Scale: []float64{-1, 1},
			Note: `The forward row fills from the left, the backward row from the right; \(o_t\) needs both, so an output appears once the two passes have crossed at \(t\). Each \(x_t\) feeds both rows.`},
		{ID: "H_fwd", Static: []string{"tokens"}, Kind: Heatmap, Title: `forward state \(\overrightarrow{H}_t\)`, Arrays: []string{"H_fwd"}, Scale: []float64{-1, 1}, Symbol: "H_fwd"},
		{ID: "H_bwd", Static: []string{"tokens"}, Kind: Heatmap, Title: `backward state \(\overleftarrow{H}_t\)`, Arrays: []string{"H_bwd"}, Scale: []float64{-1, 1}, Symbol: "H_bwd",
			Note: "Step s computes the state at time T − s + 1: this pass starts at the end."},
		{ID: "H_cat", Kind: Bars, Title: `\(H_t = [\overrightarrow{H}_t, \overleftarrow{H}_t]\) at the blank`, Arrays: []string{"H_cat"}, Scale: []float64{-1, 1}, Symbol: "H_cat",
			Note: "Available once both passes have reached the blank; the first half is forward, the second backward."},
		{ID: "P_uni", Kind: TopK, Title: `unidirectional \(\hat y\) at the blank`, Arrays: []string{"P_uni"}, Symbol: "P_uni",
			Note: "It has seen only the words before the blank."},
		{ID: "P_bi", Kind: TopK, Title: `bidirectional \(\hat y\) at the blank`, Arrays: []string{"P_bi"}, Symbol: "P_bi"},
		{ID: "H_uni", Static: []string{"tokens"}, Kind: Heatmap, Title: `unidirectional state \(H_t\)`, Arrays: []string{"H_uni"}, Scale: []float64{-1, 1}, Symbol: "H_uni"},
	},
	Params: sim.Specs{
		{Name: "sentence", Label: "sentence with a blank", Kind: sim.Text, MaxLen: 120, MaxLenWhy: "the model was trained on short sentences, and each word is a column of the heatmaps", Default: birnnDefault,
			Help: "Lower-case words of the training sentences and exactly one blank “___”, e.g. “she is ___ to see you go .”"},
		seedSpec(1, "The random start of training from scratch."),
	},
	Plots: []Plot{
		{Name: "right-context", Title: `\(P\)(answer) with \(k\) words after the blank`, XLabel: `words after the blank \(k\)`, YLabel: "probability of the answer",
			Series: rightContextSeries},
		{Name: "next-word", Title: `next-word models: \(P(x_{t+1})\) at each \(t\)`, XLabel: `step \(t\)`, YLabel: `probability of the true \(x_{t+1}\)`,
			Series: nextWordSeries},
		{Name: "next-word-training", Title: `next-word models: training loss per minibatch`, XLabel: "training step", YLabel: `mean \(-\log \hat{y}_t[x_{t+1}]\) (nats)`,
			Series: nextWordTrainingSeries},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/birnn.html"), Scripts: []string{nnScript},
		Companions: []Companion{
			{"unidirectional", pyTorchHTML("notes/birnn-unidirectional.html")},
			{"next-uni", pyTorchHTML("notes/birnn-next-uni.html")},
			{"next-bi", pyTorchHTML("notes/birnn-next-bi.html")},
		}},
	Build:  buildBirnn,
	Facts:  birnnFacts,
	Trains: true,
	// 10000 (sim.MaxTrainSteps): 1 ms a step on one core (both models), 10 s; the bundled models took BlankTrainSteps = 1500.
	MaxTrained: 10000,
	Largest:    sim.Values{"sentence": "i am ___ hungry and i can eat half a pig . i am hungry and i can eat ."},
	// 80 KB measured on a 20-word sentence, 50 KB at the defaults: both models are the shared bundled ones;
	// the next-word models' guesses on the sentence (3 × (T−1) distributions over the vocabulary) and their step facts.
	SessionBytes: 128 << 10,
	// 80 KB measured (two models of its own, their Adam moments) and a loss curve of 10000 steps.
	TrainedBytes: 480 << 10,
}

// birnnFacts labels the page's facts in the lecture's words.
var birnnFacts = factTable{
	static: []fact{
		{key: "input", label: "input"},
		{key: "blank_position", label: "blank at position"},
		{key: "answer", label: "the missing word"},
		{key: "unidirectional", label: "unidirectional answer"},
		{key: "bidirectional", label: "bidirectional answer"},
		{key: "held_out_accuracy_unidirectional", label: "held-out accuracy, unidirectional", measured: true},
		{key: "held_out_accuracy_bidirectional", label: "held-out accuracy, bidirectional", measured: true},
		{key: "held_out_chance", label: "held-out chance level", measured: true},
		{key: "hidden", label: "hidden units h per direction"},
		{key: "weights", label: "weights"},
		{key: "next_word_training", label: `next-word models: held-out loss \(-\log \hat y_t[x_{t+1}]\), whole sentence in (training)`},
		{key: "next_word_generating", label: `next-word models: held-out loss, only \(x_1, \dots, x_t\) in (generating)`},
		{key: "dependencies", label: `pairs \((\hat y_t, x_s)\) a gradient path joins, this sentence`},
		{key: "cell_steps", label: "cell steps per training pass, forward and back"},
	},
	step: []fact{
		{key: "forward_reads", label: "forward pass reads"},
		{key: "backward_reads", label: "backward pass reads"},
		{key: "unidirectional", label: "unidirectional"},
		{key: "bidirectional", label: "bidirectional"},
		{key: "next_word", label: `next word \(x_{t+1}\)`},
		{key: "next_uni", label: `next-word model, unidirectional: guess for \(x_{t+1}\)`},
		{key: "next_bi_full", label: `next-word model, bidirectional, whole sentence in`},
		{key: "next_bi_prefix", label: `next-word model, bidirectional, only \(x_1, \dots, x_t\) in`},
	},
}
