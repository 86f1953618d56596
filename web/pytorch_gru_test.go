package web

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"unroll/models"
)

// TestModelSafetensorsLectureGRU: the lectures' GRU (the gru page's lecture form, with
// and without a clamped gate, and the deep-rnn page's GRU stack) downloads for
// lecture_gru.py in nn.GRU's layout with one bias a gate (rnn.weight_ih_l<l>,
// rnn.weight_hh_l<l>, rnn.bias_l<l>) and the read-out as nn.Linear. Read as that
// script reads it, each layer's cell from its blocks r, z, h̃, clamped as the metadata
// says, run over the metadata's inputs, it gives the page's own H_t at the step to
// 1e-12; the same weights in nn.GRU's reset-after form do not. With
// UNROLL_PYTORCH_BENCH=DIR it writes the bench files (checkPyTorchProgram).
func TestModelSafetensorsLectureGRU(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct {
		name, slug, query string
		layers            int
		clamp             models.GateClamp
	}{
		{"gru-lecture", "gru", "task=checksum&step=5", 1, models.GateClamp{}},
		{"gru-lecture-clamp", "gru", "task=reset&clamp=R&clamp_value=0.25", 1, models.GateClamp{Gate: "R", Value: 0.25}},
		{"deep-rnn-gru3", "deep-rnn", "cell=gru&layers=3&step=40", 3, models.GateClamp{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tensors, meta := checkPyTorchProgram(t, ts, c.slug, c.query, c.name)
			d, _ := strconv.Atoi(meta["input_size"])
			h, _ := strconv.Atoi(meta["hidden_size"])
			L, _ := strconv.Atoi(meta["num_layers"])
			step, _ := strconv.Atoi(meta["step"])
			if meta["script"] != "lecture_gru.py" || L != c.layers || d < 1 || h < 1 {
				t.Fatalf("script %s, %d layers of %d → %d", meta["script"], L, d, h)
			}
			var fixed map[string]float64
			if err := json.Unmarshal([]byte(meta["clamp"]), &fixed); err != nil {
				t.Fatal(err)
			}
			var clamp models.GateClamp
			for g, v := range fixed {
				clamp = models.GateClamp{Gate: g, Value: v}
			}
			if len(fixed) > 1 || clamp != c.clamp {
				t.Errorf("clamp %s, want %+v", meta["clamp"], c.clamp)
			}
			if len(tensors) != 3*L+2 { // each layer's weight_ih, weight_hh and bias, and out.*
				t.Fatalf("%d tensors, want %d", len(tensors), 3*L+2)
			}
			// each layer's cell from its blocks (setBlock holds their shapes), and the same
			// weights in nn.GRU's reset-after form, b_hn = 0
			file, rng := named(tensors), rand.New(rand.NewPCG(1, 1))
			lecture, resetAfter := &models.Deep{}, &models.Deep{}
			for l := range L {
				in := h // layer l > 0 reads the layer below's H_t
				if l == 0 {
					in = d
				}
				g, ra := models.NewGRU(in, h, rng), models.NewGRUResetAfter(in, h, rng)
				setLectureCell(t, g, file, "rnn.", fmt.Sprintf("_l%d", l))
				for i, p := range g.Params() {
					ra.Params()[i].Value.Copy(p.Value)
				}
				ra.Bhn.Value.Zero()
				lecture.Layers = append(lecture.Layers, g.WithClamp(clamp))
				resetAfter.Layers = append(resetAfter.Layers, ra)
			}
			setLinear(t, models.NewDense("out.", h, file["out.bias"].Shape[0], rng), file, "out.")
			xs := metaInputs(t, meta, d)
			page := pageModel(t, c.slug, c.query)
			if len(xs) != page.Steps() || step < 1 || step > len(xs) {
				t.Fatalf("%d inputs, the page's %d, step %d", len(xs), page.Steps(), step)
			}
			want := page.H[step-1]
			run := func(net *models.Deep) float64 {
				tr, err := net.Forward(xs, nil)
				if err != nil {
					t.Fatal(err)
				}
				diff := 0.0
				for j, v := range tr.Outputs()[step-1].RawRowView(0) {
					diff = max(diff, math.Abs(v-want[j]))
				}
				return diff
			}
			if diff := run(lecture); diff > 1e-12 {
				t.Errorf("H_%d from the file differs from the page's by %g", step, diff)
			}
			if diff := run(resetAfter); diff < 1e-6 {
				t.Errorf("the reset-after form of the file's weights gives the page's H_%d too (within %g): the forms should differ", step, diff)
			}
		})
	}
}
