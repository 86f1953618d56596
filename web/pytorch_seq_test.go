package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"unroll/lessons"
	"unroll/torchload"
)

// seq2seqCases are the translators' exports: bench names them in bench/pytorch (one for
// each of seq2seq.py's branches: h_t of a stack, both runs' P of a model trained on the
// page, α and P with attention, the beam's log P); the others only Go checks.
var seq2seqCases = []struct{ slug, query, bench string }{
	{"encoder-decoder", "layers=2&step=3", "encoder-decoder-L2"},
	{"seq2seq", "start=scratch&seed=3&trained=2&step=7", "seq2seq-trained"},
	{"attention", "step=4", "attention-dates"},
	{"beam-search", "mode=trained&step=3", "beam-search"},
	{"encoder-decoder", "", ""},
	{"encoder-decoder", "layers=3&weights=untrained&seed=7&step=9", ""},
	{"encoder-decoder", "layers=3&weights=untrained", ""}, // the last step, t' past T
	{"encoder-decoder", "input=i+lost+.&step=4", ""},      // the context: h_T
	{"seq2seq", "step=5", ""},
	{"seq2seq", "step=12", ""},
	{"attention", "task=corpus&sentence=she+doesn%27t+want+to+sing+.&step=2", ""},
	{"beam-search", "mode=trained&k=3&alpha=0.7", ""},
}

// TestModelSafetensorsSeq2Seq: each translator page's model.safetensors, fetched through a real
// server, is the file of the page's model (checkPyTorchProgram), and what
// lessons/pytorch/seq2seq.py computes from it, computed here in Go from the tensors in
// PyTorch's layout and names (seq2seqFromFile, which shares no code with models), is
// the page's H at its step to 1e-12: a wrong name, block order or transpose fails here
// without torch. With UNROLL_PYTORCH_BENCH=DIR the bench cases are written for
// bench/pytorch/roundtrip.py.
func TestModelSafetensorsSeq2Seq(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range seq2seqCases {
		t.Run(c.slug+"?"+c.query, func(t *testing.T) {
			if c.bench == "" {
				t.Setenv("UNROLL_PYTORCH_BENCH", "")
			}
			tensors, meta := checkPyTorchProgram(t, ts, c.slug, c.query, c.bench)
			step, _ := strconv.Atoi(meta["step"])
			want := pageProgram(t, c.slug, c.query, step).H
			got := seq2seqFromFile(t, tensors, meta)
			if len(got) != len(want) {
				t.Fatalf("H has %d numbers from the file, %d on the page (H = %s at t = %s)", len(got), len(want), meta["H"], meta["t"])
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-12 {
					t.Fatalf("H[%d] = %v from the file, %v on the page (H = %s at t = %s)", i, got[i], want[i], meta["H"], meta["t"])
				}
			}
		})
	}
}

// TestModelSafetensorsSeq2SeqRefuses: the beam page's toy is no network.
func TestModelSafetensorsSeq2SeqRefuses(t *testing.T) {
	_, ts := newCatalogServer(t)
	status, _, body := fetch(t, "GET", ts.URL+"/lessons/beam-search/model.safetensors", nil)
	if status != 400 || !strings.Contains(body, "toy distribution") {
		t.Errorf("%d %.300s, want 400 about the toy distribution", status, body)
	}
	if !lessons.HasPyTorch("beam-search") || lessons.HasPyTorch("bleu") {
		t.Errorf("beam-search offers a download %v, bleu %v", lessons.HasPyTorch("beam-search"), lessons.HasPyTorch("bleu"))
	}
}

