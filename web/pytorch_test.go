package web

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/lessons"
	"unroll/sim"
	"unroll/torchload"
)

// newCatalogServer is a server of the real lessons.
func newCatalogServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)), lessons.Catalog(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// pytorchCases are the lessons' exports the tests (and bench/pytorch) read.
var pytorchCases = []struct{ slug, query, kind string }{
	{"gru", "variant=reset-after&task=checksum&step=5", torchload.KindGRU},
	{"lstm", "step=7", torchload.KindLSTM},
	{"rnn", "", torchload.KindRNNTanh},
}

// TestModelSafetensors: GET /lessons/{slug}/model.safetensors through a real server is a
// safetensors file with PyTorch's names and shapes, which torchload maps back onto a
// model whose H_t at the metadata's step is the page's own (its lesson's run) to 1e-12.
// With UNROLL_PYTORCH_BENCH=DIR it also writes DIR/{slug}.safetensors and the page's
// H_t as DIR/{slug}.json, which bench/pytorch/roundtrip.py reads.
func TestModelSafetensors(t *testing.T) {
	_, ts := newCatalogServer(t)
	bench := os.Getenv("UNROLL_PYTORCH_BENCH")
	for _, c := range pytorchCases {
		t.Run(c.slug, func(t *testing.T) {
			status, hdr, body := fetch(t, "GET", ts.URL+"/lessons/"+c.slug+"/model.safetensors?"+c.query, nil)
			if status != 200 {
				t.Fatalf("%d %.300s", status, body)
			}
			if !strings.Contains(hdr.Get("Content-Disposition"), `filename="model.safetensors"`) {
				t.Errorf("Content-Disposition %q", hdr.Get("Content-Disposition"))
			}
			tensors, format, err := torchload.Load([]byte(body))
			if err != nil || format != torchload.FormatSafetensors {
				t.Fatal(format, err)
			}
			meta := safetensorsMeta(t, []byte(body))
			d, _ := strconv.Atoi(meta["input_size"])
			h, _ := strconv.Atoi(meta["hidden_size"])
			G := map[string]int{torchload.KindGRU: 3, torchload.KindLSTM: 4, torchload.KindRNNTanh: 1}[c.kind]
			var V int
			for _, x := range tensors {
				if x.Name == "out.bias" {
					V = x.Shape[0]
				}
			}
			want := map[string][]int{
				"rnn.weight_ih_l0": {G * h, d}, "rnn.weight_hh_l0": {G * h, h}, "rnn.bias_ih_l0": {G * h}, "rnn.bias_hh_l0": {G * h},
				"out.weight": {V, h}, "out.bias": {V},
			}
			if len(tensors) != len(want) || d < 1 || h < 1 || V < 2 {
				t.Fatalf("tensors %v, d %d, h %d", tensors, d, h)
			}
			for _, x := range tensors {
				if !slices.Equal(x.Shape, want[x.Name]) {
					t.Errorf("%s: shape %v, want %v", x.Name, x.Shape, want[x.Name])
				}
			}
			m, err := torchload.Map(tensors, torchload.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Arch.Kind != c.kind {
				t.Errorf("kind %s, want %s", m.Arch.Kind, c.kind)
			}
			// the mapped model on the metadata's inputs against the page's own H_t
			var ids []int
			if err := json.Unmarshal([]byte(meta["inputs"]), &ids); err != nil {
				t.Fatal(err)
			}
			step, _ := strconv.Atoi(meta["step"])
			xs := make([]*mat.Dense, len(ids))
			for i, id := range ids {
				xs[i] = mat.NewDense(1, d, nil)
				xs[i].Set(0, id, 1)
			}
			res, err := m.Run(xs)
			if err != nil {
				t.Fatal(err)
			}
			page := pageModel(t, c.slug, c.query)
			if len(page.Inputs) != len(ids) || step < 1 || step > len(ids) {
				t.Fatalf("%d inputs, page %d, step %d", len(ids), len(page.Inputs), step)
			}
			if q, _ := url.ParseQuery(c.query); q.Get("step") != "" && q.Get("step") != meta["step"] {
				t.Errorf("metadata step %s, the page's %s", meta["step"], q.Get("step"))
			}
			wantH := page.H[step-1]
			for j, v := range res.Output[step-1] {
				if math.Abs(v-wantH[j]) > 1e-12 {
					t.Fatalf("H_%d[%d] = %v from the file, %v on the page", step, j, v, wantH[j])
				}
			}
			if bench != "" {
				if err := os.WriteFile(filepath.Join(bench, c.slug+".safetensors"), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				js, _ := json.MarshalIndent(map[string]any{"lesson": c.slug, "query": c.query, "script": meta["script"], "step": step, "H": wantH}, "", " ")
				if err := os.WriteFile(filepath.Join(bench, c.slug+".json"), append(js, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// pageModel is the lesson's model for query, built as the page builds it.
func pageModel(t *testing.T, slug, query string) lessons.PyTorchModel {
	t.Helper()
	return lessons.Unwrap(pageBuild(t, slug, query)).(lessons.PyTorchExporter).PyTorch()
}

// pageBuild builds lesson slug's model from query, as the page does (trained=N
// replayed).
func pageBuild(t *testing.T, slug, query string) sim.Model {
	t.Helper()
	for _, l := range lessons.Catalog() {
		if l.Slug != slug {
			continue
		}
		q, _ := url.ParseQuery(query)
		v, err := l.Params.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		m, err := l.Build(v)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.Atoi(q.Get("trained")); n > 0 { // trained on the page: replayed, as the export does
			if err := sim.Replay(t.Context(), nil, m, n); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	t.Fatalf("no lesson %s", slug)
	return nil
}

// safetensorsMeta is a safetensors file's __metadata__.
func safetensorsMeta(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	n := int(raw[0]) | int(raw[1])<<8 | int(raw[2])<<16 | int(raw[3])<<24
	var header struct {
		Meta map[string]string `json:"__metadata__"`
	}
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	return header.Meta
}

// TestModelSafetensorsRefuses: a clamped gate for nn.py (which torch.nn cannot hold; the
// lectures' GRU downloads for its own script, TestModelSafetensorsLectureGRU), a lesson
// without a model and a bad step are refused with a message.
func TestModelSafetensorsRefuses(t *testing.T) {
	_, ts := newCatalogServer(t)
	for _, c := range []struct {
		path   string
		status int
		want   string
	}{
		{"/lessons/gru/model.safetensors?variant=reset-after&clamp=R", 400, "clamped"}, // nn.py's nn.GRU cannot hold a gate
		{"/lessons/lstm/model.safetensors?clamp=F", 400, "clamped"},
		{"/lessons/mt-data/model.safetensors", 404, "no model to download"},
		{"/lessons/gru/model.safetensors?model=nope", 400, "beside its own"},
		{"/lessons/lstm/model.safetensors?step=-1", 400, "step must be"},
		{"/lessons/lstm/model.safetensors?session=gone", 404, "session has ended"},
		{"/lessons/nope/model.safetensors", 404, "there is no lesson"},
	} {
		status, _, body := fetch(t, "GET", ts.URL+c.path, nil)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %.300s, want %d saying %q", c.path, status, body, c.status, c.want)
		}
	}
}

// TestModelSafetensorsOfTheSession: session=NAME exports the page's own model, trained
// on the page, copied (not trained again): the same file as the replay of trained=N,
// and not the bundled model's.
func TestModelSafetensorsOfTheSession(t *testing.T) {
	_, ts := newCatalogServer(t)
	q := "variant=reset-after&seed=3"
	c := dial(t, ts, "/lessons/gru/ws?"+q)
	name := receive(t, c).Header.Session
	send(t, c, sim.Command{Type: sim.TrainCommand, Steps: 2})
	for m := receive(t, c); m.Header.Type != sim.SnapshotMessage; m = receive(t, c) {
	}
	get := func(extra string) string {
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/gru/model.safetensors?"+q+"&"+extra, nil)
		if status != 200 {
			t.Fatalf("%s: %d %.300s", extra, status, body)
		}
		return body
	}
	fromSession := get("session=" + name)
	if replayed := get("trained=2"); replayed != fromSession {
		t.Errorf("the session's file differs from the replay of trained=2")
	}
	if bundled := get(""); bundled == fromSession {
		t.Errorf("the session's file is the bundled model's")
	}
}

// TestPyTorchSnippetIsTheScripts: the Python the page shows (HTML-escaped) is its
// lesson's script in lessons/pytorch, the file bench/pytorch/roundtrip.py runs, so the
// two cannot drift; lessons without a model to download do not show one.
func TestPyTorchSnippetIsTheScripts(t *testing.T) {
	script, err := os.ReadFile("../bench/pytorch/roundtrip.py")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `SCRIPTS = os.path.join(ROOT, "lessons", "pytorch")`) {
		t.Errorf("bench/pytorch/roundtrip.py does not run the scripts in lessons/pytorch")
	}
	_, ts := newCatalogServer(t)
	for _, l := range lessons.Catalog() {
		status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+l.Slug, nil)
		if status != 200 {
			t.Fatalf("%s: %d", l.Slug, status)
		}
		for _, script := range lessons.PyTorchScripts(l.Slug) {
			if !strings.Contains(body, html.EscapeString(lessons.PyTorchSnippet(script))) || lessons.PyTorchIntro(script) == "" {
				t.Errorf("%s: the page does not show %s, or it has no introduction", l.Slug, script)
			}
		}
		link := strings.Contains(body, fmt.Sprintf(`data-panel-export="/lessons/%s/model.safetensors"`, l.Slug))
		shown := strings.Count(body, `data-testid="pytorch-snippet"`)
		if shown != len(lessons.PyTorchScripts(l.Slug)) || link != lessons.HasPyTorch(l.Slug) {
			t.Errorf("%s: %d snippets shown, link %v, has a PyTorch model %v", l.Slug, shown, link, lessons.HasPyTorch(l.Slug))
		}
	}
}

// checkPyTorchProgram fetches lesson slug's model.safetensors for query through server ts
// and checks that it is the file of the page's own model (a PyTorchProgram built from
// query, as the page builds it): the same tensors and metadata, the lesson's script
// named, the step set. It returns the file's tensors and metadata. With
// UNROLL_PYTORCH_BENCH=DIR and a name it writes DIR/{name}.safetensors and DIR/{name}.json
// (the page's numbers H at the step), which bench/pytorch/roundtrip.py runs the script on.
func checkPyTorchProgram(t *testing.T, ts *httptest.Server, slug, query, name string) ([]*torchload.Tensor, map[string]string) {
	t.Helper()
	status, _, body := fetch(t, "GET", ts.URL+"/lessons/"+slug+"/model.safetensors?"+query, nil)
	if status != 200 {
		t.Fatalf("%s?%s: %d %.300s", slug, query, status, body)
	}
	tensors, format, err := torchload.Load([]byte(body))
	if err != nil || format != torchload.FormatSafetensors {
		t.Fatal(format, err)
	}
	meta := safetensorsMeta(t, []byte(body))
	if !slices.Contains(lessons.PyTorchScripts(slug), meta["script"]) || meta["lesson"] != slug || meta["format"] != "pt" {
		t.Errorf("metadata script %q, lesson %q, format %q", meta["script"], meta["lesson"], meta["format"])
	}
	f := pageProgram(t, slug, query, stepOfQuery(query))
	if meta["step"] != strconv.Itoa(f.Step) || meta["script"] != f.Script || f.Step < 1 || len(f.H) == 0 {
		t.Errorf("metadata step %s, the page's %d, %d numbers", meta["step"], f.Step, len(f.H))
	}
	for k, v := range f.Meta {
		if meta[k] != v {
			t.Errorf("metadata %s = %.80q, the page's %.80q", k, meta[k], v)
		}
	}
	if len(tensors) != len(f.Tensors) {
		t.Fatalf("%d tensors in the file, the page's model has %d", len(tensors), len(f.Tensors))
	}
	for i, x := range tensors {
		y := f.Tensors[i]
		if x.Name != y.Name || !slices.Equal(x.Shape, y.Shape) || !slices.Equal(x.Data, y.Data) {
			t.Errorf("tensor %d: %v in the file, %v of the page's model, or other numbers", i, x, y)
		}
	}
	if bench := os.Getenv("UNROLL_PYTORCH_BENCH"); bench != "" && name != "" {
		if err := os.WriteFile(filepath.Join(bench, name+".safetensors"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		js, _ := json.MarshalIndent(map[string]any{"lesson": slug, "query": query, "script": meta["script"], "step": f.Step, "H": f.H}, "", " ")
		if err := os.WriteFile(filepath.Join(bench, name+".json"), append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return tensors, meta
}

// pageProgram is the lesson's PyTorchFile for query at step, built as the page builds
// it: its own model's, or with model=NAME the one beside it of that name.
func pageProgram(t *testing.T, slug, query string, step int) lessons.PyTorchFile {
	t.Helper()
	m := lessons.Unwrap(pageBuild(t, slug, query))
	var f lessons.PyTorchFile
	var err error
	q, _ := url.ParseQuery(query)
	if name := q.Get("model"); name != "" { // a model beside the page's own
		c, ok := m.(lessons.PyTorchCompanions)
		if !ok {
			t.Fatalf("%s's model is a %T, with no models beside it", slug, m)
		}
		f, err = c.PyTorchCompanion(name, step)
	} else {
		p, ok := m.(lessons.PyTorchProgram)
		if !ok {
			t.Fatalf("%s's model is a %T, not a PyTorchProgram", slug, m)
		}
		f, err = p.PyTorchFile(step)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}
