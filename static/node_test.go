package static

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeModules runs the Node tests of the modules' pure parts (jstest/: the store,
// the read contract, the URL's state) with Node's own test runner, as .ci/run does, so
// that go test ./... covers them too. Without node on PATH it skips and says so.
func TestNodeModules(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH, so the tests in jstest/ did not run (Debian: apt-get install nodejs)")
	}
	files, err := filepath.Glob(filepath.Join("..", "jstest", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tests in jstest/ (%v)", err)
	}
	out, err := exec.Command(node, append([]string{"--test"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "# Subtest") { // the summary: tests, pass, fail…
			t.Log(line[2:])
		}
	}
}
