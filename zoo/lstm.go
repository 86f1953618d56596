package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"

	"unroll/data"
	"unroll/models"
)

// Sizes and training settings of the LSTM lesson's classifiers (and of the vanilla
// RNNs it compares them with). Batch, learning rate and clipping are the GRU
// lesson's, so that the cells differ mainly in their equations.
const (
	LSTMHidden     = 12 // h: the GRU page's usual width, few enough units to read on a heatmap
	ForgetBiasInit = 1  // b_f starts at exactly +1 (F_t ≈ 0.73 at first): cells begin by keeping most of their content (Gers et al. 2000)
	lstmTrainSteps = gruTrainSteps
)

// SeqClassifier is a recurrent cell that reads one token per step (X_t is its one-hot
// vector) and predicts the task's target from every hidden state:
// ŷ_t = softmax(H_t W_q + b_q). The LSTM lesson uses it with an LSTM and with a
// vanilla tanh RNN.
type SeqClassifier struct {
	Task *data.Task
	Cell models.Cell
	Out  *models.Dense
	opt  *models.Adam
}

// NewLSTMClassifier returns an untrained LSTM classifier for task with weights drawn
// from seed and every b_f set to ForgetBiasInit.
func NewLSTMClassifier(task *data.Task, seed uint64) *SeqClassifier {
	rng := rand.New(rand.NewPCG(seed, 0x1997))
	return newLSTMClassifier(task, models.NewLSTM(len(data.Alphabet), LSTMHidden, rng), rng)
}

// NewPeepholeLSTMClassifier is NewLSTMClassifier with a peephole LSTM
// (models.NewPeepholeLSTM): its gates also see the memory cell.
func NewPeepholeLSTMClassifier(task *data.Task, seed uint64) *SeqClassifier {
	rng := rand.New(rand.NewPCG(seed, 0x2000))
	return newLSTMClassifier(task, models.NewPeepholeLSTM(len(data.Alphabet), LSTMHidden, rng), rng)
}

func newLSTMClassifier(task *data.Task, cell *models.LSTM, rng *rand.Rand) *SeqClassifier {
	setConst(cell.Bf, ForgetBiasInit)
	return &SeqClassifier{Task: task, Cell: cell, Out: models.NewDense("out.", LSTMHidden, len(task.Classes), rng), opt: models.NewAdam(gruLR)}
}

// setConst sets every entry of p to v.
func setConst(p *models.Param, v float64) {
	raw := p.Value.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = v
	}
}

// newRNNClassifier returns an untrained vanilla classifier,
// H_t = tanh(X_t W_xh + H_{t-1} W_hh + b_h), for task with weights drawn from seed.
func newRNNClassifier(task *data.Task, seed uint64) *SeqClassifier {
	rng := rand.New(rand.NewPCG(seed, 0x1986))
	cell := models.NewRNN(len(data.Alphabet), LSTMHidden, models.ActTanh, rng)
	return &SeqClassifier{Task: task, Cell: cell, Out: models.NewDense("out.", LSTMHidden, len(task.Classes), rng), opt: models.NewAdam(gruLR)}
}

// Params lists the cell's parameters as "lstm.W_xi", … (or "rnn.W_xh", …) then
// "out.W", "out.b".
func (m *SeqClassifier) Params() models.Params {
	return append(m.Cell.Params().WithPrefix(string(m.Cell.Kind())+"."), m.Out.Params()...)
}

// TraceOf runs the cell over a batch of equally long sequences from the zero state,
// step by step (models.ForwardSteps: bit-for-bit Step's numbers, which the bundled
// checkpoints were trained with); X_t is input(t), or the clean one-hot vectors when
// input is nil.
func TraceOf(cell models.Cell, ids [][]int, input func(t int) *mat.Dense) *models.Trace {
	xs := make([]*mat.Dense, len(ids[0]))
	for t := range xs {
		if input != nil {
			xs[t] = input(t)
		} else {
			xs[t] = oneHot(ids, t)
		}
	}
	tr, err := models.ForwardSteps(cell, xs, models.State{})
	if err != nil {
		panic(err) // the tasks' inputs are finite and never empty
	}
	return tr
}

// TrainStep runs one minibatch of Adam on L = mean over labelled steps of
// −log ŷ_t[y_t], drawing the batch from rng. It returns the loss and the share of
// labelled steps predicted right.
func (m *SeqClassifier) TrainStep(rng *rand.Rand) (loss, accuracy float64) {
	return trainClassifier(m.Task, m.Cell, m.Out, m.Params(), m.opt, rng)
}

