package lessons

import (
	"fmt"
	"strconv"
	"strings"

	"unroll/data"
	"unroll/models"
	"unroll/sim"
	"unroll/zoo"
)

// Clamp fixes one gate to a value at every step (a what-if experiment): "R" or "Z"
// for the GRU, "I", "F" or "O" for the LSTM; the zero Clamp fixes nothing.
type Clamp = models.GateClamp

// gruModel is the GRU lesson's sim.Model: the classifier reading one input.
type gruModel struct {
	clf   *zoo.GRUClassifier // the shared bundled one (read-only) until TrainStep starts one of its own
	meta  zoo.Meta           // of the checkpoint it started from
	ids   []int
	text  string
	clamp Clamp
	seed  uint64

	steps []zoo.GRUStep // nil when the weights changed since the last run

	scratch // training from scratch: the first TrainStep starts a fresh model from seed
}

func buildGRU(v sim.Values) (sim.Model, error) {
	task, text, ids, err := taskInput(v)
	if err != nil {
		return nil, err
	}
	clf, meta, err := zoo.SharedGRUClassifier(task, v.String("variant")) // TrainStep replaces it by fresh weights
	if err != nil {
		return nil, err
	}
	return &gruModel{clf: clf, meta: meta, ids: ids, text: text, clamp: clampOf(v), seed: uint64(v.Int("seed"))}, nil
}

func (m *gruModel) run() []zoo.GRUStep {
	if m.steps == nil {
		m.steps = m.clf.Run(m.ids, m.clamp)
	}
	return m.steps
}

func (m *gruModel) Steps() int { return len(m.ids) }

func (m *gruModel) Static() sim.Frame {
	steps := m.run()
	meta := classifierStaticMeta(m.clf.Task, m.ids, m.text, steps[len(steps)-1].Probs, m.clamp)
	meta["variant"] = m.clf.Variant
	meta["hidden"] = m.clf.Cell.HiddenSize()
	meta["params"] = m.clf.Cell.Params().Count()
	if m.trained == 0 {
		meta["weights"] = "bundled checkpoint"
		meta["checkpoint_accuracy"] = m.meta.Float("accuracy")
	} else {
		meta["weights"] = fmt.Sprintf("trained from scratch for %d steps (seed %d)", m.trained, m.seed)
	}
	return sim.Frame{Meta: meta}
}

// clampValueWhy is what the clamped-value control says while no gate is clamped.
const clampValueWhy = "applies when a gate is clamped"

// clampOf is the gate the clamp and clamp_value parameters fix (the zero Clamp for
// "none").
func clampOf(v sim.Values) Clamp {
	if g := v.String("clamp"); g != "none" {
		return Clamp{Gate: g, Value: v.Float("clamp_value")}
	}
	return Clamp{}
}

func clampName(c Clamp) string {
	if c.Gate == "" {
		return "none"
	}
	return fmt.Sprintf("%s_t = %g", c.Gate, c.Value)
}

