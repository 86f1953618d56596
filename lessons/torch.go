package lessons

import (
	"embed"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// PyTorchModel is a lesson's model as GET /lessons/{slug}/model.safetensors exports it
// (docs/api.md): the recurrent cell and its head as the page runs them now (bundled,
// trained on the page, or the page's own session's), the inputs the page reads, each a
// one-hot vector of the cell's input size, and the page's own H_t, t = 1 … len(Inputs),
// from the lesson's run (what PyTorch must reproduce).
//
// A stack (deep-rnn, birnn) sets Layers instead of Cell: Layers[l][d] is layer l's cell
// of direction d (0 forward, 1 reverse), and H_t is what PyTorch's output holds, the
// top layer's [→H_t, ←H_t]. Inputs that are numbers rather than tokens (the market
// series) are X, T rows of the cell's input size, instead of Inputs.
type PyTorchModel struct {
	Cell   models.Cell
	Layers [][]models.Cell
	Head   *models.Dense
	Inputs []int
	X      [][]float64
	H      [][]float64
}

// Stack is the model's layers and directions: Layers, or the one Cell.
func (p PyTorchModel) Stack() [][]models.Cell {
	if p.Layers != nil {
		return p.Layers
	}
	return [][]models.Cell{{p.Cell}}
}

// Steps is T, the inputs' length.
func (p PyTorchModel) Steps() int { return max(len(p.Inputs), len(p.X)) }

// pytorchModule is the torch.nn class of each kind torchload.Export writes, and the
// keyword arguments it needs beyond the sizes.
var pytorchModule = map[string]struct{ Class, Options string }{
	torchload.KindGRU:     {"GRU", "{}"},
	torchload.KindLSTM:    {"LSTM", "{}"},
	torchload.KindRNNTanh: {"RNN", `{"nonlinearity": "tanh"}`},
	torchload.KindRNNReLU: {"RNN", `{"nonlinearity": "relu"}`},
}

// PyTorchExporter is a lesson model whose cell PyTorch has (nn.RNN, nn.GRU, nn.LSTM).
type PyTorchExporter interface {
	PyTorch() PyTorchModel
}

// PyTorchProgram is a lesson model that no one torch.nn module computes (the lectures'
// reset-before GRU, an encoder-decoder, a Transformer, word embeddings). It exports its
// parameters as a state_dict under PyTorch-style names, and its lesson's script,
// lessons/pytorch/{script}, defines the model in a few lines of torch, loads the file
// and computes the page's numbers.
type PyTorchProgram interface {
	// PyTorchFile is the model now, with the page's inputs, at the page's step (0: the
	// model's own choice, usually the last).
	PyTorchFile(step int) (PyTorchFile, error)
}

// PyTorchFile is a model's export: the tensors (float64, 1-D or 2-D, row-major as
// PyTorch stores them), the metadata the script reads (beside the "format", "lesson",
// "script" and "step" every export carries), the script in lessons/pytorch that runs
// it (one of its lesson's), the step it is at, and H, the page's own numbers at that
// step, which the script computes (bench/pytorch/roundtrip.py compares them).
type PyTorchFile struct {
	Tensors []*torchload.Tensor
	Meta    map[string]string
	Script  string
	Step    int
	H       []float64
}

// pyTorch is what lesson slug's model.safetensors holds (trusted HTML, shown beside the
// download) and the scripts, in lessons/pytorch, that load it (which one, the file's
// metadata says: a lesson's model may take several forms).
type pyTorch struct {
	note    string
	scripts []string
}

// nnScript is the script of the lessons whose model is a PyTorchExporter: five lines that
// load the file into torch.nn.RNN, GRU or LSTM.
const nnScript = "nn.py"

// bpttScript is the bptt lesson's script: the leaky RNN written in torch, its ∂L/∂H_t
// from autograd, clipped and truncated as on the page.
const bpttScript = "bptt.py"

// lectureGRUScript is the script of the lectures' GRU (reset-before), which no nn.GRU
// computes: the cell written in torch, over a stack of layers.
const lectureGRUScript = "lecture_gru.py"

// pyTorchModels are the lessons whose models are PyTorchExporters or PyTorchPrograms (a
// test holds the list to the models Build makes), so that the page can offer the
// download before it builds one.
var pyTorchModels = map[string]pyTorch{
	"gru": {`The GRU classifier: its cell under <code>torch.nn.GRU</code>'s names (<code>rnn.*</code>, gate blocks \(R, Z, \tilde H\) stacked in <code>weight_ih_l0</code> and <code>weight_hh_l0</code>, each our \(W\) transposed) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>). ` +
		`The <b>reset-after</b> form is what <code>nn.GRU</code> computes: the first script loads it there (a clamped gate is refused: <code>nn.GRU</code> cannot hold one). The lectures' form applies the reset gate to \(H_{t-1}\) before \(W_{hh}\), which no <code>nn.GRU</code> weights reproduce: the second script writes that cell in torch, with the clamped gate if the page has one; its one bias a gate is <code>bias_l0</code> \([b_r, b_z, b_h]\).`, []string{nnScript, lectureGRUScript}},
	"lstm": {`The LSTM classifier, as <code>torch.nn.LSTM</code> (<code>rnn.*</code>, gate blocks in PyTorch's order \(I, F, \tilde C, O\)) and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>). A clamped gate is refused. The peephole LSTM, which no <code>nn.LSTM</code> computes, has <code>nn.LSTM</code>'s tensors and its diagonal weights as <code>rnn.peephole_l0</code> \([p_i, p_f, p_o]\), for the third script. The models beside it download as their own files: the vanilla RNN for the first script too, the GRU, the lectures' form, for the second (the GRU page's layout, one bias a gate), the LSTM of the other form for the third.`, []string{nnScript, lectureGRUScript, peepholeScript}},
	"deep-rnn": {`The stack of \(L\) layers, as <code>torch.nn.RNN</code> or <code>torch.nn.LSTM</code> with <code>num_layers = L</code> (<code>rnn.*</code>), and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>, \(\hat x_{t+1}\) and \(o_t\)); the inputs are the days' moves \(x_t\), and PyTorch's output is the top layer's \(H_t^{(L)}\). ` +
		`The GRU stack's cells are the lectures' form (the reset gate before \(W_{hh}\)), which <code>nn.GRU</code> does not compute: its file has <code>nn.GRU</code>'s layout, layer by layer (<code>rnn.weight_ih_l</code>\(l\), <code>rnn.weight_hh_l</code>\(l\), and one bias a gate, <code>rnn.bias_l</code>\(l\) \([b_r, b_z, b_h]\)), and the second script computes it.`, []string{nnScript, lectureGRUScript}},
	"bptt":            {`The RNN of the page in <code>torch.nn.RNN</code>'s layout (<code>rnn.weight_ih_l0</code> is \(W_{xh}^\top\), <code>rnn.weight_hh_l0</code> is \(W_{hh}^\top\)) with its one bias \(b_h\) as <code>rnn.bias_l0</code>; the metadata holds \(\phi\), \(\alpha\), \(k\), \(\theta\) and what it clips, the inputs \(X_t\), the vector \(u\) of the loss \(L = H_T u^\top\), and the time step \(t\) of the page's step. <code>nn.RNN</code> has neither a leak nor the identity, so the script writes the unit itself.`, []string{bpttScript}},
	"birnn":           {`The bidirectional model, as <code>torch.nn.RNN</code> with <code>bidirectional=True</code> (<code>rnn.*</code>, the backward direction's tensors ending in <code>_reverse</code>), and its read-out as <code>torch.nn.Linear</code> (<code>out.*</code>, which reads \([\overrightarrow{H}_t, \overleftarrow{H}_t]\) at the blank's \(t\)); PyTorch's output at \(t\) is \([\overrightarrow{H}_t, \overleftarrow{H}_t]\). The unidirectional model and the two next-word models beside it download as their own files, for the same script.`, []string{nnScript}},
	"rnn":             {`The character language model A, as <code>torch.nn.RNN</code> with tanh (<code>rnn.*</code>) and its output layer as <code>torch.nn.Linear</code> (<code>out.*</code>); the inputs are the prompt and the characters it wrote; the first script loads it. Beside it, C downloads the same way (its head \(W_{hq}, b_q\), read after the last step, as <code>out.*</code>), for the first script too; B has no hidden-to-hidden weights, only one layer over \([X_t, \hat y_{t-1}]\) as <code>torch.nn.Linear</code> (<code>in.weight</code> \([W_{xh}; W_{oh}]^\top\), <code>in.bias</code> \(b_h\)) and its output layer (<code>out.*</code>), which the second script runs.`, []string{nnScript, rnnArchScript}},
	"sentiment":       {`Both classifiers on their one \(E\): \(E\) as <code>torch.nn.Embedding</code> (<code>embedding.weight</code>, row \(v\) word \(v\)'s vector), the average model's \(W, b\) and the GRU's read-out \(W_{ya}, b_y\) as <code>torch.nn.Linear</code> (<code>avg.*</code>, <code>out.*</code>), and the GRU, the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>gru.weight_ih_l0</code> \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>gru.weight_hh_l0</code> and <code>gru.bias_l0</code>, for a cell written in four lines.`, []string{sentimentScript}},
	"captioning":      {`The captioner of the approach the page shows (each of the three also downloads on its own, above): the encoder's \(W_v, b_v\) and the output layer as <code>torch.nn.Linear</code> (<code>encoder.*</code>, <code>out.*</code>), the word vectors \(e(y)\) as <code>torch.nn.Embedding</code> (<code>embedding.weight</code>), and the GRU decoder, the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\) (<code>decoder.weight_ih_l0</code>, <code>decoder.weight_hh_l0</code>, <code>decoder.bias_l0</code>; its input is \(e(y^{(t-1)})\), or \([e(y^{(t-1)}); x]\) when \(x\) is fed at every step). The image \(v\), the approach and the vocabulary are in the metadata.`, []string{captioningScript}},
	"embeddings":      {`Both embeddings, each table as a <code>torch.nn.Embedding</code> weight (row \(w\) word \(w\)'s vector): skip-gram's \(E\) (<code>embedding.weight</code>, the \(e_w\)) and its output vectors \(\theta_w\) (<code>context.weight</code>), and GloVe's \(\theta_i\), \(e_j\), \(b_i\) and \(b'_j\) (<code>glove.theta.weight</code>, <code>glove.e.weight</code>, <code>glove.b</code>, <code>glove.b_prime</code>); the words, the step's pair \((c, t)\) and its negatives are in the metadata.`, []string{embeddingsScript}},
	"encoder-decoder": {`The encoder-decoder on the page (its \(L\) layers a side, bundled or untrained): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the greedy outputs the decoder reads back, and both vocabularies.`, []string{seq2seqScript}},
	"seq2seq":         {`The seq2seq model as the page has it now (the checkpoint, the seed's untrained weights, or either trained on this page): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the padded labels (teacher forcing), the free-running outputs, and both vocabularies.`, []string{seq2seqScript}},
	"attention":       {`The attention model of the chosen task (the model without attention beside it downloads as its own file, for the same script): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The alignment network \(f_\theta\) is three <code>torch.nn.Linear</code> without bias (<code>decoder.attention.W_q</code>, <code>W_k</code>, <code>v</code>). The metadata holds the source ids, the outputs the decoder reads back, and both vocabularies.`, []string{seq2seqScript}},
	"beam-search":     {`In the trained mode, the translator the beam searches (the bundled GRU encoder-decoder): the embeddings as <code>torch.nn.Embedding</code> (<code>encoder.embedding.*</code>, <code>decoder.embedding.*</code>), the output layer as <code>torch.nn.Linear</code> (<code>decoder.out.*</code>), and each GRU layer \(k\) (<code>encoder.rnn.*_l</code>\(k\), <code>decoder.rnn.*_l</code>\(k\)), the lectures' form, which no <code>torch.nn.GRU</code> computes, as its gate blocks in PyTorch's layout and order \(r, z, \tilde h\): <code>weight_ih_l</code>\(k\) \([W_{xr}^\top; W_{xz}^\top; W_{xh}^\top]\), <code>weight_hh_l</code>\(k\) and one bias <code>bias_l</code>\(k\), for a cell written in three lines. The metadata holds the source ids, the hypotheses the page lists at its step, and both vocabularies. The toy's tables are no network: with the toy chosen the download is refused.`, []string{seq2seqScript}},
	"transformer": {`The Transformer the page runs (the one trained with or without the mask, as the switch says), as <code>torch.nn.Embedding</code>, <code>nn.Linear</code> and <code>nn.LayerNorm</code> modules named <code>src_embedding</code>, <code>encoder.{l}.self_attn.W_Q</code> …, <code>decoder.{l}.cross_attn.W_O</code>, <code>linear1</code>, <code>norm3</code>, <code>out</code>. ` +
		`An attention's <code>W_Q</code> is \([W_1^Q \dots W_h^Q]\) as one <code>nn.Linear</code> without bias, head \(i\)'s \(d_k\) rows after head \(i-1\)'s, as in <code>nn.MultiheadAttention</code>. The attention itself is written out: <code>nn.MultiheadAttention</code> always divides by \(\sqrt{d_k}\), and the page can switch that off. The GRU with attention beside it downloads as its own file, for the second script, the attention page's.`, []string{transformerScript, seq2seqScript}},
}

//go:embed pytorch/*.py
var pyTorchScripts embed.FS

// HasPyTorch reports whether lesson slug's model downloads as a PyTorch state_dict.
func HasPyTorch(slug string) bool { return len(pyTorchModels[slug].scripts) > 0 }

// PyTorchNote is what lesson slug's model.safetensors holds, as trusted HTML ("" for
// a lesson without one).
func PyTorchNote(slug string) string { return pyTorchModels[slug].note }

// PyTorchCompanions is a model whose page shows other trained models beside its own
// (the LSTM page's GRU and vanilla RNN): each downloads by its name, model=NAME, one of
// its lesson's Companions.
type PyTorchCompanions interface {
	PyTorchCompanion(name string, step int) (PyTorchFile, error)
}

// Companion is a model a page shows beside its own: its name in model=NAME and what it
// is, as trusted HTML for the download's link.
type Companion struct{ Name, Label string }

// pyTorchCompanions are the models beside each lesson's own (a test holds them to the
// models Build makes); their files name scripts of the lesson's.
var pyTorchCompanions = map[string][]Companion{
	"attention": {{"without", `the translator without attention, for <code>seq2seq.py</code>: the page shows only its translation, each word the argmax of the \(P(y_{t'} \mid \hat y_{\lt t'}, x)\) the script prints as <code>H</code> at the page's step`}},
	"birnn": {
		{"unidirectional", `the unidirectional model beside the bidirectional one, as <code>torch.nn.RNN</code>, for <code>nn.py</code>: <code>H</code> is its \(\overrightarrow{H}_t\)`},
		{"next-uni", `the unidirectional next-word model, for <code>nn.py</code>: <code>H</code> is the \(\overrightarrow{H}_t\) its guess for \(x_{t+1}\) reads (the page shows only the guess)`},
		{"next-bi", `the bidirectional next-word model, for <code>nn.py</code>: <code>H</code> is the \([\overrightarrow{H}_t, \overleftarrow{H}_t]\) of the whole sentence its guess reads (the page shows only the guess)`},
	},
	"lstm": {
		{"gru", `the GRU beside the LSTM (the lectures' form), for <code>lecture_gru.py</code>: <code>H</code> is its \(H_t\)`},
		{"rnn", `the vanilla RNN beside the LSTM, as <code>torch.nn.RNN</code>, for <code>nn.py</code>: <code>H</code> is its \(H_t\)`},
		{"other-form", `the LSTM of the other form, with peepholes beside the plain LSTM and without beside the peephole one, for <code>peephole_lstm.py</code>: <code>H</code> is its \(C_t\), the peephole panel's other row`},
	},
	"transformer": {{"gru-attention", `the GRU with attention beside the Transformer, for <code>seq2seq.py</code>: the page shows only its translation; <code>H</code> at its step \(t'\) is \(\alpha_{t'j}\), then \(P(y_{t'} \mid \hat y_{\lt t'}, x)\), whose argmax is its word there`}},
	"rnn": {
		{"arch-b", `architecture B beside the language model, output → hidden, \(H_t = \tanh(X_t W_{xh} + \hat y_{t-1} W_{oh} + b_h)\), as two <code>torch.nn.Linear</code> for <code>rnn_arch.py</code>`},
		{"arch-c", `architecture C beside it, one answer after the last step, as <code>torch.nn.RNN</code> and its head for <code>nn.py</code>`},
	},
	"captioning": {
		{"approach-1", `approach 1's captioner, \(h^{(0)} = x\)`},
		{"approach-2", `approach 2's captioner, \(x\) fed at every step`},
		{"approach-3", `approach 3's captioner, both (\(h^{(0)} = x\) and \(x\) at every step)`},
	},
}

// Companions are the models lesson slug's page shows beside its own, each downloadable.
func Companions(slug string) []Companion { return pyTorchCompanions[slug] }

// PyTorchScripts are the names of lesson slug's scripts in lessons/pytorch (none for a
// lesson without a model to download).
func PyTorchScripts(slug string) []string { return pyTorchModels[slug].scripts }

// pyTorchIntros say what each script does, as trusted HTML above it on the page.
var pyTorchIntros = map[string]string{
	sentimentScript:   `This script writes the lectures' GRU cell in torch, loads the rest into <code>torch.nn</code> modules, reads the review and prints the page's numbers at its step: \(a^{\langle t \rangle}\), then \(P(\text{positive})\) of the GRU and of the average of the first \(t\) words, and the vote \(v^{\langle t \rangle}\):`,
	captioningScript:  `This script encodes the image, \(x = \tanh(v W_v + b_v)\), and writes the caption greedily with the lectures' GRU cell up to the page's step \(t\), printing the words and then \(x\), \(h^{(t)}\) and the next-word distribution \(\hat y^{(t)}\), the page's numbers:`,
	embeddingsScript:  `This script scores the page's pair \((c, t)\) and its negatives, \(\sigma(\theta^\top e_c)\), and the example's loss \(L\), and lists the typed word's nearest neighbours by cosine in skip-gram's \(e_w\) and GloVe's \((e_w + \theta_w)/2\), the numbers of the bars and of the neighbours table:`,
	seq2seqScript:     `These lines (with <code>pip install torch safetensors</code>) build the encoder-decoder from <code>torch.nn</code> modules and the GRU written out, run it on the page's source, feed the decoder <code>&lt;bos&gt;</code> and then the tokens the page feeds it, and print \(H\), the page's numbers at its step: on the encoder's steps its state \(\mathbf{h}_t\) (\(\mathbf{h}_T\) at the context); at decoder step \(t'\), the weights \(\alpha_{t'j}\) (with attention) and \(P(y_{t'} \mid y_{\lt t'}, \mathbf{x})\), for each run the page shows (on the seq2seq page teacher forcing, then free running); on the beam-search page, \(\log P(y \mid \mathbf{x})\) of each hypothesis it lists at its step:`,
	transformerScript: `These lines (with <code>pip install torch safetensors</code>) rebuild the model, load it, and run the encoder over the source \(x\) and the decoder over \(\langle bos\rangle, \hat y_1, \dots, \hat y_{t'-1}\), with \(M\) and \(s = 1/\sqrt{d_k}\) as the page's switches say; <code>H</code> is \(P(y_{t'} \mid \hat y_{&lt;t'}, x)\) at the page's step \(t'\), the softmax the page shows, over the \(V'\) target tokens:`,
	nnScript:          `For a model that is one <code>torch.nn.RNN</code>, <code>GRU</code> (the <b>reset-after</b> form) or <code>LSTM</code>, these five lines (with <code>pip install torch safetensors</code>) load it and print \(H_t\) at the page's step, the numbers the page shows:`,
	bpttScript:        `These lines write the leaky unit \(H_t = (1-\alpha) H_{t-1} + \alpha\,\phi(X_t W_{xh} + H_{t-1} W_{hh} + b_h)\) in torch and let autograd walk back from \(L = H_T u^\top\), clipping \(\partial L/\partial H_t\) on the way (a hook on each \(H_t\)) or the weights' gradient after it, and cutting the walk after \(k\) steps (<code>detach</code>). <code>H</code> holds, at the time step \(t\) of the page's step, the page's numbers: \(H_t\), then \(\partial L/\partial H_t\) (zero where truncation cut \(t\) off), then \(\lVert \partial L/\partial W_{hh} \rVert\):`,
	peepholeScript:    `For the LSTM with peephole connections, which no <code>nn.LSTM</code> has, these lines write the cell in torch, the gates seeing \(C_{t-1}\) (and \(O_t\) the new \(C_t\)) through \(p_i, p_f, p_o\), run it over the page's input and print \(H_t\) (the page's LSTM) or \(C_t\) (the LSTM of the other form beside it, as the metadata's <code>H</code> says) at the page's step:`,
	rnnArchScript:     `For architecture B, which no <code>torch.nn</code> module computes (its recurrence runs from the output \(\hat y_{t-1}\), not from \(H_{t-1}\)), these lines load its two layers as <code>torch.nn.Linear</code>, write the recurrence from \(\hat y_0 = 0\) over the page's characters and print \(H_t\) and \(\hat y_t\) at the page's step:`,
	lectureGRUScript:  `For the lectures' GRU (the <b>lecture</b> form), which no <code>nn.GRU</code> computes, these lines write its cell in torch, \(R_t\), \(Z_t\), \(\tilde H_t\) and \(H_t\) as in the equations, load the file's blocks into \(W_{x\cdot}\), \(W_{h\cdot}\) and \(b_\cdot\), run every layer over the page's inputs and print \(H_t\) of the top layer at the page's step:`,
}

// PyTorchIntro is what script does, as trusted HTML.
func PyTorchIntro(script string) string { return pyTorchIntros[script] }

// PyTorchSnippet is script's Python, which the page shows beside the download: it loads
// model.safetensors into torch (for nn.py, torch.nn.GRU, LSTM or RNN: the file's
// metadata says which, with the sizes, the inputs and the page's step) and computes the
// page's numbers at its step as H. bench/pytorch/roundtrip.py runs these very files.
func PyTorchSnippet(script string) string {
	b, err := pyTorchScripts.ReadFile("pytorch/" + script)
	if err != nil {
		panic(err) // TestPyTorchScripts
	}
	return string(b)
}

func stepH[S any](steps []S, h func(S) []float64) [][]float64 {
	out := make([][]float64, len(steps))
	for t, s := range steps {
		out[t] = h(s)
	}
	return out
}

// PyTorch is the GRU classifier reading the page's input, with the page's clamped gate
// if any (File refuses a clamp, and the lectures' variant, which nn.GRU cannot
// compute: PyTorchFile writes that one for lecture_gru.py).
func (m *gruModel) PyTorch() PyTorchModel {
	return PyTorchModel{Cell: m.clf.Cell.WithClamp(m.clamp), Head: m.clf.Out, Inputs: m.ids,
		H: stepH(m.clf.Run(m.ids, m.clamp), func(s zoo.GRUStep) []float64 { return s.H })}
}

// PyTorch is the LSTM with the page's clamped gate if any (not the GRU and RNN the page
// compares it with: PyTorchCompanion). File refuses a clamp and peepholes (PyTorchFile
// writes those for peephole_lstm.py).
func (m *lstmModel) PyTorch() PyTorchModel {
	var cell models.Cell = m.lstm.Cell
	if c, ok := cell.(*models.LSTM); ok {
		cell = c.WithClamp(m.clamp)
	}
	return PyTorchModel{Cell: cell, Head: m.lstm.Out, Inputs: m.ids,
		H: stepH(m.lstm.RunLSTM(m.ids, m.clamp), func(s zoo.LSTMStep) []float64 { return s.H })}
}

// PyTorch is the character language model reading the prompt and what it wrote.
func (m *rnnModel) PyTorch() PyTorchModel {
	steps := m.run()
	return PyTorchModel{Cell: m.lm.Cell, Head: m.lm.Out, Inputs: m.inputs()[:len(steps)],
		H: stepH(steps, func(s zoo.CharStep) []float64 { return s.H })}
}

// PyTorch is the stack of L layers reading the page's series (its GRU is the lectures'
// form, which File refuses and PyTorchFile writes for lecture_gru.py).
func (m *deepModel) PyTorch() PyTorchModel {
	r := m.states()
	p := PyTorchModel{Head: m.net.Out}
	for _, c := range m.net.Net.Layers {
		p.Layers = append(p.Layers, []models.Cell{c})
	}
	for t := range m.Steps() {
		p.X = append(p.X, []float64{m.series.X[t]})
		p.H = append(p.H, r.States[t][len(r.States[t])-1])
	}
	return p
}

// PyTorchFile is the classifier for nn.py in the reset-after form, for lecture_gru.py in
// the lectures' form.
func (m *gruModel) PyTorchFile(step int) (PyTorchFile, error) { return m.PyTorch().program(step) }

// PyTorchFile is the stack for nn.py, or for lecture_gru.py when its cells are the
// lectures' GRU.
func (m *deepModel) PyTorchFile(step int) (PyTorchFile, error) { return m.PyTorch().program(step) }

// PyTorch is the bidirectional model reading the page's sentence.
func (m *birnnModel) PyTorch() PyTorchModel {
	r := m.bi.Run(m.ids, m.blank)
	p := PyTorchModel{Layers: [][]models.Cell{{m.bi.Fwd, m.bi.Bwd}}, Head: m.bi.Out, Inputs: m.ids}
	for t := range r.Fwd {
		p.H = append(p.H, append(append([]float64(nil), r.Fwd[t]...), r.Bwd[t]...))
	}
	return p
}

// File is the model's export for lessons/pytorch/nn.py: the cells as
// torch.nn.RNN, GRU or LSTM (torchload.ExportStack), and in the metadata the module,
// its sizes and options, the inputs and the step (0 or past the end: the last).
func (p PyTorchModel) File(step int) (PyTorchFile, error) {
	ts, arch, err := torchload.ExportStack(p.Stack(), p.Head)
	if err != nil {
		return PyTorchFile{}, err
	}
	mod := pytorchModule[arch.Kind]
	options := map[string]any{}
	_ = json.Unmarshal([]byte(mod.Options), &options)
	if arch.Layers > 1 {
		options["num_layers"] = arch.Layers
	}
	if arch.Bidirectional {
		options["bidirectional"] = true
	}
	opts, _ := json.Marshal(options)
	meta := map[string]string{
		"module":      mod.Class,
		"options":     string(opts),
		"input_size":  strconv.Itoa(arch.InputSize),
		"hidden_size": strconv.Itoa(arch.HiddenSize),
		"prefix":      torchload.ExportPrefix,
		"head":        torchload.ExportHead,
	}
	return p.file(ts, meta, nnScript, step), nil
}

// file is the export of ts with meta and, added to it, the inputs: "x", the numbers
// (one row a step), or "inputs", the token ids. Its step is step, or the last when
// step is 0 or past the end.
func (p PyTorchModel) file(ts []*torchload.Tensor, meta map[string]string, script string, step int) PyTorchFile {
	step = exportStep(step, p.Steps())
	if p.X != nil { // numbers, one row a step
		x, _ := json.Marshal(p.X)
		meta["x"] = string(x)
	} else {
		inputs, _ := json.Marshal(p.Inputs)
		meta["inputs"] = string(inputs)
	}
	return PyTorchFile{Tensors: ts, Meta: meta, Script: script, Step: step, H: p.H[step-1]}
}

// lectureGRU reports whether the stack is the lectures' GRU (reset-before), one
// direction, which no nn.GRU computes.
func lectureGRU(stack [][]models.Cell) bool {
	for _, row := range stack {
		if g, ok := row[0].(*models.GRU); !ok || g.ResetAfter() || len(row) != 1 {
			return false
		}
	}
	return true
}

// program is the model's export: for the lectures' GRU, lectureGRUFile's, else File's.
func (p PyTorchModel) program(step int) (PyTorchFile, error) {
	if lectureGRU(p.Stack()) {
		return p.lectureGRUFile(step)
	}
	return p.File(step)
}

// lectureGRUFile is the export of a stack of the lectures' GRU for
// lessons/pytorch/lecture_gru.py, which writes the cell in torch: the cells in
// nn.GRU's layout with one bias a gate (torchload.ExportLecture: weight_ih_l<l>,
// weight_hh_l<l> and bias_l<l>, blocks r, z, n), the head as File's, and in the metadata the sizes, num_layers, the inputs, the step, and the
// gate the page clamps, as {"R": v} or {"Z": v} ({} for none).
func (p PyTorchModel) lectureGRUFile(step int) (PyTorchFile, error) {
	stack := p.Stack()
	ts, err := torchload.ExportLecture(stack, p.Head)
	if err != nil {
		return PyTorchFile{}, err
	}
	c := stack[0][0].(*models.GRU).Clamp()
	for _, row := range stack {
		if row[0].(*models.GRU).Clamp() != c {
			return PyTorchFile{}, errors.New("the layers clamp different gates, and lecture_gru.py clamps one in every layer")
		}
	}
	fixed := map[string]float64{}
	if c.Gate != "" {
		fixed[c.Gate] = c.Value
	}
	clamp, _ := json.Marshal(fixed)
	meta := map[string]string{
		"input_size":  strconv.Itoa(stack[0][0].InputSize()),
		"hidden_size": strconv.Itoa(stack[0][0].HiddenSize()),
		"num_layers":  strconv.Itoa(len(stack)),
		"clamp":       string(clamp),
	}
	return p.file(ts, meta, lectureGRUScript, step), nil
}

// PyTorchFile is the page's RNN for lessons/pytorch/bptt.py at scrubber step step (0
// or past the end: the last, the backward pass's t = 1): the cell in nn.RNN's layout
// with its one bias (torchload.ExportLecture: rnn.weight_ih_l0, rnn.weight_hh_l0,
// rnn.bias_l0; nn.RNN has no leak and no identity, so the script writes the unit), and in the metadata φ, α, the window k, θ and what it clips, the inputs X_t,
// u of L = H_T uᵀ and t, the time step the page's step works on. H is what the page
// shows at t: H_t, ∂L/∂H_t (after clipping; 0 where truncated) and ‖∂L/∂W_hh‖_F.
func (m *bpttModel) PyTorchFile(step int) (PyTorchFile, error) {
	step = exportStep(step, m.Steps())
	_, t := m.timeOf(step)
	ts, err := torchload.ExportLecture([][]models.Cell{{m.cell}}, nil)
	if err != nil {
		return PyTorchFile{}, err
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	meta := map[string]string{
		"activation": m.act.String(), "alpha": js(m.alpha), "truncate": js(m.k), "clip": js(m.theta), "clip_on": m.clipOn,
		"x": js(m.xs), "u": js(m.u), "t": js(t),
	}
	H := slices.Concat(m.hs[t-1], m.dHs[t-1], []float64{m.paramGradNorm})
	return PyTorchFile{Tensors: ts, Meta: meta, Script: bpttScript, Step: step, H: H}, nil
}