// Probs returns ŷ_t for every step of ids, read by the unclamped cell from H_0 = 0.
func (m *SeqClassifier) Probs(ids []int) [][]float64 {
	tr := TraceOf(m.Cell, [][]int{ids}, nil)
	out := make([][]float64, len(ids))
	for t, st := range tr.Steps {
		logits := m.Out.Forward(st.Next.H).RawRowView(0)
		out[t] = make([]float64, len(logits))
		models.Softmax(out[t], logits)
	}
	return out
}

// Evaluate returns the share of labelled steps predicted right and the share of
// sequences whose last step is predicted right.
func (m *SeqClassifier) Evaluate(seqs [][]int) (stepAcc, finalAcc float64) {
	return evaluate(m.Task, seqs, m.Probs)
}

// LSTMStep is one time step of the lesson's LSTM for a single sequence.
type LSTMStep struct {
	X, I, F, O, CTilde, C, H []float64
	Kept, Written            []float64 // F_t ⊙ C_{t-1} and I_t ⊙ C̃_t, the two terms of C_t
	Probs                    []float64 // ŷ_t over the task's classes
}

// RunLSTM reads ids from H_0 = C_0 = 0 with the cell's Step (the clamped gate,
// "I", "F" or "O", fixed by models.LSTM.WithClamp) and returns every step with
// ŷ_t = softmax(H_t W_q + b_q) and the two terms of C_t = F_t ⊙ C_{t-1} + I_t ⊙ C̃_t.
// It panics unless m's cell is an LSTM.
func (m *SeqClassifier) RunLSTM(ids []int, clamp models.GateClamp) []LSTMStep {
	cell := m.Cell.(*models.LSTM).WithClamp(clamp)
	steps := make([]LSTMStep, len(ids))
	var state models.State
	for t := range ids {
		tr := cell.Step(oneHot([][]int{ids}, t), state)
		st := LSTMStep{
			X: row0(tr.X), I: row0(tr.Gate("I")), F: row0(tr.Gate("F")), O: row0(tr.Gate("O")),
			CTilde: row0(tr.Gate("C_tilde")), C: row0(tr.Next.C), H: row0(tr.Next.H),
			Probs: softmaxOut(m.Out, tr.Next.H),
		}
		prevC := tr.Prev.C.RawRowView(0)
		st.Kept, st.Written = make([]float64, len(st.C)), make([]float64, len(st.C))
		for j := range st.C {
			st.Kept[j] = st.F[j] * prevC[j]
			st.Written[j] = st.I[j] * st.CTilde[j]
		}
		steps[t] = st
		state = tr.Next
	}
	return steps
}

// LastStepGradients backpropagates the loss at the last step only,
// L = −log ŷ_T[y] (y = target), through the unclamped cell reading ids, and returns
// ‖∂L/∂H_t‖ for t = 1..T and, for an LSTM, ‖∂L/∂C_t‖ (0 at t = T, where L reads only
// H_T). It only reads the models: it leaves every Param.Grad as it was, so pages
// may share them.
func LastStepGradients(cell models.Cell, out *models.Dense, ids []int, target int) (hNorm, cNorm []float64) {
	tr := TraceOf(cell, [][]int{ids}, nil)
	T := len(ids)
	H := tr.Steps[T-1].Next.H
	_, _, dLogits := models.SoftmaxCrossEntropy(out.Forward(H), []int{target}, nil)
	dH := make([]*mat.Dense, T)
	dH[T-1] = mat.NewDense(1, cell.HiddenSize(), nil)
	dH[T-1].Mul(dLogits, out.W.Value.T()) // ∂L/∂H_T = ∂L/∂O W_qᵀ, as out.Backward computes it
	g := models.Backward(cell, tr, dH, models.BPTTOptions{NoParamGrads: true})
	return g.HNorm, g.CNorm
}

// LSTMCheckpointFile and RNNCheckpointFile are the bundled checkpoints of a task's
// LSTM and vanilla RNN classifiers, under zoo/checkpoints.
func LSTMCheckpointFile(task string) string { return "lstm-" + task + ".safetensors" }

// PeepholeCheckpointFile is the bundled checkpoint of a task's peephole LSTM.
func PeepholeCheckpointFile(task string) string { return "lstm-peephole-" + task + ".safetensors" }

// RNNCheckpointFile: see LSTMCheckpointFile.
func RNNCheckpointFile(task string) string { return "rnn-" + task + ".safetensors" }

