package web

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/torchload"
)

// TestModelSafetensorsStacks: the deep-rnn page's stacks (an RNN and an LSTM of 2 and 3
// layers, the series as numbers) and the birnn page's bidirectional RNN download as one
// PyTorch module with num_layers and bidirectional in the metadata's options; torchload
// maps the file back onto a model whose output at the metadata's step is the page's own
// top-layer H_t (for birnn [→H_t, ←H_t]) to 1e-12. torchload's mapping is PyTorch's
// (TestFixturesMatchPyTorch), so the file loads into torch.nn the same way. With
// UNROLL_PYTORCH_BENCH=DIR it writes DIR/{name}.safetensors and .json, which
// bench/pytorch/roundtrip.py runs through the page's snippet in torch.
// The deep GRU stack (the lectures' form) is TestModelSafetensorsLectureGRU's.
func TestModelSafetensorsStacks(t *testing.T) {
	_, ts := newCatalogServer(t)
	bench := os.Getenv("UNROLL_PYTORCH_BENCH")
	for _, c := range []struct {
		name, slug, query, kind string
		layers                  int
		bidirectional           bool
	}{
		{"deep-rnn-lstm3", "deep-rnn", "cell=lstm&layers=3&step=12", torchload.KindLSTM, 3, false},
		{"deep-rnn-rnn2", "deep-rnn", "cell=rnn&layers=2", torchload.KindRNNTanh, 2, false},
		{"birnn", "birnn", "step=3", torchload.KindRNNTanh, 1, true},
	} {
		t.Run(c.slug+"?"+c.query, func(t *testing.T) {
			status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+c.slug+"/model.safetensors?"+c.query, nil)
			if status != 200 {
				t.Fatalf("%d %.300s", status, body)
			}
			tensors, _, err := torchload.Load([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			m, err := torchload.Map(tensors, torchload.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Arch.Kind != c.kind || m.Arch.Layers != c.layers || m.Arch.Bidirectional != c.bidirectional || m.Head == nil {
				t.Fatalf("the file maps to %+v", m.Arch)
			}
			meta := safetensorsMeta(t, []byte(body))
			var options map[string]any
			if err := json.Unmarshal([]byte(meta["options"]), &options); err != nil {
				t.Fatal(err)
			}
			if (c.layers > 1) != (options["num_layers"] == float64(c.layers)) || c.bidirectional != (options["bidirectional"] == true) {
				t.Errorf("options %s for %d layers, bidirectional %v", meta["options"], c.layers, c.bidirectional)
			}
			xs := metaInputs(t, meta, m.Arch.InputSize)
			res, err := m.Run(xs)
			if err != nil {
				t.Fatal(err)
			}
			page := pageModel(t, c.slug, c.query)
			step, _ := strconv.Atoi(meta["step"])
			if step < 1 || step > len(xs) || len(page.H) != len(xs) {
				t.Fatalf("step %d of %d inputs, the page has %d", step, len(xs), len(page.H))
			}
			for j, v := range res.Output[step-1] {
				if want := page.H[step-1][j]; math.Abs(v-want) > 1e-12 {
					t.Fatalf("output at t = %d [%d]: %v from the file, %v on the page", step, j, v, want)
				}
			}
			if bench != "" {
				if err := os.WriteFile(filepath.Join(bench, c.name+".safetensors"), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				js, _ := json.MarshalIndent(map[string]any{"lesson": c.slug, "query": c.query, "script": meta["script"], "step": step, "H": page.H[step-1]}, "", " ")
				if err := os.WriteFile(filepath.Join(bench, c.name+".json"), append(js, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// metaInputs are the X_t of a file's metadata, 1×d each: its "x", the numbers a row a
// step, or its "inputs", token ids as one-hot vectors.
func metaInputs(t *testing.T, meta map[string]string, d int) []*mat.Dense {
	t.Helper()
	var xs []*mat.Dense
	if raw, ok := meta["x"]; ok {
		var x [][]float64
		if err := json.Unmarshal([]byte(raw), &x); err != nil {
			t.Fatal(err)
		}
		for _, row := range x {
			xs = append(xs, mat.NewDense(1, d, row))
		}
		return xs
	}
	var ids []int
	if err := json.Unmarshal([]byte(meta["inputs"]), &ids); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		x := mat.NewDense(1, d, nil)
		x.Set(0, id, 1)
		xs = append(xs, x)
	}
	return xs
}
