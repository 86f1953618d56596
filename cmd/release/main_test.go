package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseDryRun runs the dry run for real: five go builds (about two minutes with
// a cold build cache on 2 cores, seconds with a warm one), each binary checked, and
// this machine's started with -version.
func TestReleaseDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the dry run builds five binaries (up to two minutes)")
	}
	if _, err := gitCommit(); err != nil {
		t.Skip(err)
	}
	var out bytes.Buffer
	if err := run("", "v0.0.0-test", true, &out); err != nil {
		t.Fatalf("dry run: %v\n%s", err, out.String())
	}
	t.Log("\n" + out.String())
	for _, tg := range targets {
		line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(tg.String()) + ` +` +
			regexp.QuoteMeta(tg.archive("v0.0.0-test")) + ` +\d+\.\d MiB  [0-9a-f]{64}$`)
		if !line.Match(out.Bytes()) {
			t.Errorf("no line for %s with its file, size and sum in:\n%s", tg, out.String())
		}
	}
	for _, tg := range targets {
		if _, ok := runnerFor(tg); !ok {
			continue
		}
		file := regexp.QuoteMeta(filepath.ToSlash(tg.path("v0.0.0-test")))
		if !regexp.MustCompile(`(?m)^`+file+` -version: unroll v0\.0\.0-test \(`).Match(out.Bytes()) ||
			!regexp.MustCompile(`(?m)^`+file+`( under \S+)?: served the home page`).Match(out.Bytes()) {
			t.Errorf("the dry run did not start %s's binary (-version, then a server):\n%s", tg, out.String())
		}
	}
}

// TestTargetPaths: each binary is named unroll (unroll.exe on Windows) in a folder named
// for its version and target.
func TestTargetPaths(t *testing.T) {
	want := []string{
		"unroll-v1.2.3-darwin-arm64/unroll",
		"unroll-v1.2.3-darwin-amd64/unroll",
		"unroll-v1.2.3-windows-amd64/unroll.exe",
		"unroll-v1.2.3-linux-amd64/unroll",
		"unroll-v1.2.3-linux-arm64/unroll",
	}
	if len(targets) != len(want) {
		t.Fatalf("%d targets, want %d", len(targets), len(want))
	}
	for i, tg := range targets {
		if got := filepath.ToSlash(tg.path("v1.2.3")); got != want[i] {
			t.Errorf("%s: got %s want %s", tg, got, want[i])
		}
	}
}

// TestCheckFormat: the test binary itself is an executable for this machine and for no
// other target.
func TestCheckFormat(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := target{runtime.GOOS, runtime.GOARCH}
	if err := checkFormat(self, host); err != nil {
		t.Errorf("the test binary for %s: %v", host, err)
	}
	for _, tg := range targets {
		if tg != host {
			if err := checkFormat(self, tg); err == nil {
				t.Errorf("the test binary for %s passes as one for %s", host, tg)
			}
		}
	}
}

// TestCheckSums: SHA256SUMS is checked as `sha256sum -c` would: a changed file, a
// missing file or a missing line is an error.
func TestCheckSums(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/unroll", "hello\n")
	// sha256sum of "hello\n"
	sums := "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a/unroll\n"
	write(sumsFile, sums)
	if err := checkSums(dir, 1); err != nil {
		t.Fatalf("a correct %s: %v", sumsFile, err)
	}
	if err := checkSums(dir, 2); err == nil {
		t.Error("a missing line passed")
	}
	write("a/unroll", "hellO\n")
	if err := checkSums(dir, 1); err == nil {
		t.Error("a changed file passed")
	}
	write(sumsFile, strings.Replace(sums, "a/unroll", "b/unroll", 1))
	if err := checkSums(dir, 1); err == nil {
		t.Error("a missing file passed")
	}
}

// TestArchive: a zip holds its target's binary, executable and byte for byte, and a
// binary changed after packing is caught.
func TestArchive(t *testing.T) {
	out := t.TempDir()
	tg := target{"darwin", "arm64"}
	bin := filepath.Join(out, tg.path("v1.2.3"))
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("a binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := pack(out, tg, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	if tg.archive("v1.2.3") != "unroll-v1.2.3-darwin-arm64.zip" {
		t.Errorf("archive name %s", tg.archive("v1.2.3"))
	}
	if err := checkArchive(out, tg, "v1.2.3"); err != nil {
		t.Errorf("a fresh archive: %v", err)
	}
	if err := os.WriteFile(bin, []byte("another binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkArchive(out, tg, "v1.2.3"); err == nil {
		t.Error("an archive that no longer holds the built binary passes")
	}
}
