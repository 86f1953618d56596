package lessons

import (
	"fmt"
	"strings"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// sentimentDefault is the review the page opens with: a negation the average of
// word vectors gets wrong and the GRU gets right.
const sentimentDefault = "the food was not bad at all"

// sentimentExamples are the reviews of the page's comparison table, chosen in pairs
// that differ in one word or in word order only (seed 003's sentiment
// classification: the average of embeddings ignores order).
var sentimentExamples = []string{
	"good", "not good", "bad", "not bad at all", "very good",
	"good , not bad", "bad , not good", "the film is not great at all",
}

// sentimentModel is the sentiment lesson's sim.Model: the bundled average model and
// many-to-one GRU reading one review, step t being the t-th word.
type sentimentModel struct {
	m    *zoo.Sentiment // the shared bundled models (read-only), or tr's after training starts
	meta zoo.Meta
	ids  []int
	text string
	seed uint64
	run  zoo.SentimentRun // replaced whole after every training step, never written in place

	tr      *zoo.SentimentTrainer // nil until the page trains from scratch
	scores  *zoo.SentimentScores  // held-out scores of tr's models, measured once per static frame
	scratch                       // the training stream and loss curve
}

func buildSentiment(v sim.Values) (sim.Model, error) {
	text := v.String("review")
	if text == "" {
		text = sentimentDefault
	}
	ids, err := data.ParseReview(text)
	if err != nil {
		return nil, err
	}
	m, meta, err := zoo.SharedSentiment()
	if err != nil {
		return nil, err
	}
	return &sentimentModel{m: m, meta: meta, ids: ids, text: text, seed: uint64(v.Int("seed")), run: m.Read(ids)}, nil
}

func (m *sentimentModel) Steps() int { return len(m.ids) }

// Fork copies the page's state, and the models and optimisers once the page trains its own.
func (m *sentimentModel) Fork() (sim.Model, error) {
	c := *m
	c.scratch = m.scratch.fork()
	if m.tr != nil {
		c.tr = m.tr.Clone()
		c.m = c.tr.Model
	}
	return &c, nil
}

// TrainStep trains from scratch: the first call replaces the bundled models by fresh
// weights drawn from the seed, then each call is one minibatch of the recipe's two
// phases, the average model with E first, then the GRU on the frozen E.
func (m *sentimentModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() { m.tr = zoo.NewSentimentTrainer(m.seed); m.m = m.tr.Model })
	loss, phase := m.tr.Step(rng)
	m.run, m.scores = m.m.Read(m.ids), nil
	return m.progress(loss, map[string]any{"phase": phase})
}

// heldOut is the held-out accuracies of the page's models: the checkpoint's record,
// or measured on the held-out reviews once the page trains its own.
func (m *sentimentModel) heldOut() zoo.SentimentScores {
	if m.tr == nil {
		f := m.meta.Float
		return zoo.SentimentScores{Avg: f("avg_accuracy"), AvgNegated: f("avg_accuracy_negated"), AvgPlain: f("avg_accuracy_plain"),
			RNN: f("rnn_accuracy"), RNNNegated: f("rnn_accuracy_negated"), RNNPlain: f("rnn_accuracy_plain"),
			Negated: int(f("eval_negated")), Plain: int(f("eval_plain"))}
	}
	if m.scores == nil {
		s := m.m.Score(data.ReviewEvalSet())
		m.scores = &s
	}
	return *m.scores
}

// answer writes a model's ŷ at the end as its class and probability.
func answer(p []float64) string {
	k := models.Argmax(p)
	return fmt.Sprintf("%s (P = %.3f)", data.ReviewClasses[k], p[k])
}

// verdict says whether a model's answer p agrees with the grammar's label.
func verdict(p []float64, label int, ok bool) string {
	switch {
	case !ok:
		return ""
	case models.Argmax(p) == label:
		return "right"
	}
	return "wrong"
}

func (m *sentimentModel) Static() sim.Frame {
	T := len(m.ids)
	tokens := strings.Fields(data.ReviewText(m.ids))
	answers := make([]any, T)
	label, negated, ok := data.ReviewLabelOf(m.ids)
	held := m.heldOut()
	meta := map[string]any{
		"tokens": tokens, "input": data.ReviewText(m.ids), "classes": data.ReviewClasses,
		"embed": zoo.SentimentEmbed, "hidden": zoo.SentimentHidden,
		"average_answer": answer(m.run.AvgNow), "rnn_answer": answer(m.run.RNNNow),
		"contrast": m.contrast(), "accuracy": m.accuracyTable(held),
		"held_out_avg_negated": held.AvgNegated, "held_out_avg_plain": held.AvgPlain,
		"held_out_rnn_negated": held.RNNNegated, "held_out_rnn_plain": held.RNNPlain,
		"weights": "bundled checkpoint; E trained with the average model, then frozen for the GRU",
	}
	if m.tr != nil {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d), now in the %s phase", m.trained, m.seed, m.tr.Phase())
	}
	if ok {
		answers[T-1] = data.ReviewClasses[label]
		meta["label"] = data.ReviewClasses[label]
		meta["negated"] = map[bool]string{true: "yes", false: "no"}[negated]
		meta["average_answer"] = fmt.Sprintf("%s, %s", answer(m.run.AvgNow), verdict(m.run.AvgNow, label, ok))
		meta["rnn_answer"] = fmt.Sprintf("%s, %s", answer(m.run.RNNNow), verdict(m.run.RNNNow, label, ok))
	} else {
		meta["label"] = "not a review of the grammar: no right answer known"
	}
	meta["answers"] = answers
	return sim.Frame{Meta: meta}
}

