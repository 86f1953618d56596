package models

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// stTinyParams is the model of the hand-derived layout: W = [1 −2] and b = [0.5].
func stTinyParams() Params {
	w := NewParam("W", 1, 2)
	w.Value.SetRow(0, []float64{1, -2})
	b := NewBias("b", 1)
	b.Value.Set(0, 0, 0.5)
	return Params{w, b}
}

// stFile assembles a safetensors stream from a header and data, unpadded.
func stFile(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, data...)
}

// stModel returns a small random model: weights, a square recurrent weight, biases.
func stModel(rng *rand.Rand) Params {
	ps := Params{NewParam("W_xr", 3, 4), NewParam("W_hr", 4, 4), NewBias("b_r", 4), NewParam("dense.W", 4, 2), NewBias("dense.b", 2)}
	for _, p := range ps {
		Normal(p, 1, rng)
	}
	return ps
}

// stZeroLike returns parameters with the names and shapes of ps and zero values.
func stZeroLike(ps Params) Params {
	out := make(Params, len(ps))
	for i, p := range ps {
		r, c := p.Value.Dims()
		out[i] = NewParam(p.Name, r, c)
		out[i].Vector = p.Vector
	}
	return out
}

func TestSafetensorsLayoutByHand(t *testing.T) {
	// 8 bytes: N = 144 little-endian. Then the 142-byte JSON header and two spaces of
	// padding to a multiple of 8. Then W's 16 bytes (1.0 = 0x3FF0…, −2.0 = 0xC000…)
	// and b's 8 bytes (0.5 = 0x3FE0…), each little-endian.
	const header = `{"__metadata__":{"kind":"gru"},` +
		`"W":{"dtype":"F64","shape":[1,2],"data_offsets":[0,16]},` +
		`"b":{"dtype":"F64","shape":[1],"data_offsets":[16,24]}}` + "  "
	want := []byte{0x90, 0, 0, 0, 0, 0, 0, 0}
	want = append(want, header...)
	want = append(want,
		0, 0, 0, 0, 0, 0, 0xf0, 0x3f,
		0, 0, 0, 0, 0, 0, 0, 0xc0,
		0, 0, 0, 0, 0, 0, 0xe0, 0x3f)
	if len(header) != 144 {
		t.Fatalf("hand-derived header: got %d bytes want 144", len(header))
	}
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, stTinyParams(), map[string]string{"kind": "gru"}); err != nil {
		t.Fatal(err)
	}
	if got := buf.Bytes(); !bytes.Equal(got, want) {
		t.Errorf("bytes:\ngot  %q\nwant %q", got, want)
	}
}

func TestSafetensorsNoMetadata(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, stTinyParams(), nil); err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(buf.Bytes())
	header := string(buf.Bytes()[8 : 8+n])
	if n%headerAlign != 0 || strings.Contains(header, metadataKey) || !strings.HasPrefix(header, `{"W":`) {
		t.Errorf("header: got %q (N = %d) want no __metadata__, N a multiple of 8", header, n)
	}
	meta, err := ReadSafetensors(&buf, stZeroLike(stTinyParams()))
	if err != nil || meta == nil || len(meta) != 0 {
		t.Errorf("read: got %v, %v want an empty map, nil", meta, err)
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		seed uint64
		meta map[string]string
	}{
		{"with metadata", 1, map[string]string{"kind": "gru", "step": "1200", "vocab": "<pad> <bos> <eos> go va"}},
		{"no metadata", 2, nil},
		{"odd characters", 3, map[string]string{"note": "quotes \" and \\ and <html> & é"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := stModel(rand.New(rand.NewPCG(1, tc.seed)))
			ps[0].Value.Set(0, 0, math.SmallestNonzeroFloat64) // subnormals survive too
			ps[0].Value.Set(0, 1, math.Copysign(0, -1))
			var buf bytes.Buffer
			if err := WriteSafetensors(&buf, ps, tc.meta); err != nil {
				t.Fatal(err)
			}
			got := stZeroLike(ps)
			meta, err := ReadSafetensors(&buf, got)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range ps {
				r, c := p.Value.Dims()
				for a := 0; a < r; a++ {
					for b := 0; b < c; b++ {
						want, have := p.Value.At(a, b), got[i].Value.At(a, b)
						if math.Float64bits(want) != math.Float64bits(have) {
							t.Errorf("%s[%d,%d]: got %v want %v (bit-exact)", p.Name, a, b, have, want)
						}
					}
				}
			}
			if len(tc.meta) == 0 && len(meta) != 0 || len(tc.meta) > 0 && !maps.Equal(meta, tc.meta) {
				t.Errorf("metadata: got %v want %v", meta, tc.meta)
			}
		})
	}
}

