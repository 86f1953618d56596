package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// newTestServer starts the real handler on a loopback port.
func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	h, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// post sends body to path and decodes the JSON answer.
func post(t *testing.T, ts *httptest.Server, path, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("POST %s: Content-Type %q, want application/json", path, ct)
	}
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("POST %s: answer is not JSON: %v", path, err)
	}
	return resp.StatusCode, out
}

func TestHealthz(t *testing.T) {
	ts := newTestServer(t)
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("GET /healthz = %d %q, want 200 \"ok\"", resp.StatusCode, body)
	}
}

func TestUnknownPathAndMethod(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/api/v1/nope", 404},
		{"GET", "/api/v1/cell", 405},
		{"PUT", "/api/v1/bleu", 405},
		{"GET", "/api/v1/ter", 405},
		{"DELETE", "/api/v1/cell", 405},
		{"POST", "/healthz", 405},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]string
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if resp.StatusCode != tc.code || err != nil || out["error"] == "" {
			t.Errorf("%s %s = %d %v (decode err %v), want %d with a JSON error", tc.method, tc.path, resp.StatusCode, out, err, tc.code)
		}
		wantAllow := "POST"
		if tc.path == "/healthz" {
			wantAllow = "GET, HEAD"
		}
		if tc.code == 405 && resp.Header.Get("Allow") != wantAllow {
			t.Errorf("%s %s: Allow = %q, want %s", tc.method, tc.path, resp.Header.Get("Allow"), wantAllow)
		}
	}
}

// randMatrix is an r×c matrix of U(-1,1) entries.
func randMatrix(rng *rand.Rand, r, c int) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = make([]float64, c)
		for j := range m[i] {
			m[i][j] = 2*rng.Float64() - 1
		}
	}
	return m
}