func (m *sentimentModel) At(t int) sim.Frame {
	T := len(m.ids)
	r := m.run
	meta := map[string]any{
		"word":  fmt.Sprintf("x⟨%d⟩ = %s", t, data.ReviewVocab[m.ids[t-1]]),
		"p_rnn": round4(r.PRNN[t-1]), "p_avg": round4(r.PAvg[t-1]), "vote": round4(r.Vote[t-1]),
	}
	if t == T { // many-to-one: the GRU's only output is read here
		meta["prediction"] = data.ReviewClasses[models.Argmax(r.RNNNow)]
		if label, _, ok := data.ReviewLabelOf(m.ids); ok {
			meta["correct"] = models.Argmax(r.RNNNow) == label
		}
	}
	return sim.Frame{Arrays: []sim.Array{
		sim.Vector("a", r.A[t-1]),
		sim.Vector("p_rnn", []float64{r.PRNN[t-1]}),
		sim.Vector("p_avg", []float64{r.PAvg[t-1]}),
		sim.Vector("vote", []float64{r.Vote[t-1]}),
	}, Meta: meta}
}

// contrast is the comparison table: each example review, its label by the grammar
// and both models' P(positive) at the end, marked right (green) or wrong (red).
func (m *sentimentModel) contrast() table {
	tab := table{Title: "P(positive) at the end of each review; green right, red wrong",
		Head: []string{"label", "average", "GRU"}}
	for _, text := range sentimentExamples {
		ids, err := data.ParseReview(text)
		if err != nil {
			panic("lessons: a sentiment example does not parse: " + err.Error())
		}
		label, _, _ := data.ReviewLabelOf(ids)
		r := m.m.Read(ids)
		cell := func(p []float64) tableCell {
			mark := "on"
			if models.Argmax(p) != label {
				mark = "unk"
			}
			return tableCell{Text: fmt.Sprintf("%.2f", p[data.ReviewPositive]), Mark: mark}
		}
		tab.Rows = append(tab.Rows, tableRow{Label: text, Cells: []tableCell{{Text: data.ReviewClasses[label]}, cell(r.AvgNow), cell(r.RNNNow)}})
	}
	return tab
}

// accuracyTable is the held-out accuracies split by "not": the checkpoint's record, or
// the page's own models' once it trains.
func (m *sentimentModel) accuracyTable(s zoo.SentimentScores) table {
	f := func(x float64) tableCell { return tableCell{Text: fmt.Sprintf("%.3f", x)} }
	return table{
		Title: fmt.Sprintf("held-out accuracy (%d reviews never trained on; %d with “not”, %d without)",
			s.Negated+s.Plain, s.Negated, s.Plain),
		Head: []string{"without not", "with not", "all"},
		Rows: []tableRow{
			{Label: "average", Cells: []tableCell{f(s.AvgPlain), f(s.AvgNegated), f(s.Avg)}},
			{Label: "GRU", Cells: []tableCell{f(s.RNNPlain), f(s.RNNNegated), f(s.RNN)}},
		},
	}
}

// positiveSeries is P(positive) after each word for both models, the export of the
// page's line panel.
func positiveSeries(sm sim.Model) []Series {
	m := sm.(*sentimentModel)
	rnn, avg := Series{Label: "GRU"}, Series{Label: "average"}
	for t := range m.ids {
		x := float64(t + 1)
		rnn.X, rnn.Y = append(rnn.X, x), append(rnn.Y, m.run.PRNN[t])
		avg.X, avg.Y = append(avg.X, x), append(avg.Y, m.run.PAvg[t])
	}
	return []Series{rnn, avg}
}

