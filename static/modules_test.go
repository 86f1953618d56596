package static

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"
)

// maxModuleLines is the longest a module of js/ may be (issue 23): one that grows
// past it is split where its parts separate.
const maxModuleLines = 300

// TestModuleLength: every module of js/ is at most maxModuleLines lines.
func TestModuleLength(t *testing.T) {
	n := 0
	err := fs.WalkDir(FS, "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		n++
		body, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		if lines := bytes.Count(body, []byte("\n")); lines > maxModuleLines {
			t.Errorf("static/%s has %d lines, more than %d: split it", p, lines, maxModuleLines)
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("found %d modules (%v)", n, err)
	}
}
