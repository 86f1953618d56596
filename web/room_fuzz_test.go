package web

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeView: the instructor's view command is never a panic, whatever the bytes;
// one that is accepted keeps within its limits (maxViewKeys names of letters, digits,
// - and _, each value a bool, a number, null or text of at most maxViewText bytes).
func FuzzDecodeView(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"view","view":{"present":true,"spot":"gates"}}`))
	f.Add([]byte(`{"v":1,"type":"view","view":{}}`))
	f.Add([]byte(`{"v":1,"type":"step"}`))
	f.Add([]byte(`{"v":1,"type":"view","view":{"a":[1,2]}}`))
	f.Add([]byte(`{"type":"view"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		view, isView, err := decodeView(data)
		if !isView || err != nil {
			if view != nil {
				t.Fatalf("%q: a view with an error or from another command: %v", data, view)
			}
			return
		}
		if len(view) > maxViewKeys {
			t.Fatalf("%q: %d names", data, len(view))
		}
		for k, v := range view {
			if k == "" || len(k) > 32 || strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
				t.Fatalf("%q: name %q", data, k)
			}
			switch x := v.(type) {
			case bool, float64, nil:
			case string:
				if len(x) > maxViewText || !utf8.ValidString(x) {
					t.Fatalf("%q: value %q", data, x)
				}
			default:
				t.Fatalf("%q: value %T", data, v)
			}
		}
	})
}
