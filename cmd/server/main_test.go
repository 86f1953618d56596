package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServerStartsAndStops builds the real binary, starts it on a free port, waits for
// /healthz, and stops it with SIGINT: it must be ready in about a second and exit 0.
func TestServerStartsAndStops(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not log its address within 10 s")
	}
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

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGINT: %v, want status 0", err)
		}
	case <-time.After(shutdownTimeout + 2*time.Second):
		t.Fatal("the server did not exit within its shutdown deadline")
	}
}

func TestBadAddr(t *testing.T) {
	if err := run("not-an-address", nil, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		t.Error("run with a bad -addr returned nil, want an error")
	}
}
