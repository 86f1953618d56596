package lessons

import (
	"strings"
	"testing"

	"unroll/zoo"
)

// TestRNNArchFrames: the page's frames carry the three hidden states and name the
// graph panels' architectures.
func TestRNNArchFrames(t *testing.T) {
	m, err := rnnLesson.Build(rnnLesson.Params.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	archs := m.Static().Meta["archs"].(map[string]string)
	for id, want := range map[string]string{"graph": "A", "graph-b": "B", "graph-c": "C"} {
		if archs[id] != want {
			t.Errorf("panel %s: got arch %q want %q", id, archs[id], want)
		}
	}
	T := m.Steps()
	for _, s := range []int{1, T} {
		f := m.At(s)
		got := map[string]int{}
		for _, a := range f.Arrays {
			got[a.Name] = len(a.Data)
		}
		if got["H"] != zoo.CharHidden || got["H_B"] != zoo.ArchBHidden || got["H_C"] != zoo.ArchCHidden {
			t.Errorf("step %d: got array sizes %v", s, got)
		}
		out := f.Meta["C_output"].(string)
		if (s == T) == strings.HasPrefix(out, "none") {
			t.Errorf("step %d of %d: C output %q", s, T, out)
		}
	}
}