// gruRequest is a random, valid gru request with d inputs, h units and T steps.
func gruRequest(rng *rand.Rand, d, h, T int) map[string]any {
	params := map[string]any{}
	for _, g := range []string{"r", "z", "h"} {
		params["W_x"+g] = randMatrix(rng, d, h)
		params["W_h"+g] = randMatrix(rng, h, h)
		params["b_"+g] = randMatrix(rng, 1, h)[0]
	}
	return map[string]any{"kind": "gru", "params": params, "x": randMatrix(rng, T, d),
		"h0": randMatrix(rng, 1, h)[0], "dh": randMatrix(rng, T, h)}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCellGRUAgainstLecture recomputes the lecture-4.3 equations with plain loops and
// compares every gate, and checks the returned gradients by finite differences of
// L = Σ_t ⟨dh_t, H_t⟩ computed through the API itself.
func TestCellGRUAgainstLecture(t *testing.T) {
	ts := newTestServer(t)
	rng := rand.New(rand.NewPCG(1, 1))
	const d, h, T = 3, 4, 5
	req := gruRequest(rng, d, h, T)
	code, out := post(t, ts, "/api/v1/cell", mustJSON(t, req))
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	steps := out["steps"].([]any)
	if len(steps) != T {
		t.Fatalf("got %d steps, want %d", len(steps), T)
	}
	p := req["params"].(map[string]any)
	W := func(n string) [][]float64 { return p[n].([][]float64) }
	b := func(n string) []float64 { return p[n].([]float64) }
	sigma := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	affine := func(x []float64, wx [][]float64, hh []float64, wh [][]float64, bias []float64, j int) float64 {
		s := bias[j]
		for i := range x {
			s += x[i] * wx[i][j]
		}
		for i := range hh {
			s += hh[i] * wh[i][j]
		}
		return s
	}
	H := req["h0"].([]float64)
	for ti, xt := range req["x"].([][]float64) {
		R, Z, Ht, Hn := make([]float64, h), make([]float64, h), make([]float64, h), make([]float64, h)
		for j := range h {
			R[j] = sigma(affine(xt, W("W_xr"), H, W("W_hr"), b("b_r"), j))
			Z[j] = sigma(affine(xt, W("W_xz"), H, W("W_hz"), b("b_z"), j))
		}
		RH := make([]float64, h)
		for j := range h {
			RH[j] = R[j] * H[j]
		}
		for j := range h {
			Ht[j] = math.Tanh(affine(xt, W("W_xh"), RH, W("W_hh"), b("b_h"), j))
			Hn[j] = Z[j]*H[j] + (1-Z[j])*Ht[j]
		}
		st := steps[ti].(map[string]any)
		if st["t"].(float64) != float64(ti+1) {
			t.Errorf("step %d: t = %v, want %d", ti, st["t"], ti+1)
		}
		for name, want := range map[string][]float64{"R": R, "Z": Z, "H_tilde": Ht, "H": Hn} {
			got := st[name].([]any)
			for j := range want {
				if math.Abs(got[j].(float64)-want[j]) > 1e-12 {
					t.Errorf("step %d %s[%d] = %v, want %v", ti+1, name, j, got[j], want[j])
				}
			}
		}
		H = Hn
	}

	// Finite differences through the API: perturb one entry, recompute L.
	loss := func(r map[string]any) float64 {
		c, o := post(t, ts, "/api/v1/cell", mustJSON(t, r))
		if c != 200 {
			t.Fatalf("status %d: %v", c, o)
		}
		dh := r["dh"].([][]float64)
		var L float64
		for ti, s := range o["steps"].([]any) {
			for j, v := range s.(map[string]any)["H"].([]any) {
				L += dh[ti][j] * v.(float64)
			}
		}
		return L
	}
	grads := out["grads"].(map[string]any)
	const eps, tol = 1e-6, 1e-7
	probe := func(name string, cell *float64, got float64) {
		orig := *cell
		*cell = orig + eps
		up := loss(req)
		*cell = orig - eps
		down := loss(req)
		*cell = orig
		if want := (up - down) / (2 * eps); math.Abs(got-want) > tol {
			t.Errorf("grads.%s = %v, finite difference %v", name, got, want)
		}
	}
	probe("W_hr[1][2]", &W("W_hr")[1][2], grads["W_hr"].([]any)[1].([]any)[2].(float64))
	probe("W_xh[0][3]", &W("W_xh")[0][3], grads["W_xh"].([]any)[0].([]any)[3].(float64))
	probe("b_z[1]", &b("b_z")[1], grads["b_z"].([]any)[1].(float64))
	probe("x[2][1]", &req["x"].([][]float64)[2][1], grads["x"].([]any)[2].([]any)[1].(float64))
	probe("h0[3]", &req["h0"].([]float64)[3], grads["h0"].([]any)[3].(float64))
}

// TestCellKeysInOrder checks each kind's per-step keys and grads keys, in docs/api.md's order.
func TestCellKeysInOrder(t *testing.T) {
	ts := newTestServer(t)
	rng := rand.New(rand.NewPCG(2, 2))
	names := map[string][]string{
		"rnn":  {"W_xh", "W_hh", "b_h"},
		"lstm": {"W_xi", "W_hi", "b_i", "W_xf", "W_hf", "b_f", "W_xo", "W_ho", "b_o", "W_xc", "W_hc", "b_c"},
	}
	stepKeys := map[string]string{"rnn": `{"t":1,"H":`, "lstm": `{"t":1,"I":`}
	for kind, ps := range names {
		params := map[string]any{}
		for _, n := range ps {
			if strings.HasPrefix(n, "b_") {
				params[n] = randMatrix(rng, 1, 2)[0]
			} else if strings.HasPrefix(n, "W_x") {
				params[n] = randMatrix(rng, 3, 2)
			} else {
				params[n] = randMatrix(rng, 2, 2)
			}
		}
		body := mustJSON(t, map[string]any{"kind": kind, "params": params, "x": randMatrix(rng, 2, 3), "dh": randMatrix(rng, 2, 2)})
		resp, err := http.Post(ts.URL+"/api/v1/cell", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		s := string(raw)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", kind, resp.StatusCode, s)
		}
		if !strings.Contains(s, stepKeys[kind]) {
			t.Errorf("%s: steps do not start with %s: %.200s", kind, stepKeys[kind], s)
		}
		if kind == "lstm" && !strings.Contains(s, `"C_tilde"`) || kind == "lstm" && !strings.Contains(s, `"c0"`) {
			t.Errorf("lstm: missing C_tilde or grads.c0: %.300s", s)
		}
		last := -1
		for _, n := range append(ps, "x", "h0") {
			i := strings.Index(s, `"`+n+`":`)
			if i < last {
				t.Errorf("%s: grads key %s out of docs/api.md's order", kind, n)
			}
			last = i
		}
	}
}

// TestCellErrors sends every kind of bad input and expects 400 (or 413) naming the problem.
func TestCellErrors(t *testing.T) {
	ts := newTestServer(t)
	rng := rand.New(rand.NewPCG(3, 3))
	valid := func() map[string]any { return gruRequest(rng, 2, 3, 2) }
	with := func(edit func(r map[string]any)) string {
		r := valid()
		edit(r)
		return mustJSON(t, r)
	}
	params := func(r map[string]any) map[string]any { return r["params"].(map[string]any) }
	for _, tc := range []struct {
		name, body string
		code       int
		mention    string
	}{
		{"empty body", "", 400, "empty"},
		{"not json", "{kind: gru", 400, "not valid JSON"},
		{"trailing data", with(func(map[string]any) {}) + "{}", 400, "after the JSON"},
		{"unknown field", with(func(r map[string]any) { r["bias"] = 1 }), 400, "bias"},
		{"unknown kind", with(func(r map[string]any) { r["kind"] = "transformer" }), 400, "kind"},
		{"missing param", with(func(r map[string]any) { delete(params(r), "W_hz") }), 400, "params.W_hz"},
		{"extra param", with(func(r map[string]any) { params(r)["W_xi"] = [][]float64{{1}} }), 400, "params.W_xi"},
		{"wrong shape", with(func(r map[string]any) { params(r)["W_xr"] = randMatrix(rng, 3, 3) }), 400, "params.W_xr"},
		{"bias not a list", with(func(r map[string]any) { params(r)["b_r"] = "zero" }), 400, "params.b_r"},
		{"bias length", with(func(r map[string]any) { params(r)["b_h"] = []float64{1} }), 400, "params.b_h"},
		{"ragged x", with(func(r map[string]any) { r["x"] = [][]float64{{1, 2}, {3}} }), 400, "x: row 2"},
		{"empty x", with(func(r map[string]any) { r["x"] = [][]float64{} }), 400, "x:"},
		{"missing x", with(func(r map[string]any) { delete(r, "x") }), 400, "x:"},
		{"string in x", strings.Replace(with(func(r map[string]any) { r["x"] = [][]float64{{1, 2}} }), "[[1,2]]", `[[1,"2"]]`, 1), 400, "x"},
		{"too many steps", with(func(r map[string]any) { r["x"] = randMatrix(rng, 513, 2); delete(r, "dh") }), 400, "512"},
		{"d too large", with(func(r map[string]any) { r["x"] = randMatrix(rng, 1, 257); delete(r, "dh") }), 400, "256"},
		{"h too large", with(func(r map[string]any) { params(r)["W_hr"] = randMatrix(rng, 257, 1) }), 400, "256"},
		{"h0 length", with(func(r map[string]any) { r["h0"] = []float64{1} }), 400, "h0"},
		{"c0 on gru", with(func(r map[string]any) { r["c0"] = []float64{1, 2, 3} }), 400, "c0"},
		{"dh shape", with(func(r map[string]any) { r["dh"] = randMatrix(rng, 3, 3) }), 400, "dh"},
		{"number too large", strings.Replace(with(func(r map[string]any) { r["h0"] = []float64{1, 2, 3} }), "[1,2,3]", "[1e400,2,3]", 1), 400, "h0"},
		{"overflow", with(func(r map[string]any) {
			for _, n := range []string{"W_xr", "W_xz", "W_xh"} {
				params(r)[n] = [][]float64{{1e308, 1e308, 1e308}, {-1e308, -1e308, -1e308}}
			}
			r["x"] = [][]float64{{1e308, 1e308}, {1, 1}} // Inf − Inf = NaN in every gate
		}), 400, "overflow"},
		{"huge paste", `{"kind":"gru","x":[` + strings.Repeat("1,", 17<<20) + `1]}`, 413, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := post(t, ts, "/api/v1/cell", tc.body)
			msg, _ := out["error"].(string)
			if code != tc.code || !strings.Contains(msg, tc.mention) {
				t.Errorf("got %d %q, want %d mentioning %q", code, msg, tc.code, tc.mention)
			}
		})
	}
	// The server still answers after all of that.
	if code, out := post(t, ts, "/api/v1/cell", mustJSON(t, valid())); code != 200 {
		t.Errorf("valid request after bad ones: %d %v", code, out)
	}
}