func TestSafetensorsWriterError(t *testing.T) {
	for _, limit := range []int{0, 4, 8, 100, 160} { // inside the length, header, data
		err := WriteSafetensors(&stFailingWriter{room: limit}, stTinyParams(), map[string]string{"kind": "gru"})
		if err == nil || !strings.Contains(err.Error(), "no room") || !strings.HasPrefix(err.Error(), "models: safetensors: ") {
			t.Errorf("writer failing after %d bytes: got %v want models: safetensors: … no room", limit, err)
		}
	}
}

// stFailingWriter accepts room bytes, then fails.
type stFailingWriter struct{ room int }

func (w *stFailingWriter) Write(p []byte) (int, error) {
	if len(p) > w.room {
		n := w.room
		w.room = 0
		return n, errors.New("no room")
	}
	w.room -= len(p)
	return len(p), nil
}

func TestSafetensorsWriteRejects(t *testing.T) {
	cases := []struct {
		name string
		ps   Params
		want string
	}{
		{"empty name", Params{NewParam("", 1, 1)}, "parameter with an empty name"},
		{"reserved name", Params{NewParam("__metadata__", 1, 1)}, `may not be called "__metadata__"`},
		{"Inf", func() Params { p := NewParam("W", 1, 1); p.Value.Set(0, 0, math.Inf(1)); return Params{p} }(), `tensor "W" holds NaN or Inf`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteSafetensors(&buf, tc.ps, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v want an error containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("output: got %d bytes want none", buf.Len())
			}
		})
	}
}

func TestSafetensorsReadsF32AndSkipsExtras(t *testing.T) {
	// "extra" (I32) comes first in the data and has no parameter; W is F32 [1,2]; b is F64 [1].
	header := `{"b":{"dtype":"F64","shape":[1],"data_offsets":[16,24]},` +
		`"W":{"dtype":"F32","shape":[1,2],"data_offsets":[8,16]},` +
		`"extra":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"__metadata__":null}`
	var data []byte
	data = binary.LittleEndian.AppendUint32(data, 7)
	data = binary.LittleEndian.AppendUint32(data, 9)
	data = binary.LittleEndian.AppendUint32(data, math.Float32bits(1.5))
	data = binary.LittleEndian.AppendUint32(data, math.Float32bits(-0.1))
	data = binary.LittleEndian.AppendUint64(data, math.Float64bits(0.25))
	ps := stZeroLike(stTinyParams())
	meta, err := ReadSafetensors(bytes.NewReader(stFile(header, data)), ps)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.5, float64(float32(-0.1)), 0.25}
	got := []float64{ps[0].Value.At(0, 0), ps[0].Value.At(0, 1), ps[1].Value.At(0, 0)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d: got %v want %v", i, got[i], want[i])
		}
	}
	if meta == nil || len(meta) != 0 {
		t.Errorf("metadata: got %v want an empty map", meta)
	}
}

func TestSafetensorsReadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := WriteSafetensors(&good, stTinyParams(), map[string]string{"kind": "gru"}); err != nil {
		t.Fatal(err)
	}
	f64 := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	const w = `"W":{"dtype":"F64","shape":[1,2],"data_offsets":[0,16]}`
	const b = `"b":{"dtype":"F64","shape":[1],"data_offsets":[16,24]}`
	lengthOnly := func(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "reading header length"},
		{"short length", []byte{1, 2, 3}, "reading header length"},
		{"huge length", lengthOnly(1 << 40), "header length 1099511627776 outside"},
		{"zero length", lengthOnly(0), "header length 0 outside"},
		{"header cut short", append(lengthOnly(100), "{}"...), "header is 100 bytes, file ends after 2"},
		{"not UTF-8", stFile("{\"W\xff\":1}", nil), "header is not UTF-8"},
		{"not an object", stFile(`[1,2]`, nil), "header is not a JSON object"},
		{"bad JSON", stFile(`{"W":`, nil), "header:"},
		{"metadata not strings", stFile(`{"__metadata__":{"step":3}}`, nil), "__metadata__ is not an object of strings"},
		{"missing tensor", stFile("{"+w+"}", f64(1, 2)), `no tensor "b"`},
		{"wrong shape", stFile(`{"W":{"dtype":"F64","shape":[2,1],"data_offsets":[0,16]},`+b+"}", f64(1, 2, 3)), `tensor "W" has shape [2 1], want [1 2]`},
		{"bias as matrix", stFile("{"+w+`,"b":{"dtype":"F64","shape":[1,1],"data_offsets":[16,24]}}`, f64(1, 2, 3)), `tensor "b" has shape [1 1], want [1]`},
		{"integer dtype", stFile(`{"W":{"dtype":"I64","shape":[1,2],"data_offsets":[0,16]},`+b+"}", f64(1, 2, 3)), `tensor "W" has dtype I64, want F64 or F32`},
		{"unknown dtype", stFile(`{"W":{"dtype":"F128","shape":[1,2],"data_offsets":[0,16]},`+b+"}", f64(1, 2, 3)), `tensor "W" has unknown dtype "F128"`},
		{"no shape", stFile(`{"W":{"dtype":"F64","data_offsets":[0,16]}}`, f64(1, 2)), `tensor "W" needs a shape`},
		{"rank too high", stFile(`{"W":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}}`, []byte{0}), `tensor "W" needs a shape of rank 0 to 8`},
		{"three offsets", stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[0,16,24]}}`, f64(1, 2)), `tensor "W" needs data_offsets`},
		{"reversed offsets", stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[16,0]}}`, f64(1, 2)), `tensor "W" needs data_offsets`},
		{"negative offset", stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[-8,8]}}`, f64(1, 2)), `tensor "W":`},
		{"span mismatch", stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[0,24]}}`, f64(1, 2, 3)), `tensor "W" spans 24 bytes, its F64 shape [1 2] needs 16`},
		{"shape overflow", stFile(`{"W":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil), `tensor "W": shape [4294967296 4294967296] overflows`},
		{"gap", stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[8,24]},"b":{"dtype":"F64","shape":[1],"data_offsets":[24,32]}}`, f64(0, 1, 2, 3)), `tensor "W" starts at byte 8, want 0`},
		{"overlap", stFile("{"+w+`,"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, f64(1, 2)), `starts at byte 8, want 16`},
		{"data cut short", stFile("{"+w+","+b+"}", f64(1, 2)), `reading tensor "b"`},
		{"extra cut short", stFile("{"+w+","+b+`,"z":{"dtype":"U8","shape":[9],"data_offsets":[24,33]}}`, f64(1, 2, 3)), `reading tensor "z"`},
		{"trailing bytes", append(bytes.Clone(good.Bytes()), 0), "bytes after the last tensor"},
		{"NaN value", stFile("{"+w+","+b+"}", f64(1, math.NaN(), 3)), `tensor "W" holds NaN at element 1`},
		{"Inf value", stFile("{"+w+","+b+"}", f64(1, 2, math.Inf(-1))), `tensor "b" holds -Inf at element 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := stTinyParams()
			_, err := ReadSafetensors(bytes.NewReader(tc.file), ps)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "models: safetensors: ") {
				t.Fatalf("error: got %v want models: safetensors: … %s", err, tc.want)
			}
			want := stTinyParams()
			for i := range ps {
				if !mat.Equal(ps[i].Value, want[i].Value) {
					t.Errorf("%s changed by a failed read: got %v want %v", ps[i].Name, ps[i].Value.RawRowView(0), want[i].Value.RawRowView(0))
				}
			}
		})
	}
}

func TestCheckpointErrorNamesTensor(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, stTinyParams(), nil); err != nil {
		t.Fatal(err)
	}
	lstm := Params{NewParam("W", 1, 2), NewBias("b", 1), NewParam("W_xf", 2, 2)}
	_, err := ReadSafetensors(&buf, lstm)
	want := `models: safetensors: no tensor "W_xf"`
	if err == nil || err.Error() != want {
		t.Errorf("error: got %v want %s", err, want)
	}
}

// FuzzReadSafetensors feeds arbitrary bytes to the reader: it must never panic, and
// whatever it accepts must be finite and survive a write/read round trip.
func FuzzReadSafetensors(f *testing.F) {
	var good bytes.Buffer
	if err := WriteSafetensors(&good, stTinyParams(), map[string]string{"kind": "gru"}); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:20])
	f.Add(stFile(`{"W":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, make([]byte, 16)))
	f.Add(stFile(`{"W":{"dtype":"F64","shape":[1,2],"data_offsets":[0,18446744073709551615]}}`, nil))
	f.Add(stFile(`{"__metadata__":null}`, nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, file []byte) {
		ps := stTinyParams()
		meta, err := ReadSafetensors(bytes.NewReader(file), ps)
		if err != nil {
			return
		}
		if !allFinite(ps[0].Value) || !allFinite(ps[1].Value) {
			t.Fatalf("accepted non-finite values %v %v", ps[0].Value.RawRowView(0), ps[1].Value.RawRowView(0))
		}
		var again bytes.Buffer
		if err := WriteSafetensors(&again, ps, meta); err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		back := stZeroLike(ps)
		if _, err := ReadSafetensors(&again, back); err != nil {
			t.Fatalf("reread: %v", err)
		}
		for i := range ps {
			if !mat.Equal(ps[i].Value, back[i].Value) {
				t.Fatalf("%s: got %v after a round trip want %v", ps[i].Name, back[i].Value.RawRowView(0), ps[i].Value.RawRowView(0))
			}
		}
	})
}
