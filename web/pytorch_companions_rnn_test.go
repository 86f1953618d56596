package web

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/lessons"
	"unroll/models"
	"unroll/torchload"
	"unroll/zoo"
)

// TestModelSafetensorsRNNArchitectures: the RNN page's architectures B and C download
// beside its language model (model=arch-b, model=arch-c). B's two nn.Linear put back
// into a zoo.ArchB run over the metadata's characters to the page's own H_t (its H_B)
// and ŷ_t at the step; C, mapped by torchload as an nn.RNN with its head, gives the
// page's H_t (its H_C) at the step and, after the last, the answer the page states.
func TestModelSafetensorsRNNArchitectures(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct{ query, bench string }{
		{"model=arch-b&step=20", "rnn-arch-b"},
		{"model=arch-c", "rnn-arch-c"}, // the last step: C's one answer
	} {
		t.Run(c.query, func(t *testing.T) {
			tensors, meta := checkPyTorchProgram(t, ts, "rnn", c.query, c.bench)
			step := mustAtoi(t, meta["step"])
			page := pageBuild(t, "rnn", c.query)
			f := named(tensors)
			if meta["model"] == "arch-b" {
				V := f["out.bias"].Shape[0]
				if len(f) != 4 || !slices.Equal(f["in.weight"].Shape, []int{zoo.ArchBHidden, 2 * V}) {
					t.Fatalf("tensors %v, want in.weight [%d %d], in.bias, out.weight, out.bias", tensors, zoo.ArchBHidden, 2*V)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				b := &zoo.ArchB{In: models.NewDense("in.", 2*V, zoo.ArchBHidden, rng), Out: models.NewDense("out.", zoo.ArchBHidden, V, rng)}
				setLinear(t, b.In, f, "in.")
				setLinear(t, b.Out, f, "out.")
				var ids []int
				for _, x := range metaInputs(t, meta, V) {
					ids = append(ids, models.Argmax(x.RawRowView(0)))
				}
				st := b.Run(ids)[step-1]
				closeTo(t, "B's H_t", st.H, frameArray(t, page.At(step), "H_B"))
				closeTo(t, "B's H_t, ŷ_t", slices.Concat(st.H, st.Probs), pageProgram(t, "rnn", c.query, step).H)
				return
			}
			m, err := torchload.Map(tensors, torchload.Options{})
			if err != nil || m.Arch.Kind != torchload.KindRNNTanh || m.Head == nil {
				t.Fatalf("%v: %+v", err, m)
			}
			res, err := m.Run(metaInputs(t, meta, m.Arch.InputSize))
			if err != nil {
				t.Fatal(err)
			}
			closeTo(t, "C's H_t", res.Output[step-1], frameArray(t, page.At(step), "H_C"))
			if step != page.Steps() {
				return
			}
			p := make([]float64, len(zoo.ArchCClasses))
			models.Softmax(p, m.Head.Forward(mat.NewDense(1, len(res.Output[step-1]), res.Output[step-1])).RawRowView(0))
			k := models.Argmax(p)
			if got, want := fmt.Sprintf("%s (p = %.3f)", zoo.ArchCClasses[k], p[k]), page.Static().Meta["C_answer"]; got != want {
				t.Errorf("C answers %q from the file, %q on the page", got, want)
			}
		})
	}
}

// TestPyTorchCompanionLinks: every lesson's page lists each model beside its own as a
// link with model=NAME, followed by its label as HTML.
func TestPyTorchCompanionLinks(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, l := range lessons.Catalog() {
		cs := lessons.Companions(l.Slug)
		if len(cs) == 0 {
			continue
		}
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug, nil)
		if status != 200 {
			t.Fatalf("%s: %d", l.Slug, status)
		}
		for _, c := range cs {
			link := fmt.Sprintf(`href="/lessons/%s/model.safetensors?model=%s"`, l.Slug, c.Name)
			i := strings.Index(body, link)
			if i < 0 || !strings.Contains(body[i:], "</a> — "+c.Label) {
				t.Errorf("%s: no link %s followed by its label %q", l.Slug, link, c.Label)
			}
		}
	}
}
