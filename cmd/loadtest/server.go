package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Starting and stopping the server the load runs against.
const (
	serverStartWait = 30 * time.Second // the server parses every checkpoint before it answers (~0.1 s idle; slower under load)
	serverStopWait  = 15 * time.Second // cmd/server's shutdownTimeout (10 s) and a margin, then it is killed
	keptLogLines    = 20               // the server's last log lines, shown when something went wrong
	clockTicks      = 100              // USER_HZ: /proc/PID/stat counts CPU time in 1/100 s on every Linux
)

// server is a server process the load generator runs against: one it started (cmd
// set) or one already running (only pid, if given, for the measurements).
type server struct {
	base string // http://127.0.0.1:PORT
	pid  int    // 0: unknown, no CPU or memory figures
	cmd  *exec.Cmd
	dir  string // the temporary folder of the binary

	logDone  chan struct{} // closed when the log reader has seen the end of stderr
	mu       sync.Mutex
	warnings int      // WARN and ERROR lines in its log
	lastLog  []string // its last keptLogLines lines
}

// startServer builds ./cmd/server into a temporary folder, starts it on a free port
// of 127.0.0.1 and waits until /healthz answers. Stop ends it.
func startServer(ctx context.Context) (*server, error) {
	dir, err := os.MkdirTemp("", "unroll-loadtest-")
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	bin := filepath.Join(dir, "server")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "unroll/cmd/server")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loadtest: go build unroll/cmd/server (run inside the unroll module): %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("loadtest: starting the server: %w", err)
	}
	s := &server{pid: cmd.Process.Pid, cmd: cmd, dir: dir, logDone: make(chan struct{})}
	urls := make(chan string, 1)
	go s.readLog(stderr, urls) // ends with stderr, when the process exits (Stop)
	select {
	case s.base = <-urls:
	case <-time.After(serverStartWait):
	case <-ctx.Done():
	}
	if s.base == "" {
		s.Stop()
		return nil, fmt.Errorf("loadtest: the server did not say where it listens within %v:\n%s", serverStartWait, s.log())
	}
	if err := waitHealthy(ctx, s.base, serverStartWait); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// urlLine finds the address in cmd/server's first log line ("serving Unroll ... url=http://...").
var urlLine = regexp.MustCompile(`url=(http://\S+?)/?(\s|$)`)

// readLog reads the server's log until it ends: the first url= goes to urls, WARN
// and ERROR lines are counted, the last lines kept.
func (s *server) readLog(r io.Reader, urls chan<- string) {
	defer close(s.logDone)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if m := urlLine.FindStringSubmatch(line); m != nil {
			select {
			case urls <- m[1]:
			default:
			}
		}
		s.mu.Lock()
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			s.warnings++
		}
		s.lastLog = append(s.lastLog, line)
		if len(s.lastLog) > keptLogLines {
			s.lastLog = s.lastLog[1:]
		}
		s.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// log is the server's last log lines.
func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lastLog, "\n")
}

// warningCount is how many WARN and ERROR lines the server has logged.
func (s *server) warningCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warnings
}

// Stop ends a server this program started: SIGTERM (a graceful shutdown, as Ctrl-C),
// then a kill after serverStopWait. It removes the binary. A server it did not start
// is left alone.
func (s *server) Stop() {
	if s.cmd == nil {
		return
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil { // no SIGTERM on Windows
		_ = s.cmd.Process.Kill()
	}
	exited := make(chan struct{})
	go func() { // ends when the process does: at once after the kill below at the latest
		_ = s.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(serverStopWait):
		_ = s.cmd.Process.Kill()
		<-exited
	}
	<-s.logDone
	os.RemoveAll(s.dir)
	s.cmd = nil
}

// waitHealthy polls base/healthz until it answers 200, for at most wait.
func waitHealthy(ctx context.Context, base string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("loadtest: %s/healthz did not answer 200 within %v (last: %v)", base, wait, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("loadtest: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// errNoProc says the figures need Linux's /proc.
var errNoProc = errors.New("unavailable: needs Linux's /proc and the server's process id")

// cpuTime is the CPU time (user + system) a process has used, from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, errNoProc
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, errNoProc
	}
	// The command name (field 2) is in parentheses and may hold spaces: count after it.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("loadtest: /proc/%d/stat has %d fields after the name", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("loadtest: /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// cpuWait is the time a process's threads have spent runnable but waiting for a
// processor (the second field of each /proc/PID/task/TID/schedstat, in ns): what the
// rest of the machine took from it. A thread that has exited is no longer counted, and
// Go's seldom do.
func cpuWait(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, errNoProc
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, errNoProc
	}
	var wait int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread has just exited
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return 0, fmt.Errorf("loadtest: %s is %q", t, b)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: %s: %q", t, f[1])
		}
		wait += n
	}
	return time.Duration(wait), nil
}

// machineCPU is the CPU time all of the machine's processors have been busy (not
// idle, not waiting for I/O) since boot, from /proc/stat: over a window, what the
// server and the load generator used plus everything else that ran meanwhile.
func machineCPU() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, errNoProc
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, fmt.Errorf("loadtest: /proc/stat starts %q", line)
	}
	var busy int64
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("loadtest: /proc/stat: %q", v)
		}
		if i != 3 && i != 4 && i < 8 { // idle, iowait; guest time is counted in user already
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / clockTicks, nil
}

// memory reads a field of /proc/PID/status in MiB: VmHWM (the peak resident set) or
// VmRSS (now).
func memory(pid int, field string) (float64, error) {
	if pid == 0 {
		return 0, errNoProc
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, errNoProc
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0, fmt.Errorf("loadtest: no %s in /proc/%d/status", field, pid)
	}
	kb, _ := strconv.Atoi(string(m[1]))
	return float64(kb) / 1024, nil
}