// seqCheckpoints loads every bundled LSTM and RNN task checkpoint once: the shared,
// read-only models (see bundled).
var seqCheckpoints = sync.OnceValues(func() (map[string]bundled[*SeqClassifier], error) {
	out := map[string]bundled[*SeqClassifier]{}
	for _, task := range data.Tasks {
		for name, fresh := range map[string]*SeqClassifier{
			LSTMCheckpointFile(task.Name):     NewLSTMClassifier(task, 0),
			PeepholeCheckpointFile(task.Name): NewPeepholeLSTMClassifier(task, 0),
			RNNCheckpointFile(task.Name):      newRNNClassifier(task, 0),
		} {
			b, err := loadBundled(name, fresh)
			if err != nil {
				return nil, err
			}
			out[name] = b
		}
	}
	return out, nil
})

// bundledSeq is the bundled classifier in file.
func bundledSeq(file string) (bundled[*SeqClassifier], error) {
	all, err := seqCheckpoints()
	if err != nil {
		return bundled[*SeqClassifier]{}, err
	}
	b, ok := all[file]
	if !ok {
		return b, fmt.Errorf("zoo: no bundled checkpoint %s", file)
	}
	return b, nil
}

// loadSeq returns a fresh copy of the bundled classifier in file, built by fresh.
func loadSeq(file string, fresh *SeqClassifier) (*SeqClassifier, Meta, error) {
	b, err := bundledSeq(file)
	if err != nil {
		return nil, nil, err
	}
	return b.copyOf(fresh), b.meta, nil
}

// SharedSeq is the bundled classifier in file itself, shared by every page that only
// reads it (RunLSTM, Probs and LastStepGradients never write).
func SharedSeq(file string) (*SeqClassifier, Meta, error) {
	b, err := bundledSeq(file)
	return b.model, b.meta, err
}

// LoadLSTMClassifier returns a fresh copy of the bundled trained LSTM for task and
// its checkpoint metadata.
func LoadLSTMClassifier(task *data.Task) (*SeqClassifier, Meta, error) {
	return loadSeq(LSTMCheckpointFile(task.Name), NewLSTMClassifier(task, 0))
}

// LoadPeepholeLSTMClassifier returns a fresh copy of the bundled trained peephole
// LSTM for task and its checkpoint metadata.
func LoadPeepholeLSTMClassifier(task *data.Task) (*SeqClassifier, Meta, error) {
	return loadSeq(PeepholeCheckpointFile(task.Name), NewPeepholeLSTMClassifier(task, 0))
}

// LoadRNNClassifier returns a fresh copy of the bundled trained vanilla RNN for task
// and its checkpoint metadata.
func LoadRNNClassifier(task *data.Task) (*SeqClassifier, Meta, error) {
	return loadSeq(RNNCheckpointFile(task.Name), newRNNClassifier(task, 0))
}

// CellRange is the largest |C_t| the LSTM m reaches on seqs (unclamped).
func (m *SeqClassifier) CellRange(seqs [][]int) float64 {
	top := 0.0
	for _, ids := range seqs {
		for _, st := range m.RunLSTM(ids, models.GateClamp{}) {
			for _, c := range st.C {
				top = max(top, math.Abs(c))
			}
		}
	}
	return top
}

// seqCheckpointMeta is the metadata cmd/train records with a trained classifier: its
// settings and its accuracies on EvalSet (and, for an LSTM, the largest |C_t| there).
func seqCheckpointMeta(m *SeqClassifier, seed uint64, steps int) Meta {
	seqs := EvalSet(m.Task)
	stepAcc, finalAcc := m.Evaluate(seqs)
	meta := map[string]string{
		"task": m.Task.Name, "cell": cellName(m.Cell), "hidden": strconv.Itoa(LSTMHidden),
		"seed": strconv.FormatUint(seed, 10), "steps": strconv.Itoa(steps),
		"batch": strconv.Itoa(gruBatch), "lr": fg(gruLR),
		"eval_seed": strconv.Itoa(gruEvalSeed), "eval_seqs": strconv.Itoa(gruEvalSeqs),
		"accuracy": fg(stepAcc), "final_accuracy": fg(finalAcc),
	}
	if m.Cell.Kind() == models.KindLSTM {
		meta["forget_bias_init"] = fg(ForgetBiasInit)
		meta["c_max"] = fg(m.CellRange(seqs))
	}
	return meta
}

// cellName is the cell's kind as the checkpoints record it: "lstm-peephole" for an
// LSTM with peepholes.
func cellName(c models.Cell) string {
	if l, ok := c.(*models.LSTM); ok && l.Peephole() {
		return "lstm-peephole"
	}
	return string(c.Kind())
}
