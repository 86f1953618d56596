package web

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/torchload"
)

// TestModelSafetensorsCompanionsLSTM: the LSTM page's GRU (the lectures' form, for
// lecture_gru.py), vanilla RNN (nn.py) and LSTM of the other form (peephole_lstm.py)
// download with model=NAME, and the page's own LSTM with peepholes for
// peephole_lstm.py; each file's tensors, put back into our cells by their PyTorch names
// and layouts, read the metadata's inputs to the page's own "GRU H_t", "RNN H_t", the
// other form's C_t or the LSTM's H_t at the step, to 1e-12. A clamp or training on the
// page changes the LSTM only, not the models beside it.
func TestModelSafetensorsCompanionsLSTM(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, array, bench string }{
		{"step=7&model=gru", "GRU H_t", "lstm-gru"},
		{"task=reset&clamp=F&clamp_value=0.5&step=4&model=gru", "GRU H_t", ""},
		{"step=5&model=rnn", "RNN H_t", "lstm-rnn"},
		{"task=skip&trained=2&model=rnn", "RNN H_t", ""},
		{"step=6&model=other-form", "C_peephole", "lstm-other-form"},
		{"variant=peephole&task=reset&step=3&model=other-form", "C_plain", ""},
		{"variant=peephole&step=7", "H", "lstm-peephole"}, // the page's own LSTM, with peepholes
	} {
		t.Run(c.query, func(t *testing.T) {
			benchOnly(t, c.bench)
			tensors, meta := checkPyTorchProgram(t, ts, "lstm", c.query, c.bench)
			step := companionMeta(t, meta, c.query)
			var H []float64
			switch meta["script"] {
			case "lecture_gru.py":
				H = lectureGRUOutput(t, tensors, meta, step)
			case "peephole_lstm.py":
				H = peepholeOutput(t, tensors, meta, step)
			default:
				H = nnOutput(t, tensors, meta, step)
			}
			closeTo(t, c.array, H, frameArray(t, pageBuild(t, "lstm", c.query).At(step), c.array))
		})
	}
}

// TestModelSafetensorsPeepholeRefuses: a clamped peephole LSTM, which neither
// peephole_lstm.py nor nn.py computes, is refused, and torch.nn.LSTM's export
// (torchload.ExportStack, nn.py's) refuses peepholes instead of dropping them.
func TestModelSafetensorsPeepholeRefuses(t *testing.T) {
	_, ts := newCatalogServer(t)
	status, _, body := fetch(t, "GET", ts.URL+"/lessons/lstm/model.safetensors?variant=peephole&clamp=F", nil)
	if status != 400 || !strings.Contains(body, "clamped") {
		t.Errorf("a clamped peephole LSTM: %d %.300s", status, body)
	}
	c := models.NewPeepholeLSTM(2, 3, rand.New(rand.NewPCG(1, 1)))
	if _, _, err := torchload.ExportStack([][]models.Cell{{c}}, nil); err == nil || !strings.Contains(err.Error(), "peephole") {
		t.Errorf("torch.nn.LSTM's export of a peephole LSTM: %v", err)
	}
}

