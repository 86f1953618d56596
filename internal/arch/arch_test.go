// Package arch holds the test that keeps the import direction of DESIGN.md:
// models ← sim ← lessons ← web ← cmd, and models ← data ← lessons (the datasets
// depend on no simulation, lesson or web code), with net/http only in web and cmd, and
// figures (the export drawing) imported by web and importing none of web, lessons or check.
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
		{"unroll/lessons", []string{"net/http", "unroll/templates", "unroll/web"}},
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