// sig4 rounds to 4 significant digits: for probabilities that may be tiny, which
// round4 would turn into 0.
func sig4(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

func (m *gruModel) At(t int) sim.Frame {
	st := m.run()[t-1]
	meta := classifierMeta(m.clf.Task, m.ids, t, st.Probs)
	return sim.Frame{
		Arrays: []sim.Array{
			sim.Vector("X", st.X), sim.Vector("R", st.R), sim.Vector("Z", st.Z), sim.Vector("Gamma_u", gammaU(st.Z)),
			sim.Vector("H_tilde", st.HTilde), sim.Vector("H", st.H), sim.Vector("P", st.Probs),
		},
		Meta: meta,
	}
}

// gammaU is seed 003's update gate Γ_u = 1 − Z_t: the same gate read the other way
// round, H_t = Γ_u ⊙ H̃_t + (1 − Γ_u) ⊙ H_{t-1}.
func gammaU(z []float64) []float64 {
	g := make([]float64, len(z))
	for j, v := range z {
		g[j] = 1 - v
	}
	return g
}

// The update-gate conventions the page can be read in (the convention parameter).
const (
	conventionLecture = "lecture"     // Z_t keeps: H_t = Z_t ⊙ H_{t-1} + (1 − Z_t) ⊙ H̃_t (seeds 000, 001, 002, 004)
	convention003     = "lecture-003" // Γ_u writes: c_t = Γ_u ⊙ c̃_t + (1 − Γ_u) ⊙ c_{t-1}, Γ_u = 1 − Z_t
)

var (
	inLecture = &sim.Applies{Param: "convention", Values: []string{conventionLecture}, Why: "shown in the lecture's convention"}
	in003     = &sim.Applies{Param: "convention", Values: []string{convention003}, Why: "shown in lecture 003's convention"}
)

// TrainStep trains from scratch: the first call replaces the bundled weights by fresh
// ones drawn from the seed, then every call is one minibatch of Adam.
func (m *gruModel) TrainStep() (sim.Frame, error) {
	rng := m.stream(m.seed, func() { m.clf = zoo.NewGRUClassifier(m.clf.Task, m.clf.Variant, m.seed) })
	loss, acc := m.clf.TrainStep(rng)
	m.steps = nil
	return m.progress(loss, map[string]any{"accuracy": round4(acc)})
}

var gruLesson = &Lesson{
	Slug:    "gru",
	Short:   "GRU",
	Section: "4.3",
	Title:   "Gated recurrent units (GRU)",
	Summary: "Watch the reset and update gates of small trained GRUs keep a checksum, skip filler tokens and reset at a break.",
	Prose: []string{
		`A vanilla RNN rewrites its whole hidden state at every step, so it has no easy way to keep one early token for a long time, to ignore a token that means nothing, or to forget everything at a break. A GRU adds two gates, vectors of numbers between 0 and 1, one per hidden unit, that the network computes from the current input and the previous state.`,
		`The <b>reset gate</b> \(R_t\) decides how much of the previous state goes into the candidate \(\tilde H_t\). Where \(R_t \approx 1\) the candidate is an ordinary RNN step; where \(R_t \approx 0\) it ignores the past and depends on the current input alone: the state is reset. The <b>update gate</b> \(Z_t\) then mixes old and new: where \(Z_t \approx 1\) the unit keeps its old value and the input is skipped; where \(Z_t \approx 0\) it takes the candidate.`,
		`Each task below has its own small GRU, trained on generated sequences and bundled with the page: \(h = 12\) units for <b>checksum</b>, \(h = 6\) for <b>skip</b> and <b>reset</b>, so that nearly every unit takes part. <b>checksum</b>: the first digit must survive to the end; look for the units whose \(Z_t\) stays close to 1 from the second step on: they hold the check digit. <b>skip</b>: the filler tokens _ carry nothing. In training every filler token also came with random noise, like markup that never looks the same twice, so anything written on a filler token would damage the stored digit. The network learned not to write: on filler \(Z_t\) is close to 1 (0.94 to 0.99 on average, about 0.5 on digits), and the columns of \(H_t\) repeat across a run of filler. <b>reset</b>: the model keeps a count since the last break, +1 for a high digit (2, 3) and −1 for a low one (0, 1), and answers with its sign. On a digit the new count is the old one plus or minus one, so the candidate needs the past, and the reset gate of the units the answer is read from is open (about 0.3 on average); at a break | the old count is wrong for the new segment, and there \(R_t\) closes to about 0.02: the candidate is computed from the break alone, and \(Z_t\), down to about 0.15, lets it replace the state. In training, reading the past cost a little (0.01 times the mean of \(R_t\) was added to the loss), so the gate opens only where the past is worth it; without that cost the networks learn the task as well but leave \(R_t\) at 0.1 to 0.4 at the breaks and reset another way, most likely by pushing the candidate into the flat ends of tanh. Type your own sequence to test a model; the right answer at each step is shown next to the model's prediction.`,
		`The lecture notes sum the two gates up by the reach of what they serve: reset gates capture short-term dependencies, update gates long-term ones (lectures 000, 002 and 004 all say so). The bundled models bear it out when a gate is taken away, measured on each task's held-out sequences. Checksum needs a digit from the far start: with \(Z_t\) clamped to 0 the state is rewritten at every step, and the model is right on only 63 % of the answers, below the 71 % of always answering invalid. Reset needs only the digits since the last break: with \(Z_t = 0\) its model is still right on 84 %, but with \(R_t\) clamped to 1, so that the old count always enters the candidate, it falls to 44 %.`,
		`Clamp a gate to see what it is for: with \(Z_t = 1\) nothing is ever written and the state stays at zero; with \(R_t = 0\) every candidate forgets the past and the checksum is lost; with \(Z_t = 0\) the state cannot skip anything. <b>Train from scratch</b> starts again from random weights (drawn from the seed) and learns live.`,
		`The <b>reset-after</b> variant is the form PyTorch's <code>nn.GRU</code> and cuDNN compute: the reset gate multiplies \(H_{t-1} W_{hh} + b_{hn}\) after the matrix product instead of \(H_{t-1}\) before it, with one extra bias \(b_{hn}\). Both forms can reset the state and learn the same tasks, but their weights are not interchangeable, so each variant has its own trained checkpoint.`,
		`The GRU as Cho et al. (2014) first wrote it (notes 001, on the paper) is the lecture's cell in another dress: column vectors multiplied from the left, \(W^r x_t\) instead of \(X_t W_{xr}\), and no biases at all (every library adds them). With \(W^r = W_{xr}^\top\), \(U^r = W_{hr}^\top\) and so on, and the biases at zero, both compute the same numbers. Its update already has the lecture's direction: \(z_t\) near 1 keeps \(h_{t-1}\).`,
		`<b>Careful with lecture 003</b>: its notes write the update the other way round, \(c^{\langle t\rangle} = \Gamma_u \odot \tilde c^{\langle t\rangle} + (1 - \Gamma_u) \odot c^{\langle t-1\rangle}\), so its \(\Gamma_u\) near 1 <i>writes</i> the candidate, where the lecture's \(Z_t\) near 1 <i>keeps</i> the old state: \(\Gamma_u = 1 - Z_t\). A sentence about one is false of the other. The switch <b>update gate written as</b> shows this page in lecture 003's convention: the equations and the update gate's panel change to \(\Gamma_u\), while the model and every other number stay the same.`,
	},
	Equations: []Equation{
		{TeX: `\htmlClass{sym-R}{R_t} = \sigma(\htmlClass{sym-X}{X_t} W_{xr} + H_{t-1} W_{hr} + b_r)`, Symbols: []Symbol{{ID: "R", Array: "R"}, {ID: "X", Array: "X"}}},
		{TeX: `\htmlClass{sym-Z}{Z_t} = \sigma(X_t W_{xz} + H_{t-1} W_{hz} + b_z)`, Symbols: []Symbol{{ID: "Z", Array: "Z"}}},
		{TeX: `\htmlClass{sym-Gamma_u}{\Gamma_u} = 1 - Z_t`, Symbols: []Symbol{{ID: "Gamma_u", Array: "Gamma_u"}}, When: in003},
		{TeX: `\htmlClass{sym-H_tilde}{\tilde H_t} = \tanh(X_t W_{xh} + (R_t \odot H_{t-1}) W_{hh} + b_h)`, Symbols: []Symbol{{ID: "H_tilde", Array: "H_tilde"}}},
		{TeX: `\htmlClass{sym-H}{H_t} = Z_t \odot H_{t-1} + (1 - Z_t) \odot \tilde H_t`, Symbols: []Symbol{{ID: "H", Array: "H"}}, When: inLecture},
		{TeX: `\htmlClass{sym-H}{H_t} = \Gamma_u \odot \tilde H_t + (1 - \Gamma_u) \odot H_{t-1}`, Symbols: []Symbol{{ID: "H", Array: "H"}}, When: in003},
		{TeX: `\text{lecture 003: } c^{\langle t\rangle} = \Gamma_u \tilde c^{\langle t\rangle} + (1 - \Gamma_u) c^{\langle t-1\rangle}`, When: in003},
		{TeX: `\text{reset-after: } \tilde H_t = \tanh(X_t W_{xh} + b_h + R_t \odot (H_{t-1} W_{hh} + b_{hn}))`},
		{TeX: `\htmlClass{sym-P}{\hat y_t} = \mathrm{softmax}(H_t W_q + b_q)`, Symbols: []Symbol{{ID: "P", Array: "P"}}},
		{TeX: `\text{Cho et al. 2014: } r_t = \sigma(W^r x_t + U^r h_{t-1})`},
		{TeX: `z_t = \sigma(W^z x_t + U^z h_{t-1})`},
		{TeX: `\tilde h_t = \tanh(W x_t + U (r_t \odot h_{t-1}))`},
		{TeX: `h_t = z_t \odot h_{t-1} + (1 - z_t) \odot \tilde h_t`},
	},
	Arrays: []Array{
		{Name: "X", Label: `\(X_t\)`, Axes: []Axis{Vocabulary}, PerStep: true},
		{Name: "R", Label: `\(R_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "Z", Label: `\(Z_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "Gamma_u", Label: `\(\Gamma_u = 1 - Z_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H_tilde", Label: `\(\tilde{H}_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "H", Label: `\(H_t\)`, Axes: []Axis{Units}, PerStep: true},
		{Name: "P", Label: `\(\hat{y}_t\)`, Axes: []Axis{Classes}, PerStep: true, Labels: "classes"},
	},
	Loss:  "loss_curve",
	Stage: []string{"R", "Z"},
	Panels: []Panel{
		classifierTokens("The current token is marked; the model's answer and the right answer are under it."),
		{ID: "R", Static: []string{"tokens"}, Kind: Heatmap, Title: `reset gate \(R_t\)`, Arrays: []string{"R"}, Scale: []float64{0, 1}, Symbol: "R",
			Note: "Near 0: the candidate ignores the past (reset task: at the breaks |, where the old count must go)."},
		{ID: "Z", Static: []string{"tokens"}, Kind: Heatmap, Title: `update gate \(Z_t\)`, Arrays: []string{"Z"}, Scale: []float64{0, 1}, Symbol: "Z",
			Note: "Near 1: the unit keeps its value and skips the input (skip task: the filler tokens “_”).", When: inLecture},
		{ID: "Gamma_u", Static: []string{"tokens"}, Kind: Heatmap, Title: `update gate \(\Gamma_u = 1 - Z_t\) (lecture 003's convention)`, Arrays: []string{"Gamma_u"}, Scale: []float64{0, 1}, Symbol: "Gamma_u",
			Note: "Near 1: the unit takes the candidate; near 0: it keeps its value and skips the input. The same gate as the lecture's Z, read the other way round.", When: in003},
		{ID: "H_tilde", Static: []string{"tokens"}, Kind: Heatmap, Title: `candidate state \(\tilde H_t\)`, Arrays: []string{"H_tilde"}, Scale: []float64{-1, 1}, Symbol: "H_tilde"},
		{ID: "H", Static: []string{"tokens"}, Kind: Heatmap, Title: `hidden state \(H_t\)`, Arrays: []string{"H"}, Scale: []float64{-1, 1}, Symbol: "H"},
		{ID: "P", Kind: Bars, Title: `prediction \(\hat y_t\)`, Arrays: []string{"P"}, Scale: []float64{0, 1}, Symbol: "P"},
	},
	Params: sim.Specs{
		taskSpec, inputSpec,
		{Name: "clamp", Label: "clamp a gate", Kind: sim.Choice, Default: "none", Choices: []string{"none", "R", "Z"}},
		{Name: "clamp_value", Label: "clamped value", Kind: sim.Float, Default: "0", Min: 0, Max: 1, Step: 0.05,
			When: &sim.Applies{Param: "clamp", Values: []string{"R", "Z"}, Why: clampValueWhy}},
		{Name: "variant", Label: "GRU form", Kind: sim.Choice, Default: zoo.VariantLecture, Choices: []string{zoo.VariantLecture, zoo.VariantResetAfter},
			Help: `lecture: \(R_t\) acts before \(W_{hh}\); reset-after: after it (PyTorch, cuDNN).`},
		{Name: "convention", Label: "update gate written as", Kind: sim.Choice, Default: conventionLecture, Choices: []string{conventionLecture, convention003},
			Help: `lecture: \(Z_t\) near 1 keeps the old state; lecture-003: \(\Gamma_u = 1 - Z_t\) near 1 writes the candidate. The same model either way.`},
		seedSpec(1, "The random start of training from scratch."),
	},
	Plots: []Plot{
		// The page's unit × time heatmaps of the gates, on their fixed [0, 1] scale.
		{Name: "reset", Title: `reset gate \(R_t\)`, XLabel: `input token \(x_t\)`, YLabel: "unit", Grid: gateGrid(func(st zoo.GRUStep) []float64 { return st.R })},
		{Name: "update", Title: `update gate \(Z_t\)`, XLabel: `input token \(x_t\)`, YLabel: "unit", Grid: gateGrid(func(st zoo.GRUStep) []float64 { return st.Z })},
	},
	PyTorch: &PyTorch{Note: pyTorchHTML("notes/gru.html"), Scripts: []string{nnScript, lectureGRUScript}},
	Build:   buildGRU,
	Facts:   gruFacts,
	Trains:  true,
	// 10000 (sim.MaxTrainSteps): at most 0.8 ms a step on one core, 8 s; the bundled models took GRUTrainSteps = 3000.
	MaxTrained: 10000,
	Largest:    sim.Values{"input": strings.Repeat("1203", 10)},
	// 89 KB measured on a 40-token input, 25 KB at the defaults: the classifier is the shared bundled one.
	SessionBytes: 144 << 10,
	// 25 KB measured (its own GRU from the seed, Adam's moments) and a loss curve of 10000 steps.
	TrainedBytes: 400 << 10,
}

// gateGrid is the heatmap of one gate for the GRU page's run: a row per unit, a
// column per input token, on the gate's range [0, 1].
func gateGrid(gate func(zoo.GRUStep) []float64) func(sim.Model) Grid {
	return func(sm sim.Model) Grid {
		m := sm.(*gruModel)
		steps := m.run()
		g := Grid{Lo: 0, Hi: 1}
		for _, id := range m.ids {
			g.Cols = append(g.Cols, data.Alphabet[id])
		}
		if len(steps) == 0 {
			return g
		}
		for j := range gate(steps[0]) {
			row := make([]float64, len(steps))
			for t, st := range steps {
				row[t] = gate(st)[j]
			}
			g.Rows = append(g.Rows, strconv.Itoa(j+1))
			g.Values = append(g.Values, row)
		}
		return g
	}
}

// gruFacts labels the page's facts in the lecture's words.
var gruFacts = factTable{static: classifierStatic, step: classifierStep}

// classifierStatic and classifierStep label the facts of a task classifier's page, the
// gru page's and the lstm page's.
var (
	classifierStatic = []fact{
		{key: "task_title", label: "task"},
		{key: "task", label: "task (URL name)"},
		{key: "variant", label: "variant"},
		{key: "description", label: "what the task asks"},
		{key: "input", label: "input sequence"},
		{key: "output", label: "answer at the last step"},
		{key: "probability", label: "its probability", measured: true},
		{key: "hidden", label: "hidden units h"},
		{key: "params", label: "parameters"},
		{key: "checkpoint_accuracy", label: "accuracy of the bundled weights", measured: true},
		{key: "clamp", label: "clamped gate"},
		{key: "weights", label: "weights"},
	}
	classifierStep = []fact{
		{key: "token", label: `input \(x_t\)`},
		{key: "prediction", label: `prediction \(\hat{y}_t\)`, keep: true},
		{key: "probability", label: `\(p(\hat{y}_t)\)`, measured: true},
		{key: "answer", label: `right answer \(y_t\)`},
		{key: "answer_why", label: `why \(y_t\)`},
		{key: "correct", label: "right", keep: true},
	}
)

// taskSpec and inputSpec are the task and input parameters the GRU and LSTM pages
// share, which taskInput reads.
var (
	taskSpec = sim.ParamSpec{Name: "task", Label: "task", Kind: sim.Choice, Default: "checksum", Choices: data.TaskNames(),
		Help: "checksum: remember the first digit; skip: ignore filler “_”; reset: forget at a break “|”."}
	inputSpec = sim.ParamSpec{Name: "input", Label: "input sequence", Kind: sim.Text, MaxLen: 2 * data.MaxInputLen, MaxLenWhy: "a sequence of at most 40 tokens (and the spaces between them) fits the heatmaps, one column a token",
		Help: "One character per token, spaces ignored; empty means the task's example."}
)

// taskInput reads the task and input parameters the GRU and LSTM pages share: the
// task, the text used (the task's example when the input is empty) and its tokens.
func taskInput(v sim.Values) (task *data.Task, text string, ids []int, err error) {
	task, ok := data.FindTask(v.String("task"))
	if !ok {
		return nil, "", nil, fmt.Errorf("there is no task %q", v.String("task"))
	}
	text = v.String("input")
	if text == "" {
		text = task.Default
	}
	ids, err = task.Parse(text)
	return task, text, ids, err
}

// answersNote says, under the answers, what they mean: what "valid" is on the
// checksum task and why its step 1 has none (data.ChecksumTask's Unasked).
const answersNote = "On checksum, an answer is valid when the digit just read equals the first digit, the check digit: the sequence would be valid if it ended there. Step 1 is the check digit itself and asks nothing (—). Each step's facts say why its answer is right."

// classifierTokens is a task classifier's input panel: the tokens with the right
// answers (classifierStaticMeta) and each step's prediction (classifierMeta), with
// note and answersNote under them.
func classifierTokens(note string) Panel {
	return Panel{ID: "tokens", Static: []string{"tokens", "answers"}, Meta: []string{"prediction", "correct"}, Kind: Tokens, Title: "input tokens", Arrays: []string{"X"}, Symbol: "X",
		Note: note + " " + answersNote}
}

// classifierStaticMeta is the static meta of a task classifier's page (the gru and lstm
// pages) reading ids (typed as text): the tokens and the right answers y_t by name
// (nil where the task asks nothing), the task, the classes, the answer ŷ_T = argmax
// of the last step's probs with its probability, and the clamped gate.
func classifierStaticMeta(task *data.Task, ids []int, text string, probs []float64, clamp Clamp) map[string]any {
	tokens := make([]string, len(ids))
	for i, id := range ids {
		tokens[i] = data.Alphabet[id]
	}
	answers := make([]any, len(ids))
	for t, y := range task.Targets(ids) {
		switch {
		case y >= 0:
			answers[t] = task.Classes[y]
		case task.Unasked != "":
			answers[t] = task.Unasked // a step that asks nothing, which answer_why explains
		}
	}
	k := models.Argmax(probs)
	return map[string]any{
		"tokens":      tokens,
		"input":       text,
		"task":        task.Name,
		"task_title":  task.Title,
		"description": task.Description,
		"classes":     task.Classes,
		"answers":     answers,
		"output":      task.Classes[k],
		"probability": round4(probs[k]),
		"clamp":       clampName(clamp),
	}
}

// classifierMeta is step t's meta of a task classifier's page (the gru and lstm pages):
// the token x_t, the prediction ŷ_t = argmax P and its probability, and where the task
// has one at t, the right answer y_t and whether ŷ_t is right.
func classifierMeta(task *data.Task, ids []int, t int, probs []float64) map[string]any {
	k := models.Argmax(probs)
	meta := map[string]any{
		"token":       data.Alphabet[ids[t-1]],
		"prediction":  task.Classes[k],
		"probability": round4(probs[k]),
	}
	if y := task.Targets(ids)[t-1]; y >= 0 {
		meta["answer"] = task.Classes[y]
		meta["answer_why"] = task.Why(ids, t-1)
		meta["correct"] = y == k
	} else if task.UnaskedWhy != "" {
		meta["answer_why"] = task.UnaskedWhy
	}
	return meta
}
