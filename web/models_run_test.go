package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"unroll/torchload"
)

// torchFixtures is where bench/pytorch/torchload_fixtures.py writes PyTorch's numbers.
const torchFixtures = "../torchload/testdata"

// postModel sends POST /api/v1/models/run with the given parts (name → content, in
// order) and returns the status and the raw answer.
func postModel(t *testing.T, ts *httptest.Server, parts [][2]string) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range parts {
		w, err := mw.CreateFormFile(p[0], p[0]+".bin")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p[1]))
	}
	mw.Close()
	resp, err := http.Post(ts.URL+"/api/v1/models/run", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	return resp.StatusCode, out
}

// TestModelsRunMatchesPyTorch: through a real server, every fixture file (torch.save and
// safetensors) with its fixture's input answers PyTorch's output, h_n, c_n and logits to
// 1e-5, and every gate of every layer, direction and step to 1e-5.
func TestModelsRunMatchesPyTorch(t *testing.T) {
	ts := newTestServer(t)
	jsons, _ := filepath.Glob(filepath.Join(torchFixtures, "*.json"))
	if len(jsons) < 9 {
		t.Fatalf("%d fixtures in %s", len(jsons), torchFixtures)
	}
	for _, js := range jsons {
		raw, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			torchload.Result
			Input torchload.Input `json:"input"`
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if want.Architecture.Kind == torchload.KindRNNReLU {
			want.Input.Nonlinearity = "relu"
		}
		input, _ := json.Marshal(want.Input)
		for _, ext := range []string{".pt", ".safetensors"} {
			model, err := os.ReadFile(strings.TrimSuffix(js, ".json") + ext)
			if err != nil {
				t.Fatal(err)
			}
			status, body := postModel(t, ts, [][2]string{{"model", string(model)}, {"input", string(input)}})
			name := filepath.Base(js) + ext
			if status != http.StatusOK {
				t.Fatalf("%s: %d %s", name, status, body)
			}
			var got torchload.Result
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Architecture.Kind != want.Architecture.Kind || got.Architecture.Layers != want.Architecture.Layers ||
				got.Architecture.Parameters != want.Architecture.Parameters {
				t.Errorf("%s: architecture %+v, want %+v", name, got.Architecture, want.Architecture)
			}
			near(t, name+" output", got.Output, want.Output)
			near(t, name+" h_n", got.HN, want.HN)
			near(t, name+" c_n", got.CN, want.CN)
			near(t, name+" logits", got.Logits, want.Logits)
			if len(got.Steps) != len(want.Steps) {
				t.Fatalf("%s: %d steps entries, want %d", name, len(got.Steps), len(want.Steps))
			}
			for i, st := range want.Steps {
				for g, v := range st.Gates {
					near(t, name+" gate "+g, got.Steps[i].Gates[g], v)
				}
			}
		}
	}
}

// near fails unless got and want have the same shape and agree to 1e-5 (API.md).
func near(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("%s row %d: %d values, want %d", what, i, len(got[i]), len(want[i]))
			return
		}
		for j := range want[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-5 {
				t.Errorf("%s[%d][%d] = %v, PyTorch %v", what, i, j, got[i][j], want[i][j])
				return
			}
		}
	}
}

// TestModelsRunRefuses: a hostile pickle is a 400 naming the global and runs nothing; a
// model part over the limit is a 413; a missing part, bad JSON or a layout Unroll cannot
// map is a 400 that says what is wrong.
func TestModelsRunRefuses(t *testing.T) {
	const marker = "/tmp/unroll-torchload-pwned"
	ts := newTestServer(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(torchFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	x := `{"x": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]}`
	os.Remove(marker)
	cases := []struct {
		name   string
		parts  [][2]string
		status int
		want   string
	}{
		{"hostile", [][2]string{{"model", read("hostile_os_system.pt")}, {"input", x}}, 400, "os.system"},
		{"hostile-eval", [][2]string{{"model", read("hostile_builtins_eval.pt")}, {"input", x}}, 400, "builtins.eval"},
		{"no-model", [][2]string{{"input", x}}, 400, `"model" is missing`},
		{"no-input", [][2]string{{"model", read("gru_bi2.pt")}}, 400, `"input" is missing`},
		{"bad-json", [][2]string{{"model", read("gru_bi2.pt")}, {"input", `{"x": [[1, 2, 3]], "y": 1}`}}, 400, "unknown field"},
		{"extra-part", [][2]string{{"model", read("gru_bi2.pt")}, {"weights", "x"}}, 400, `unknown part "weights"`},
		{"wrong-width", [][2]string{{"model", read("gru_bi2.pt")}, {"input", `{"x": [[1, 2]]}`}}, 400, "input_size is 3"},
		{"not-a-model", [][2]string{{"model", "hello"}, {"input", x}}, 400, "neither a torch.save zip"},
		{"too-big", [][2]string{{"model", strings.Repeat("a", torchload.MaxFileBytes+1)}, {"input", x}}, 413, "limit"},
	}
	for _, c := range cases {
		status, body := postModel(t, ts, c.parts)
		var e struct{ Error string }
		json.Unmarshal(body, &e)
		if status != c.status || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %s, want %d containing %q", c.name, status, body, c.status, c.want)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the marker %s exists", marker)
	}
	// Not multipart at all.
	status, body := post(t, ts, "/api/v1/models/run", `{"x": [[1]]}`)
	if status != 400 || !strings.Contains(body["error"].(string), "multipart/form-data") {
		t.Errorf("JSON body: %d %v", status, body)
	}
}

// TestModelsRunUploadSlots: while maxModelUploads uploads are being read, another is a
// 503, and a slot given back serves the next.
func TestModelsRunUploadSlots(t *testing.T) {
	h, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	for range maxModelUploads {
		h.models <- struct{}{}
	}
	status, body := postModel(t, ts, [][2]string{{"model", "x"}, {"input", "{}"}})
	if status != http.StatusServiceUnavailable || !strings.Contains(string(body), "try again") {
		t.Errorf("with every slot taken: %d %s, want 503", status, body)
	}
	<-h.models
	if status, body := postModel(t, ts, [][2]string{{"model", "x"}, {"input", "{}"}}); status != http.StatusBadRequest {
		t.Errorf("with a slot free: %d %s, want the 400 of a bad file", status, body)
	}
	if len(h.models) != maxModelUploads-1 {
		t.Errorf("%d slots taken after the request, want %d", len(h.models), maxModelUploads-1)
	}
}
