package zoo

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"unroll/models"
)

// TestBundledListsEveryCheckpoint: the registry and zoo/checkpoints agree: every
// entry has a distinct name, every file it lists is bundled, and every bundled
// safetensors file belongs to exactly one entry.
func TestBundledListsEveryCheckpoint(t *testing.T) {
	owner := map[string]string{}
	names := map[string]bool{}
	for _, e := range Bundled {
		if names[e.Name] || e.Name == "" || e.Train == nil || e.Load == nil || len(e.Files) == 0 {
			t.Errorf("entry %q: a duplicate or empty name, or no Train, Load or Files", e.Name)
		}
		names[e.Name] = true
		for _, f := range e.Files {
			if o, ok := owner[f]; ok {
				t.Errorf("%s is listed by both %s and %s", f, o, e.Name)
			}
			owner[f] = e.Name
		}
	}
	bundledFiles, err := fs.Glob(checkpointFS, "checkpoints/*.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range bundledFiles {
		f := strings.TrimPrefix(p, "checkpoints/")
		if _, ok := owner[f]; !ok {
			t.Errorf("%s is bundled but no entry of Bundled writes it", f)
		}
		delete(owner, f)
	}
	for f, e := range owner {
		t.Errorf("entry %s lists %s, which is not bundled", e, f)
	}
	if got := Names(); !slices.Equal(got, slices.Collect(func(yield func(string) bool) {
		for _, e := range Bundled {
			if !yield(e.Name) {
				return
			}
		}
	})) {
		t.Errorf("Names: got %v", got)
	}
	if _, ok := Find("nonesuch"); ok {
		t.Errorf("Find found an entry that does not exist")
	}
}

// TestLoad: every bundled checkpoint parses, and its derived caches compute.
func TestLoad(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
}

func tinyParams(v float64) models.Params {
	return models.Params{{Name: "w", Value: mat.NewDense(2, 2, []float64{v, 2, 3, 4}), Grad: mat.NewDense(2, 2, nil)}}
}

// TestSaveCheckpoint: saveCheckpoint writes what models.WriteSafetensors encodes,
// readable by everyone, replaces an existing file, leaves no temporary file behind,
// and refuses a model it cannot encode without touching the file.
func TestSaveCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	for i, v := range []float64{1, 5} {
		if err := saveCheckpoint(path, tinyParams(v), map[string]string{"step": string(rune('1' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := models.WriteSafetensors(&want, tinyParams(5), map[string]string{"step": "2"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, want.Bytes()) {
		t.Errorf("the file is not the second model's encoding")
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o444 != 0o444 && os.PathSeparator == '/' {
		t.Errorf("mode %v: want everyone to read it", st.Mode())
	}
	bad := tinyParams(5)
	bad[0].Value.Set(0, 0, 1/zero)
	if err := saveCheckpoint(path, bad, nil); err == nil || !strings.HasPrefix(err.Error(), "zoo: saving checkpoint") {
		t.Errorf("a non-finite weight: got %v want an error", err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, raw) {
		t.Errorf("a refused save changed the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only the checkpoint", len(entries))
	}
	if err := saveCheckpoint(filepath.Join(dir, "missing", "m.safetensors"), tinyParams(1), nil); err == nil {
		t.Errorf("a missing directory: got no error")
	}
}

var zero float64

// TestSaveCheckpointDirectoryInTheWay: a directory where the file should go makes
// the save fail and leaves the directory and its content as they were, with no
// temporary file left beside it.
func TestSaveCheckpointDirectoryInTheWay(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "m.safetensors")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := saveCheckpoint(target, tinyParams(1), nil); err == nil {
		t.Fatal("save over a non-empty directory: got no error")
	}
	if _, err := os.Stat(filepath.Join(target, "keep")); err != nil {
		t.Errorf("the directory in the way: %v, want it untouched", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want only the one in the way", len(entries))
	}
}
