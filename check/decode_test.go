package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"unroll/models"
)

// largestRequest is the largest legal /api/v1/cell body: an lstm with d = h = MaxSize and
// T = MaxSteps, every number written with 17 significant digits as encoding/json and
// Python write them (worst case: 25 characters, like -0.0000012345678901234567).
func largestRequest(tb testing.TB, indent bool) []byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	num := func() float64 { return -(1 + rng.Float64()) * 1e-6 } // 17 digits after 0.00000
	mat := func(r, c int) [][]float64 {
		m := make([][]float64, r)
		for i := range m {
			m[i] = make([]float64, c)
			for j := range m[i] {
				m[i][j] = num()
			}
		}
		return m
	}
	params := map[string]any{}
	for _, n := range paramNames["lstm"] {
		switch {
		case strings.HasPrefix(n, "b_"):
			params[n] = mat(1, MaxSize)[0]
		default:
			params[n] = mat(MaxSize, MaxSize)
		}
	}
	req := map[string]any{"kind": "lstm", "params": params, "x": mat(MaxSteps, MaxSize), "dh": mat(MaxSteps, MaxSize),
		"h0": mat(1, MaxSize)[0], "c0": mat(1, MaxSize)[0]}
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(req, "", "  ")
	} else {
		b, err = json.Marshal(req)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestDecodeCellLargestRequest: the largest legal request decodes to exactly what
// encoding/json reads, holds MaxCellNumbers numbers, and one more number is refused.
func TestDecodeCellLargestRequest(t *testing.T) {
	body := largestRequest(t, false)
	t.Logf("largest legal request: %d bytes compact, %d numbers", len(body), MaxCellNumbers)
	req, err := DecodeCell(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Kind   string
		Params map[string]json.RawMessage
		X, DH  [][]float64
		H0, C0 []float64
	}
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatal(err)
	}
	if req.Kind != want.Kind || !reflect.DeepEqual(req.X, want.X) || !reflect.DeepEqual(req.DH, want.DH) ||
		!reflect.DeepEqual(req.H0, want.H0) || !reflect.DeepEqual(req.C0, want.C0) || len(req.Params) != 12 {
		t.Fatal("DecodeCell differs from encoding/json")
	}
	for name, raw := range want.Params {
		var m [][]float64
		if strings.HasPrefix(name, "b_") {
			var v []float64
			_ = json.Unmarshal(raw, &v)
			m = [][]float64{v}
		} else {
			_ = json.Unmarshal(raw, &m)
		}
		if !reflect.DeepEqual(req.Params[name], m) {
			t.Fatalf("params.%s differs from encoding/json", name)
		}
	}
	if _, err := Cell(req); err != nil {
		t.Fatalf("Cell on the largest request: %v", err)
	}
	// one more number in a row of x
	over := bytes.Replace(body, []byte(`"x":[[`), []byte(`"x":[[0,`), 1)
	if _, err := DecodeCell(bytes.NewReader(over)); err == nil || !strings.Contains(err.Error(), "x[0]: input size d = 257 or more is over the limit of 256") {
		t.Errorf("x row of 257: got %v", err)
	}
}