// TestModelSafetensorsCompanionsBirnn: the birnn page's unidirectional model and its two
// next-word models download for nn.py (model=NAME); mapped back by torchload, each file
// gives the page's H_uni, or the H_t the next-word guess reads, whose ŷ_t through the
// file's out.* is the guess the page shows, with its probability.
func TestModelSafetensorsCompanionsBirnn(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, guess, bench string }{
		{"step=3&model=unidirectional", "", ""},
		{"step=6&model=next-uni", "next_uni", ""},
		{"step=4&model=next-bi", "next_bi_full", "birnn-next-bi"},
		{"sentence=i+am+___+tired+.&model=unidirectional", "", ""},
	} {
		t.Run(c.query, func(t *testing.T) {
			benchOnly(t, c.bench)
			tensors, meta := checkPyTorchProgram(t, ts, "birnn", c.query, c.bench)
			step := companionMeta(t, meta, c.query)
			H := nnOutput(t, tensors, meta, step)
			frame := pageBuild(t, "birnn", c.query).At(step)
			if c.guess == "" {
				closeTo(t, "H_uni", H, frameArray(t, frame, "H_uni"))
				return
			}
			closeTo(t, "H_t", H, pageProgram(t, "birnn", c.query, step).H)
			m, err := torchload.Map(tensors, torchload.Options{})
			if err != nil {
				t.Fatal(err)
			}
			logits := m.Head.Forward(mat.NewDense(1, len(H), H)).RawRowView(0)
			p := make([]float64, len(logits))
			models.Softmax(p, logits)
			if want := fmt.Sprintf("(p = %.3f)", p[models.Argmax(p)]); !strings.HasSuffix(frame.Meta[c.guess].(string), want) {
				t.Errorf("the page's guess %q, the file's ŷ_%d gives %s", frame.Meta[c.guess], step, want)
			}
		})
	}
}

// TestModelSafetensorsCompanionsTranslators: the attention page's translator without
// attention and the transformer page's GRU with attention download for seq2seq.py
// (model=NAME); what the script computes, in Go from the file (seq2seqFromFile), is H at
// the step to 1e-12, its P's argmax is the token fed next, and the tokens fed are the
// translation the page shows for that model. (The transformer page's GRU with attention
// is the attention page's model, whose bench file attention-dates is.)
func TestModelSafetensorsCompanionsTranslators(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ slug, query, shown, bench string }{
		{"attention", "step=3&model=without", "without_attention", "attention-without"},
		{"attention", "task=corpus&sentence=she+doesn%27t+want+to+sing+.&model=without", "without_attention", ""},
		{"transformer", "step=5&model=gru-attention", "gru_output", ""},
		{"transformer", "task=corpus&step=2&model=gru-attention", "gru_output", ""},
	} {
		t.Run(c.slug+"?"+c.query, func(t *testing.T) {
			benchOnly(t, c.bench)
			tensors, meta := checkPyTorchProgram(t, ts, c.slug, c.query, c.bench)
			step := companionMeta(t, meta, c.query)
			H := seq2seqFromFile(t, tensors, meta)
			closeTo(t, "H", H, pageProgram(t, c.slug, c.query, step).H)
			var ys [][]int
			var vocab []string
			if err := json.Unmarshal([]byte(meta["y"]), &ys); err != nil || len(ys) != 1 {
				t.Fatal(meta["y"], err)
			}
			if err := json.Unmarshal([]byte(meta["target_vocab"]), &vocab); err != nil {
				t.Fatal(err)
			}
			if P := H[len(H)-len(vocab):]; models.Argmax(P) != ys[0][step-1] {
				t.Errorf("argmax P at t' = %d is %d, the token fed next %d", step, models.Argmax(P), ys[0][step-1])
			}
			var words []string
			for _, y := range ys[0] {
				if y != models.EosID {
					words = append(words, vocab[y])
				}
			}
			shown := pageBuild(t, c.slug, c.query).Static().Meta[c.shown].(string)
			if strings.Join(words, "") != strings.ReplaceAll(shown, " ", "") {
				t.Errorf("the decoder is fed %q, the page shows %q", words, shown)
			}
		})
	}
}

// benchOnly keeps a case out of bench/pytorch unless it names a bench file.
func benchOnly(t *testing.T, bench string) {
	if bench == "" {
		t.Setenv("UNROLL_PYTORCH_BENCH", "")
	}
}

// companionMeta checks that a companion's file says its model and the query's step,
// and returns the step.
func companionMeta(t *testing.T, meta map[string]string, query string) int {
	t.Helper()
	q, _ := url.ParseQuery(query)
	if meta["model"] != q.Get("model") || (q.Get("step") != "" && meta["step"] != q.Get("step")) {
		t.Errorf("metadata model %q, step %s; the query's %q, %q", meta["model"], meta["step"], q.Get("model"), q.Get("step"))
	}
	return mustAtoi(t, meta["step"])
}