// seq2seqFromFile is seq2seq.py in Go: the file's tensors by their names in PyTorch's
// layout (weights out × in, GRU blocks r, z, h̃ and one bias), the lectures' GRU, additive attention,
// and H as the metadata asks.
func seq2seqFromFile(t *testing.T, tensors []*torchload.Tensor, meta map[string]string) []float64 {
	t.Helper()
	W := map[string]*torchload.Tensor{}
	for _, x := range tensors {
		W[x.Name] = x
	}
	get := func(name string) *torchload.Tensor {
		x, ok := W[name]
		if !ok {
			t.Fatalf("no tensor %s in the file", name)
		}
		return x
	}
	row := func(x *torchload.Tensor, r int) []float64 { c := x.Shape[1]; return x.Data[r*c : (r+1)*c] }
	// times is x @ w[r0:r1].T (+ b[r0:r1])
	times := func(w *torchload.Tensor, r0, r1 int, x []float64, b *torchload.Tensor) []float64 {
		out := make([]float64, r1-r0)
		for r := r0; r < r1; r++ {
			for i, v := range row(w, r) {
				out[r-r0] += v * x[i]
			}
			if b != nil {
				out[r-r0] += b.Data[r]
			}
		}
		return out
	}
	L, _ := strconv.Atoi(meta["layers"])
	att := meta["attention"] == "true"
	h := get("decoder.out.weight").Shape[1]
	gru := func(side string, l int, x, H []float64) []float64 {
		w := func(n string) *torchload.Tensor { return get(fmt.Sprintf("%s.rnn.%s_l%d", side, n, l)) }
		sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
		xr, xz, xh := times(w("weight_ih"), 0, h, x, w("bias")), times(w("weight_ih"), h, 2*h, x, w("bias")), times(w("weight_ih"), 2*h, 3*h, x, w("bias"))
		hr, hz := times(w("weight_hh"), 0, h, H, nil), times(w("weight_hh"), h, 2*h, H, nil)
		R, RH := make([]float64, h), make([]float64, h)
		for j := range h {
			R[j] = sig(xr[j] + hr[j])
			RH[j] = R[j] * H[j]
		}
		hh := times(w("weight_hh"), 2*h, 3*h, RH, nil)
		out := make([]float64, h)
		for j := range h {
			Z := sig(xz[j] + hz[j])
			out[j] = Z*H[j] + (1-Z)*math.Tanh(xh[j]+hh[j])
		}
		return out
	}
	stack := func(side string, x []float64, S [][]float64) []float64 {
		for l := range L {
			S[l] = gru(side, l, x, S[l])
			x = S[l]
		}
		return x
	}
	var x, bos int
	var src []int
	var ys [][]int
	for k, v := range map[string]any{"x": &src, "y": &ys, "bos": &bos} {
		if err := json.Unmarshal([]byte(meta[k]), v); err != nil {
			t.Fatalf("metadata %s: %v", k, err)
		}
	}
	S := make([][]float64, L)
	for l := range S {
		S[l] = make([]float64, h)
	}
	var hs [][]float64
	for _, x = range src {
		hs = append(hs, stack("encoder", row(get("encoder.embedding.weight"), x), S))
	}
	// decode is log P(y_t' | y_<t', x) and α_t' at t' = 1 … len(y)
	decode := func(y []int) (logP, alpha [][]float64) {
		s := make([][]float64, L)
		copy(s, S)
		c := hs[len(hs)-1]
		for _, prev := range append([]int{bos}, y[:len(y)-1]...) {
			if att {
				a := get("decoder.attention.v.weight").Shape[1]
				q := times(get("decoder.attention.W_q.weight"), 0, a, s[L-1], nil)
				e := make([]float64, len(hs))
				for j, hj := range hs {
					k := times(get("decoder.attention.W_k.weight"), 0, a, hj, nil)
					for i := range a {
						e[j] += get("decoder.attention.v.weight").Data[i] * math.Tanh(q[i]+k[i])
					}
				}
				al := logSoftmax(e)
				c = make([]float64, h)
				for j, hj := range hs {
					al[j] = math.Exp(al[j])
					for i := range h {
						c[i] += al[j] * hj[i]
					}
				}
				alpha = append(alpha, al)
			}
			top := stack("decoder", append(append([]float64(nil), row(get("decoder.embedding.weight"), prev)...), c...), s)
			o := get("decoder.out.weight")
			logP = append(logP, logSoftmax(times(o, 0, o.Shape[0], top, get("decoder.out.bias"))))
		}
		return logP, alpha
	}
	step, _ := strconv.Atoi(meta["t"])
	var H []float64
	switch meta["H"] {
	case "h":
		H = hs[step-1]
	case "P":
		for _, y := range ys {
			logP, alpha := decode(y)
			if att {
				H = append(H, alpha[step-1]...)
			}
			for _, v := range logP[step-1] {
				H = append(H, math.Exp(v))
			}
		}
	case "logP":
		for _, y := range ys {
			logP, _ := decode(y)
			sum := 0.0
			for i, w := range y {
				sum += logP[i][w]
			}
			H = append(H, sum)
		}
	default:
		t.Fatalf("metadata H %q", meta["H"])
	}
	return H
}

// logSoftmax is log softmax(v).
func logSoftmax(v []float64) []float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	sum := 0.0
	for _, x := range v {
		sum += math.Exp(x - m)
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x - m - math.Log(sum)
	}
	return out
}