// TestDecodeCellTotalNumbers: weights of every kind together pass each field's limit
// but not the total.
func TestDecodeCellTotalNumbers(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"params":{`)
	row := "[" + strings.TrimSuffix(strings.Repeat("0,", MaxSize), ",") + "]"
	w := "[" + strings.TrimSuffix(strings.Repeat(row+",", MaxSize), ",") + "]"
	first := true
	for _, kind := range []models.Kind{models.KindGRU, models.KindLSTM} {
		for _, n := range paramNames[kind] {
			if strings.HasPrefix(n, "b_") {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			fmt.Fprintf(&b, "%q:%s", n, w)
		}
	}
	b.WriteString("}}")
	_, err := DecodeCell(strings.NewReader(b.String()))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d numbers", MaxCellNumbers)) {
		t.Errorf("14 full weights: got %v, want the total limit", err)
	}
}

func TestDecodeCellErrors(t *testing.T) {
	ok := `{"kind":"rnn","params":{"W_xh":[[1]],"W_hh":[[0.5]],"b_h":[0]},"x":[[1],[2]]}`
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "the body is empty"},
		{"spaces only", "  \n ", "the body is empty"},
		{"not an object", "[1]", "must be a JSON object"},
		{"not json", "{kind: gru", "not valid JSON"},
		{"ends early", `{"kind":"rnn","x":[[1]`, "ends too early"},
		{"trailing", ok + "{}", "unexpected data after the JSON object"},
		{"trailing garbage", ok + " x", "unexpected data after the JSON object"},
		{"unknown field", `{"kind":"rnn","bias":1}`, `unknown field "bias"`},
		{"duplicate field", `{"x":[[1]],"X":[[2]]}`, "x: given twice"},
		{"duplicate param", `{"params":{"W_xh":[[1]],"W_xh":[[1]]}}`, "params.W_xh: given twice"},
		{"unknown param, kind known", `{"kind":"gru","params":{"W_xi":[[1]]}}`, "params.W_xi: not a gru parameter"},
		{"unknown param", `{"params":{"W_zz":[[1]]}}`, "params.W_zz: not a parameter of any cell"},
		{"kind not a string", `{"kind":3}`, "kind: expected a string"},
		{"params not an object", `{"params":[1]}`, "params: expected an object"},
		{"x flat", `{"x":[1,2]}`, "x[0]: expected a list of numbers"},
		{"x deep", `{"x":[[[1]]]}`, "x[0][0]: expected a number, got a list"},
		{"x object", `{"x":[{"a":1}]}`, "x[0]: expected a list of numbers, like [0.5, -1]; got an object"},
		{"string in x", `{"x":[[1,"2"]]}`, "x[0][1]: expected a number, got a string"},
		{"bias as matrix", `{"params":{"b_h":[[1]]}}`, "params.b_h[0]: expected a number, got a list"},
		{"bias a string", `{"params":{"b_r":"zero"}}`, "params.b_r: expected a list of numbers"},
		{"weight flat", `{"params":{"W_hh":[1]}}`, "params.W_hh[0]: expected a list of numbers"},
		{"number too large", `{"h0":[1e400]}`, "h0[0]: 1e400 is too large for a float64"},
		{"too many steps", `{"x":[` + strings.Repeat("[0],", 600) + `[0]]}`, "x: 513 or more time steps is over the limit of 512"},
		{"never closed", `{"x":[` + strings.Repeat("[0],", 100000), "x: 513 or more time steps is over the limit of 512"},
		{"dh steps", `{"dh":[` + strings.Repeat("[0],", 600) + `[0]]}`, "dh: 513 or more time steps"},
		{"d too large", `{"x":[[` + strings.Repeat("0,", 300) + `0]]}`, "x[0]: input size d = 257 or more is over the limit of 256"},
		{"h too large", `{"params":{"W_hr":[` + strings.Repeat("[0],", 300) + `[0]]}}`, "params.W_hr: hidden size h = 257 or more is over the limit of 256"},
		{"h0 too long", `{"h0":[` + strings.Repeat("0,", 300) + `0]}`, "h0: hidden size h = 257 or more"},
		{"long string", `{"kind":"` + strings.Repeat("a", 5000) + `"}`, "a string longer than 1024 bytes (at byte 8)"},
		{"long key", `{"` + strings.Repeat("a", 5000) + `":1}`, "a string longer than 1024 bytes (at byte 1)"},
		{"long escapes", `{"kind":"` + strings.Repeat(`\"`, 1000) + `"}`, "a string longer than 1024 bytes"},
		{"long number", `{"h0":[` + strings.Repeat("1", 5000) + `]}`, "a number longer than 1024 bytes"},
		{"string past the held limit", `{"kind":"` + strings.Repeat("a", 3*maxHeldBytes) + `"}`, "a string longer than 1024 bytes (at byte 8)"},
		{"number past the held limit", `{"h0":[1, ` + strings.Repeat("1", 3*maxHeldBytes) + `]}`, "a number longer than 1024 bytes (at byte 10)"},
		{"string of 1025 bytes", `{"kind":"` + strings.Repeat("a", 1023) + `"}`, "a string longer than 1024 bytes (at byte 8)"},
		{"long white space", `{"h0":[1,` + strings.Repeat(" ", maxHeldBytes) + `2]}`, "more than 16384 bytes of white space in a row (at byte 9)"},
		{"long white space after", `{"h0":[1]}` + strings.Repeat("\n", 3*maxHeldBytes), "more than 16384 bytes of white space in a row (at byte 10)"},
		{"bad number", `{"h0":[01]}`, `"01" is not a JSON number`},
		{"bad fraction", `{"h0":[1.5.3]}`, `"1.5.3" is not a JSON number`},
		{"bad exponent", `{"h0":[1e]}`, `"1e" is not a JSON number`},
		{"missing comma in object", `{"h0":[1] "x":[[1]]}`, `invalid character '"' after an object key:value pair`},
		{"trailing comma in object", `{"h0":[1],}`, "invalid character '}' looking for the beginning of an object key string"},
		{"not a key", `{1:2}`, "invalid character '1' looking for the beginning of an object key string"},
		{"wrong bracket", `{"h0":[1}`, "invalid character '}' after a list element"},
		{"bad literal", `{"h0":[nul]}`, "(at byte 11): invalid character ']' in literal null"},
		{"control character", "{\"kind\":\"a\tb\"}", `(at byte 11): invalid character '\t' in a string literal`},
		{"bad escape", `{"kind":"\q"}`, "invalid escape"},
		{"trailing comma", `{"h0":[1,]}`, "invalid character ']' looking for the beginning of a value"},
		{"missing comma", `{"h0":[1 2]}`, "after a list element"},
		{"missing colon", `{"h0" [1]}`, "after an object key"},
		{"true in x", `{"x":[[true]]}`, "x[0][0]: expected a number, got true or false"},
		{"null in x (JavaScript's NaN)", `{"x":[[1, null]]}`, "x[0][1]: expected a number, got null"},
		{"null in a bias", `{"params":{"b_h":[null]}}`, "params.b_h[0]: expected a number, got null"},
		{"deep nesting", strings.Repeat("[", 1<<20), "must be a JSON object"},
		{"deep in x", `{"x":` + strings.Repeat("[", 1<<20), "x[0][0]: expected a number, got a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCell(strings.NewReader(tc.body))
			var bad *Error
			if !errors.As(err, &bad) || !strings.Contains(bad.Msg, tc.want) {
				t.Errorf("got %T %v, want a *check.Error containing %q", err, err, tc.want)
			}
			if bad != nil && len(bad.Msg) > 400 {
				t.Errorf("a %d-byte message echoes the body: %.200s…", len(bad.Msg), bad.Msg)
			}
		})
	}
}

// TestDecodeCellLikeEncodingJSON: what encoding/json accepted still decodes the same:
// field names in any case, null as omitted (but not inside a list: see the bad cases), white space (up to
// maxSpaceBytes in a row), escapes.
func TestDecodeCellLikeEncodingJSON(t *testing.T) {
	body := "{ \"KIND\" : \"r\\u006En\",\n  \"Params\": {\"W_xh\": [[1, 0]], \"W_hh\": [[0.5, 1], [2, 3]], \"b_h\": [0, -1e-400]},\n" +
		"  \"x\": [[1e2], [-0]], \"h0\": null, \"c0\": null," + strings.Repeat(" ", maxSpaceBytes) + "\"dh\": null }\n\n"
	req, err := DecodeCell(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &CellRequest{Kind: "rnn", Params: map[string][][]float64{"W_xh": {{1, 0}}, "W_hh": {{0.5, 1}, {2, 3}}, "b_h": {{0, 0}}},
		X: [][]float64{{100}, {0}}}
	if !reflect.DeepEqual(req, want) {
		t.Errorf("got %+v, want %+v", req, want)
	}
	if _, err := Cell(req); err != nil {
		t.Errorf("Cell: %v", err)
	}
	// an empty params object, an empty x: decoded, then refused by Cell with today's messages
	req, err = DecodeCell(strings.NewReader(`{"kind":"gru","params":{},"x":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Cell(req); err == nil || !strings.Contains(err.Error(), "x: is missing or empty") {
		t.Errorf("Cell on empty x: %v", err)
	}
}

// TestDecodeCellReadError: an error of the reader is wrapped, so package web can tell a
// body over its byte limit (413) from bad JSON (400).
func TestDecodeCellReadError(t *testing.T) {
	// io.ErrUnexpectedEOF from the reader (a chunked body cut short) is its error too
	for _, boom := range []error{errors.New("boom"), io.ErrUnexpectedEOF} {
		_, err := DecodeCell(io.MultiReader(strings.NewReader(`{"x":[[1],`), &failingReader{boom}))
		var bad *Error
		if !errors.Is(err, boom) || !errors.As(err, &bad) || !strings.Contains(bad.Msg, "could not be read") {
			t.Errorf("got %v, want a *check.Error wrapping the reader's error %v", err, boom)
		}
	}
}

// TestDecodeCellReaders: however the reader cuts the body, it decodes the same.
func TestDecodeCellReaders(t *testing.T) {
	body := `{"kind": "rnn", "params": {"W_xh": [[1.5e-3, -2]], "W_hh": [[0.5, 1], [2, 3]], "b_h": [0, -0]}, "x": [[100], [-0.25]]}`
	want, err := DecodeCell(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{
		"one byte":       iotest.OneByteReader(strings.NewReader(body)),
		"half":           iotest.HalfReader(strings.NewReader(body)),
		"data with EOF":  iotest.DataErrReader(strings.NewReader(body)),
		"timeout, retry": iotest.TimeoutReader(strings.NewReader(body)),
	} {
		got, err := DecodeCell(r)
		if name == "timeout, retry" { // the second read fails: the body could not be read
			var bad *Error
			if !errors.Is(err, iotest.ErrTimeout) || !errors.As(err, &bad) || !strings.Contains(bad.Msg, "could not be read") {
				t.Errorf("%s: got %v", name, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, %v", name, got, err)
		}
	}
	// a syntax error just past the end of what the decoder holds is named the same
	_, err = DecodeCell(iotest.OneByteReader(strings.NewReader(`{"h0":[01]}`)))
	if err == nil || !strings.Contains(err.Error(), `"01"`) {
		t.Errorf("01, a byte at a time: got %v", err)
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestDecodeCellMemoryBounded: 20 MiB bodies that never end, fill params, or hold one
// string, number or run of spaces, are refused after a few kilobytes; none allocates more
// than a few kilobytes (jsontext's buffer would grow to hold the string whole).
func TestDecodeCellMemoryBounded(t *testing.T) {
	const size = 20 << 20
	unclosed := []byte(`{"x": [` + strings.Repeat("[0],", size/4))
	var huge bytes.Buffer
	huge.WriteString(`{"params": {"W_xh": [`)
	for huge.Len() < size {
		huge.WriteString(`[0.123456789, 0.123456789, 0.123456789, 0.123456789],`)
	}
	spaces := append([]byte(`{"x": [[1]]`), bytes.Repeat([]byte(" "), size)...)
	str := append([]byte(`{"kind": "`), bytes.Repeat([]byte("a"), size)...)
	num := append([]byte(`{"h0": [`), bytes.Repeat([]byte("1"), size)...)
	for _, tc := range []struct {
		name string
		body []byte
	}{{"unclosed x", unclosed}, {"params", huge.Bytes()}, {"spaces", spaces}, {"string", str}, {"number", num}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := &countingReader{r: bytes.NewReader(tc.body)}
		_, err := DecodeCell(r)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d MiB body, read %d KiB, allocated %d KiB: %v", tc.name, len(tc.body)>>20, r.n>>10, alloc>>10, err)
		if err == nil || alloc > 1<<20 || r.n > 1<<20 {
			t.Errorf("%s: read %d bytes and allocated %d bytes, want an error within 1 MiB of each", tc.name, r.n, alloc)
		}
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func BenchmarkDecodeCellLargest(b *testing.B) {
	body := largestRequest(b, false)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeCell(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCellLargestIndented(b *testing.B) {
	body := largestRequest(b, true)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeCell(bytes.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalCellLargest(b *testing.B) { // the decoding before DecodeCell, for comparison
	body := largestRequest(b, false)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var req struct {
			Kind   string
			Params map[string]json.RawMessage
			X, DH  [][]float64
			H0, C0 []float64
		}
		if err := json.Unmarshal(body, &req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCellLargest(b *testing.B) {
	req, err := DecodeCell(bytes.NewReader(largestRequest(b, false)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Cell(req); err != nil {
			b.Fatal(err)
		}
	}
}