// nnOutput is nn.py's H in Go: the file mapped by torchload (PyTorch's mapping) run
// over the metadata's inputs, its output at step.
func nnOutput(t *testing.T, tensors []*torchload.Tensor, meta map[string]string, step int) []float64 {
	t.Helper()
	m, err := torchload.Map(tensors, torchload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.Arch.InputSize) != meta["input_size"] || fmt.Sprint(m.Arch.HiddenSize) != meta["hidden_size"] {
		t.Errorf("the file maps to %+v, its metadata says %s → %s", m.Arch, meta["input_size"], meta["hidden_size"])
	}
	res, err := m.Run(metaInputs(t, meta, m.Arch.InputSize))
	if err != nil {
		t.Fatal(err)
	}
	return res.Output[step-1]
}

// lectureGRUOutput is lecture_gru.py's H in Go for a one-layer file: the lectures' GRU
// set from rnn.weight_ih_l0, weight_hh_l0 and bias_l0, unclamped, over the metadata's
// inputs, H_t at step.
func lectureGRUOutput(t *testing.T, tensors []*torchload.Tensor, meta map[string]string, step int) []float64 {
	t.Helper()
	d, h := mustAtoi(t, meta["input_size"]), mustAtoi(t, meta["hidden_size"])
	if meta["num_layers"] != "1" || meta["clamp"] != "{}" {
		t.Fatalf("%s layers, clamp %s", meta["num_layers"], meta["clamp"])
	}
	g := models.NewGRU(d, h, rand.New(rand.NewPCG(1, 1)))
	setLectureCell(t, g, named(tensors), "rnn.", "_l0")
	tr, err := (&models.Deep{Layers: []models.Cell{g}}).Forward(metaInputs(t, meta, d), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Outputs()[step-1].RawRowView(0)
}

// peepholeOutput is peephole_lstm.py's H in Go: an LSTM with peepholes set from
// nn.LSTM's rnn.weight_ih_l0, weight_hh_l0, bias_ih_l0 (bias_hh_l0 is 0; blocks I, F,
// C̃, O) and rnn.peephole_l0 (p_i, p_f, p_o), over the metadata's inputs: H_t or C_t at
// step, as the metadata's "H" says.
func peepholeOutput(t *testing.T, tensors []*torchload.Tensor, meta map[string]string, step int) []float64 {
	t.Helper()
	d, h := mustAtoi(t, meta["input_size"]), mustAtoi(t, meta["hidden_size"])
	c, W := models.NewPeepholeLSTM(d, h, rand.New(rand.NewPCG(1, 1))), named(tensors)
	for k, ps := range [][3]*models.Param{{c.Wxi, c.Whi, c.Bi}, {c.Wxf, c.Whf, c.Bf}, {c.Wxc, c.Whc, c.Bc}, {c.Wxo, c.Who, c.Bo}} {
		setBlock(t, ps[0], W["rnn.weight_ih_l0"], k, 4)
		setBlock(t, ps[1], W["rnn.weight_hh_l0"], k, 4)
		setBlock(t, ps[2], W["rnn.bias_ih_l0"], k, 4)
	}
	for k, p := range []*models.Param{c.Pi, c.Pf, c.Po} {
		setBlock(t, p, W["rnn.peephole_l0"], k, 3)
	}
	if b := W["rnn.bias_hh_l0"]; b == nil || slices.ContainsFunc(b.Data, func(v float64) bool { return v != 0 }) {
		t.Fatalf("rnn.bias_hh_l0 %v, want zeros", b)
	}
	var s models.State
	for _, x := range metaInputs(t, meta, d)[:step] {
		s = c.Step(x, s).Next
	}
	if meta["H"] == "C" {
		return s.C.RawRowView(0)
	}
	return s.H.RawRowView(0)
}
