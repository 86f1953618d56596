package web

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The API fuzz targets send arbitrary bodies through the whole handler (routing, body
// limit, JSON decoding, validation, the computation, encoding), as a client would. The
// seed corpora in testdata/fuzz/FuzzAPI* hold valid requests, every limit just over,
// deep nesting, huge numbers, NaN-like values, truncated bodies and unicode.

// FuzzAPICell: POST /api/v1/cell answers 200 with JSON, or 400/413 with {"error": "…"};
// never 500, never a panic.
func FuzzAPICell(f *testing.F) {
	f.Add([]byte(`{"kind":"rnn","params":{"W_xh":[[1]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1],[2]],"dh":[[1],[1]]}`))
	f.Add([]byte(`{"kind":"gru","params":{"W_xr":[[0.5]],"W_hr":[[-0.3]],"b_r":[0.1],"W_xz":[[0.2]],"W_hz":[[0.4]],"b_z":[0],` +
		`"W_xh":[[1.0]],"W_hh":[[0.7]],"b_h":[-0.2]},"x":[[1],[2]],"dh":[[1],[1]]}`))
	f.Add([]byte(`{"kind":"lstm","params":{"W_xi":[[1]],"W_hi":[[1]],"b_i":[0],"W_xf":[[1]],"W_hf":[[1]],"b_f":[0],` +
		`"W_xo":[[1]],"W_ho":[[1]],"b_o":[0],"W_xc":[[1]],"W_hc":[[1]],"b_c":[0]},"x":[[1]],"h0":[0],"c0":[1],"dh":[[1]]}`))
	f.Add([]byte(`{"kind":"rnn"`))
	fuzzAPI(f, "/api/v1/cell")
}

// FuzzAPIBLEU: the same contract for POST /api/v1/bleu.
func FuzzAPIBLEU(f *testing.F) {
	f.Add([]byte(`{"candidate":"the cat the cat on the mat","references":["the cat is on the mat","there is a cat on the mat"],"max_n":2}`))
	f.Add([]byte(`{"candidates":["a b c d","e f"],"references":[["a b c d"],["e f g","e"]],"weights":"d2l","lowercase":true}`))
	f.Add([]byte(`{"candidate":"","references":[""]}`))
	f.Add([]byte(`{"candidate":"a b","references":["a b"],"max_n":9}`))
	fuzzAPI(f, "/api/v1/bleu")
}

// FuzzAPITER: the same contract for POST /api/v1/ter.
func FuzzAPITER(f *testing.F) {
	f.Add([]byte(`{"candidate":"this week the saudis denied information published in the new york times","references":["saudi arabia denied this week information published in the american new york times"]}`))
	f.Add([]byte(`{"candidates":["d e f g h a b c","x"],"references":[["a b c d e f g h"],["y","x y z"]]}`))
	f.Add([]byte(`{"candidate":"","references":[""]}`))
	f.Add([]byte(`{"candidate":"a b","references":[]}`))
	fuzzAPI(f, "/api/v1/ter")
}

// fuzzAPI runs the API contract for path over one server built for the whole target.
func fuzzAPI(f *testing.F, path string) {
	var logs lockedBuffer // a 500 is a panic in a handler: its stack is logged here
	s, err := newServer(slog.New(slog.NewTextHandler(&logs, nil)), testCatalog, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		logs.Reset()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest("POST", "http://localhost"+path, bytes.NewReader(body)))
		checkAPIAnswer(t, "POST "+path, body, w, logs.String(), http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	})
}

// checkAPIAnswer fails unless the answer's status is one of ok, a 4xx carries docs/api.md's
// {"error": "…"} with a message, and a 200 carries JSON.
func checkAPIAnswer(t *testing.T, what string, in []byte, w *httptest.ResponseRecorder, logs string, ok ...int) {
	t.Helper()
	code, body := w.Code, w.Body.Bytes()
	allowed := false
	for _, c := range ok {
		allowed = allowed || code == c
	}
	if !allowed {
		t.Fatalf("%s %.300q: status %d, want one of %v; body %.300s\nserver log: %.3000s", what, in, code, ok, body, logs)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %.300q: status %d with Content-Type %q, want application/json", what, in, code, ct)
	}
	if code >= 400 {
		var e map[string]any
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatalf("%s %.300q: status %d with a body that is not JSON (%v): %.300s", what, in, code, err, body)
		}
		msg, isString := e["error"].(string)
		if len(e) != 1 || !isString || strings.TrimSpace(msg) == "" {
			t.Fatalf(`%s %.300q: status %d with body %.300s, want {"error": "<a message>"}`, what, in, code, body)
		}
		if len(msg) > 2000 { // an error names the problem; it does not echo a paste back
			t.Fatalf("%s %.300q: status %d with a %d-byte message: %.300s…", what, in, code, len(msg), msg)
		}
		return
	}
	if !json.Valid(body) {
		t.Fatalf("%s %.300q: status %d with a body that is not JSON: %.300s", what, in, code, body)
	}
}

// lockedBuffer is a bytes.Buffer safe for the server's goroutines to log into.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
