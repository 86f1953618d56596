package main

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// buildServer builds the real binary with go build's extra arguments args into a
// temporary folder and returns its path.
func buildServer(t *testing.T, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "unroll")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := append(append([]string{"build", "-o", bin}, args...), ".")
	if out, err := exec.Command("go", build...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer starts bin on a free loopback port and returns the process, the
// server's URL (ending in /) and its first log line. The process is killed at the
// end of the test if it is still running.
func startServer(t *testing.T, bin string) (cmd *exec.Cmd, url, first string) {
	t.Helper()
	cmd = exec.Command(bin, "-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // only the first line is read; the rest drains here
			}
		}
	}()
	select {
	case first = <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("the server logged nothing within 10 s")
	}
	m := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("the first log line has no url=: %s", first)
	}
	return cmd, m[1], first
}

// TestServerStartsAndStops builds the real binary, starts it on a free port, waits for
// /healthz, and stops it with Ctrl-C (os.Interrupt): it must be ready in about a second
// and exit 0.
func TestServerStartsAndStops(t *testing.T) {
	bin := buildServer(t)
	start := time.Now()
	cmd, url, _ := startServer(t, bin)
	resp, err := http.Get(url + "healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("GET /healthz = %d %q", resp.StatusCode, body)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("ready after %v, want about a second", took)
	}

	// A client that never finishes its headers (slow loris) is cut off at readHeaderTimeout.
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := time.Now()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(readHeaderTimeout + 5*time.Second))
	_, _ = io.ReadAll(conn) // until the server closes it
	if took := time.Since(sent); took < readHeaderTimeout-time.Second || took > readHeaderTimeout+3*time.Second {
		t.Errorf("half-sent headers: the server closed the connection after %v, want about %v", took.Round(time.Millisecond), readHeaderTimeout)
	}

	if runtime.GOOS == "windows" {
		// os.Process.Signal cannot send Ctrl-C on Windows (it needs
		// GenerateConsoleCtrlEvent and a new process group); the Go runtime turns a
		// console's Ctrl-C into os.Interrupt, which run handles as on every system.
		t.Skip("sending Ctrl-C to another process is not possible with os.Process on Windows")
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after Ctrl-C: %v, want status 0", err)
		}
	case <-time.After(shutdownTimeout + 2*time.Second):
		t.Fatal("the server did not exit within its shutdown deadline")
	}
}

// TestVersionStamped builds the binary as cmd/release does, with the version and commit
// stamped by -ldflags -X, and finds them in -version, the first log line and
// GET /api/v1/version.
func TestVersionStamped(t *testing.T) {
	const v, c = "v1.2.3-test", "abc1234-dirty"
	bin := buildServer(t, "-ldflags", "-X main.version="+v+" -X main.commit="+c)

	out, err := exec.Command(bin, "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("-version: %v\n%s", err, out)
	}
	want := "unroll " + v + " (" + c + ") " + runtime.GOOS + "/" + runtime.GOARCH + " " + runtime.Version() + "\n"
	if string(out) != want {
		t.Errorf("-version printed %q, want %q", out, want)
	}

	_, url, first := startServer(t, bin)
	if !strings.Contains(first, `msg="serving Unroll" version=`+v+" commit="+c+" url=") {
		t.Errorf("the first log line does not name the version and commit: %s", first)
	}
	resp, err := http.Get(url + "api/v1/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("GET /api/v1/version: %d, not JSON: %v", resp.StatusCode, err)
	}
	for k, w := range map[string]string{"version": v, "commit": c, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH} {
		if got[k] != w {
			t.Errorf("GET /api/v1/version: %s is %q, want %q", k, got[k], w)
		}
	}
}

// TestVersionUnstamped: built without -ldflags, -version says "dev" and the git
// revision go build recorded (-buildvcs=true, whatever GOFLAGS says), with "-dirty"
// when the tree has changes.
func TestVersionUnstamped(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git revision to compare with: %v", err)
	}
	bin := buildServer(t, "-buildvcs=true")
	out, err := exec.Command(bin, "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("-version: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`^unroll dev \(` + string(head[:12]) + `(-dirty)?\) ` + runtime.GOOS + "/" + runtime.GOARCH + " " + regexp.QuoteMeta(runtime.Version()) + "\n$")
	if !re.Match(out) {
		t.Errorf("-version printed %q, want it to match %s", out, re)
	}
}

func TestBadAddr(t *testing.T) {
	if err := run("not-an-address", nil, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		t.Error("run with a bad -addr returned nil, want an error")
	}
}
