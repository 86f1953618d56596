package web

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
	"unroll/sim"
)

// TestModelSafetensorsBPTT: the bptt page's RNN downloads for bptt.py in nn.RNN's layout
// with its one bias (rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_l0), and read as that
// script reads it (W from the file's weights transposed, b_h, and φ, α, k, θ, X_t and
// u from the metadata) it gives the page's
// numbers at the metadata's t to 1e-12: H_t, ∂L/∂H_t and ‖∂L/∂W_hh‖. The cases clip
// ∂L/∂H_t, truncate (t = 6 is cut off: ∂L/∂H_t = 0) and clip the weights' gradient,
// and each case's page says that it did. With UNROLL_PYTORCH_BENCH=DIR it writes the
// bench files (checkPyTorchProgram).
func TestModelSafetensorsBPTT(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct {
		name, query string
		t           int
		fired       string // the page's static meta that says the remedy acted
	}{
		{"bptt", "step=45", 16, ""},
		{"bptt-relu-leaky-clip", "activation=relu&rho=1.3&alpha=0.5&truncate=20&clip=0.8&step=50", 11, "clipped_steps"},
		{"bptt-relu-leaky-cut", "activation=relu&rho=1.3&alpha=0.5&truncate=20&clip=0.8&step=55", 6, "cut_steps"},
		{"bptt-identity-params", "activation=identity&rho=1.2&T=20&clip=1&clip_on=params&step=10", 10, "param_clipped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tensors, meta := checkPyTorchProgram(t, ts, "bptt", c.query, c.name)
			if fired := c.fired; fired != "" {
				if v := pageBuild(t, "bptt", c.query).Static().Meta[fired]; v == 0 || v == false {
					t.Fatalf("%s = %v: the case does not show its remedy", fired, v)
				}
			}
			var k, tt int
			var alpha, theta float64
			var u []float64
			for key, dst := range map[string]any{"truncate": &k, "t": &tt, "alpha": &alpha, "clip": &theta, "u": &u} {
				if err := json.Unmarshal([]byte(meta[key]), dst); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
			}
			if meta["script"] != "bptt.py" || tt != c.t {
				t.Fatalf("script %s, t %d (want %d)", meta["script"], tt, c.t)
			}
			act, err := models.ParseActivation(meta["activation"])
			if err != nil {
				t.Fatal(err)
			}
			file := named(tensors)
			if len(tensors) != 3 || file["rnn.weight_ih_l0"] == nil || file["rnn.bias_l0"] == nil {
				t.Fatalf("tensors %v, want rnn.weight_ih_l0, rnn.weight_hh_l0 and rnn.bias_l0", tensors)
			}
			h, d := file["rnn.weight_ih_l0"].Shape[0], file["rnn.weight_ih_l0"].Shape[1]
			X := metaInputs(t, meta, d) // T × d numbers
			if len(X) != pageBuild(t, "bptt", c.query).Steps()/2 || len(u) != h {
				t.Fatalf("%d inputs, u of %d, h = %d", len(X), len(u), h)
			}
			cell := models.NewRNN(d, h, act, rand.New(rand.NewPCG(1, 1))) // its weights are the file's:
			setLectureCell(t, cell, file, "rnn.", "_l0")                  // W = weightᵀ (setBlock holds the shapes)
			cell.SetLeak(alpha)
			tr, err := models.Forward(cell, X, models.State{})
			if err != nil {
				t.Fatal(err)
			}
			stateTheta := theta
			if meta["clip_on"] != "state" {
				stateTheta = 0
			}
			g := models.BackwardClipped(cell, tr, mat.NewDense(1, h, u), k, stateTheta)
			if meta["clip_on"] == "params" && theta > 0 {
				models.ClipGradNorm(cell.Params(), theta)
			}
			got := append(append(mat.Row(nil, 0, tr.Steps[tt-1].Next.H), mat.Row(nil, 0, g.DH[tt-1])...), mat.Norm(cell.Whh.Grad, 2))
			// the page's own: H_t on the forward pass's step t, ∂L/∂H_t on the backward
			// pass's step 2T + 1 − t, ‖∂L/∂W_hh‖ among the facts
			page := pageBuild(t, "bptt", c.query)
			T := page.Steps() / 2
			want := append(append(frameArray(t, page.At(tt), "H"), frameArray(t, page.At(2*T+1-tt), "dH_back")...), page.Static().Meta["param_grad_norm"].(float64))
			if file := pageProgram(t, "bptt", c.query, mustAtoi(t, meta["step"])).H; !slices.Equal(file, want) {
				t.Errorf("the file's H %v, the page's %v", file, want)
			}
			if len(got) != len(want) || len(want) != 2*h+1 {
				t.Fatalf("%d numbers from the file, the page's %d, want 2h + 1 = %d", len(got), len(want), 2*h+1)
			}
			for i, v := range got {
				if math.Abs(v-want[i]) > 1e-12 {
					t.Errorf("number %d: %v from the file, %v on the page", i, v, want[i])
				}
			}
		})
	}
}

// frameArray is the array called name of frame f.
func frameArray(t *testing.T, f sim.Frame, name string) []float64 {
	t.Helper()
	for _, a := range f.Arrays {
		if a.Name == name {
			return a.Data
		}
	}
	t.Fatalf("no array %s in the frame", name)
	return nil
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
