// Package arch holds the test that keeps the import direction of DESIGN.md:
// models ← sim ← lessons ← web ← cmd, and models ← data ← lessons (the datasets
// depend on no simulation, lesson or web code), with net/http only in web and cmd, and
// figures (the export drawing) imported by web and importing none of web, lessons or check.
// The bundled models (zoo) sit between: models, data ← zoo ← lessons, cmd/train; zoo
// imports nothing of Unroll but models and data.
package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deps lists the packages pkg imports, directly or not (go list -deps).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	dir := filepath.Join("..", "..", strings.TrimPrefix(pkg, "unroll/"))
	if _, err := os.Stat(dir); err != nil {
		return nil // the package does not exist yet
	}
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestImportDirection(t *testing.T) {
	for _, tc := range []struct {
		pkg       string
		forbidden []string
	}{
		{"unroll/models", []string{"net/http", "unroll/check", "unroll/sim", "unroll/lessons", "unroll/templates", "unroll/web", "unroll/static"}},
		{"unroll/sim", []string{"net/http", "unroll/check", "unroll/lessons", "unroll/templates", "unroll/web", "unroll/static"}},
		{"unroll/data", []string{"net/http", "unroll/sim", "unroll/lessons", "unroll/web", "unroll/templates", "unroll/check", "unroll/static"}},
		{"unroll/check", []string{"net/http", "unroll/sim", "unroll/lessons", "unroll/templates", "unroll/web"}},
		{"unroll/lessons", []string{"net/http", "unroll/templates", "unroll/web"}}, // lessons may import zoo
		{"unroll/zoo", []string{"net/http", "unroll/sim", "unroll/lessons", "unroll/web", "unroll/templates", "unroll/figures", "unroll/check", "unroll/static"}},
		{"unroll/figures", []string{"net/http", "unroll/web", "unroll/templates", "unroll/lessons", "unroll/check"}},
	} {
		d := deps(t, tc.pkg)
		for _, f := range tc.forbidden {
			if slices.Contains(d, f) {
				t.Errorf("%s imports %s (directly or not); DESIGN.md forbids it", tc.pkg, f)
			}
		}
	}
}

// TestZooImports: zoo imports only the standard library, gonum, unroll/models and
// unroll/data (and what those import), and lessons may import zoo.
func TestZooImports(t *testing.T) {
	allowed := map[string]bool{"unroll/zoo": true}
	for _, p := range append(deps(t, "unroll/models"), deps(t, "unroll/data")...) {
		allowed[p] = true // models, data and what they import
	}
	for _, p := range deps(t, "unroll/zoo") {
		std := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && !strings.HasPrefix(p, "unroll")
		gonum := strings.HasPrefix(p, "gonum.org/")
		renameio := strings.HasPrefix(p, "github.com/google/renameio/") // zoo's atomic checkpoint writes
		if !std && !gonum && !renameio && !allowed[p] {
			t.Errorf("unroll/zoo imports %s (directly or not); it may import only std, gonum, unroll/models and unroll/data", p)
		}
	}
}