var sentimentLesson = &Lesson{
	Slug:    "sentiment",
	Short:   "Sentiment",
	Section: "003",
	Title:   "Sentiment: many-to-one",
	Summary: "Classify a review from its word vectors: their average cannot tell “not bad” from “bad, not good”, a GRU reading the words in order can.",
	Prose: []string{
		`Sentiment classification is a <b>many-to-one</b> task: a whole review \(x^{\langle 1 \rangle}, \dots, x^{\langle T_x \rangle}\) goes in, and one answer \(\hat y\) comes out, here <i>negative</i> or <i>positive</i>. Each word enters as its embedding \(e^{\langle t \rangle}\), a row of the embedding matrix \(E\) of the previous section.`,
		`The simplest model ignores order: it averages the word vectors of the review and puts a softmax classifier on top of the average. It does well when each word carries its own sentiment (<i>good</i>, <i>very good</i>, <i>awful</i>). But an average is the same for any order of the words, and a linear classifier on it adds up a vote from each word: with \(w_{+}\) and \(w_{-}\) the rows of \(W\) for <i>positive</i> and <i>negative</i>, word \(t\) votes \(v^{\langle t \rangle}\), and the log-odds of <i>positive</i> are the mean vote plus a bias (the lower line panel). <i>Not</i> cannot vote for one side, since it turns <i>good</i> negative and <i>bad</i> positive, so “not good” still leans on <i>good</i>'s vote and comes out positive. “good , not bad” and “bad , not good” are the very same words, so this model gives both the same answer and must be wrong on one.`,
		`The many-to-one RNN reads the words in order: its state \(a^{\langle t \rangle}\) is updated at every word, and only the last state \(a^{\langle T_x \rangle}\) is classified. Here it is a GRU with 16 units, and it reads <b>the same word vectors</b>: \(E\) was learned together with the average model, then frozen, and the GRU learned only its own weights on top of it. So whatever it does better, it owes to reading the words in order. Step through a review: the heatmap fills with \(a^{\langle t \rangle}\) word by word, and the upper line shows the probability of <i>positive</i> if the review stopped after word \(t\). For the GRU it swings when an adjective follows <i>not</i>; before the last word it is only what the GRU would answer if the review ended there, which training never asked of it (on “the food was …” its early values mean little). The average model's line is the prediction of the running average of the first \(t\) word vectors.`,
		`Both were trained on generated reviews (a prefix like “the film is”, then one or two phrases of an adjective with <i>very</i>, <i>really</i>, or <i>not</i> … <i>at all</i>), and measured on a fixed fifth of all such reviews that training never saw, split by whether the review has a <i>not</i>: the table below and the facts give the numbers. Try your own review with the words of the grammar (the facts say what the grammar says it means), or one of these: <a href="?review=not+good">not good</a>, <a href="?review=not+bad+at+all">not bad at all</a>, <a href="?review=good+%2C+not+bad">good , not bad</a>, <a href="?review=bad+%2C+not+good">bad , not good</a>, <a href="?review=the+film+is+really+awful">the film is really awful</a>. <b>Train from scratch</b> runs the same recipe live from random weights: 1,500 minibatches of the average model with \(E\), then the GRU on the frozen \(E\) (the facts name the phase).`,
	},
	Equations: []Equation{
		{TeX: `e^{\langle t \rangle} = E\,o_{x^{\langle t \rangle}}`},
		{TeX: `\bar e = \frac{1}{T_x} \sum_{t=1}^{T_x} e^{\langle t \rangle}, \quad \htmlClass{sym-p_avg}{\hat y_{\text{avg}}} = \mathrm{softmax}(W \bar e + b)`, Symbols: []Symbol{{ID: "p_avg", Array: "p_avg"}}},
		{TeX: `\htmlClass{sym-vote}{v^{\langle t \rangle}} = (w_{+} - w_{-})\, e^{\langle t \rangle}`, Symbols: []Symbol{{ID: "vote", Array: "vote"}}},
		{TeX: `\log \frac{\hat y_{\text{avg},+}}{\hat y_{\text{avg},-}} = \frac{1}{T_x} \sum_{t=1}^{T_x} v^{\langle t \rangle} + b_{+} - b_{-}`},
		{TeX: `\htmlClass{sym-a}{a^{\langle t \rangle}} = \mathrm{GRU}(e^{\langle t \rangle}, a^{\langle t-1 \rangle}), \quad a^{\langle 0 \rangle} = 0`, Symbols: []Symbol{{ID: "a", Array: "a"}}},
		{TeX: `\htmlClass{sym-p_rnn}{\hat y} = \mathrm{softmax}(W_{ya}\, a^{\langle T_x \rangle} + b_y)`, Symbols: []Symbol{{ID: "p_rnn", Array: "p_rnn"}}},
	},
	Arrays: []Array{
		{Name: "a", Label: "a⟨t⟩", Axes: []Axis{Units}, PerStep: true, Scale: []float64{-1, 1}},
		{Name: "p_rnn", Label: "GRU P(positive) from a⟨t⟩", Axes: []Axis{Scalar}, PerStep: true, Scale: []float64{0, 1}},
		{Name: "p_avg", Label: "average model's P(positive) from the first t words", Axes: []Axis{Scalar}, PerStep: true, Scale: []float64{0, 1}},
		{Name: "vote", Label: "vote v⟨t⟩", Axes: []Axis{Scalar}, PerStep: true},
	},
	Stage: []string{"p", "a"},
	Panels: []Panel{
		{ID: "p", Kind: Line, Title: `\(P(\text{positive})\) after word \(t\)`, Arrays: []string{"p_rnn", "p_avg"}, Legend: []string{"GRU, from a⟨t⟩", "average of the first t words"}, Scale: []float64{0, 1}, Symbol: "p_rnn",
			Note: "Above 0.5 the model says positive. Only the value at the last word is each model's answer."},
		{ID: "tokens", Static: []string{"tokens", "answers"}, Meta: []string{"prediction", "correct"}, Kind: Tokens, Title: "review", Arrays: []string{"a"},
			Note: "The answer by the grammar is under the last word; the GRU's prediction appears there at the last step."},
		{ID: "a", Static: []string{"tokens"}, Kind: Heatmap, Title: `GRU state \(a^{\langle t \rangle}\), units × words`, Arrays: []string{"a"}, Scale: []float64{-1, 1}, Symbol: "a"},
		{ID: "vote", Kind: Line, Title: `each word's vote in the average model \(v^{\langle t \rangle}\)`, Arrays: []string{"vote"}, Symbol: "vote",
			Note: "The average model's log-odds of positive are the mean of the votes plus a bias: the order of the words cannot matter."},
		{ID: "contrast", Static: []string{"contrast"}, Kind: Table, Title: "where the average fails and the GRU does not", Symbol: "p_avg", Also: []string{"p_rnn"}},
		{ID: "accuracy", Static: []string{"accuracy"}, Kind: Table, Title: "held-out accuracy, with and without negation", Also: []string{"p_avg", "p_rnn"},
			Note: "The bundled models' numbers are recorded in their checkpoint by go run ./cmd/train; after Train, the page measures its own models."},
	},
	Params: sim.Specs{
		{Name: "review", Label: "review", Kind: sim.Text, MaxLen: 120, Default: sentimentDefault,
			MaxLenWhy: "a review of at most 16 words fits the heatmap, one column a word",
			Help:      "Lower-case words of the reviews, separated by spaces, e.g. “the film is not good at all” or “bad , not good”."},
		seedSpec(3, "The random start of training from scratch."),
	},
	Plots: []Plot{
		{Name: "positive", Title: `\(P(\text{positive})\) after word \(t\)`, XLabel: `word \(t\)`, YLabel: `\(P(\text{positive})\)`, Scale: []float64{0, 1},
			Series: positiveSeries},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/sentiment.html"), Scripts: []string{sentimentScript}},
	Build:   buildSentiment,
	Facts:   sentimentFacts,
	Trains:  true,
	Loss:    "loss_curve",
	// the recipe's two phases, 1500 + 3000 minibatches: about 10 s to replay on one core
	MaxTrained: 4500,
	// 29 KB measured (models of its own, two optimisers' moments) and a loss curve of 4500 steps: 134 KB
	TrainedBytes: 256 << 10,
	Largest:      sim.Values{"review": "the service is not boring at all , not awful at all , very good good"},
	// 34 KB measured on a 16-word review, 21 KB at the defaults: both models are the shared bundled ones
	SessionBytes: 64 << 10,
}

// sentimentFacts labels the page's facts in the lecture's words.
var sentimentFacts = factTable{
	static: []fact{
		{key: "input", label: "review"},
		{key: "label", label: "sentiment by the grammar"},
		{key: "negated", label: "contains “not”"},
		{key: "average_answer", label: `average model's \(\hat y\)`},
		{key: "rnn_answer", label: `GRU's \(\hat y\) from a⟨Tₓ⟩`},
		{key: "held_out_avg_plain", label: "held-out accuracy, average, without “not”", measured: true},
		{key: "held_out_avg_negated", label: "held-out accuracy, average, with “not”", measured: true},
		{key: "held_out_rnn_plain", label: "held-out accuracy, GRU, without “not”", measured: true},
		{key: "held_out_rnn_negated", label: "held-out accuracy, GRU, with “not”", measured: true},
		{key: "embed", label: "embedding size e"},
		{key: "hidden", label: "GRU units h"},
		{key: "weights", label: "weights"},
	},
	step: []fact{
		{key: "word", label: "word x⟨t⟩"},
		{key: "p_rnn", label: "GRU P(positive) from a⟨t⟩", measured: true},
		{key: "p_avg", label: "average model's P(positive) from the first t words", measured: true},
		{key: "vote", label: "vote v⟨t⟩", measured: true},
		{key: "prediction", label: `GRU's \(\hat y\)`, keep: true},
	},
}
