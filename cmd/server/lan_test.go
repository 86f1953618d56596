package main

import (
	"bufio"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"unroll/web"
)

// TestServerPrintsLANURLs: started with -addr :PORT (beyond loopback), the server
// logs every URL the students' devices can reach it on; on loopback it logs none.
func TestServerPrintsLANURLs(t *testing.T) {
	bin := buildServer(t)
	for _, addr := range []string{":0", "127.0.0.1:0"} {
		cmd := exec.Command(bin, "-addr", addr)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 64)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var port int
		var lan []string
		deadline := time.After(10 * time.Second)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if m := regexp.MustCompile(`msg="serving Unroll".* url=http://\S+:(\d+)/`).FindStringSubmatch(l); m != nil {
					port, _ = strconv.Atoi(m[1])
				}
				if m := regexp.MustCompile(`msg="reachable on the network" url=(\S+)`).FindStringSubmatch(l); m != nil {
					lan = append(lan, m[1])
				}
			case <-time.After(500 * time.Millisecond):
				if port != 0 {
					break read // the start's lines have all come
				}
			case <-deadline:
				t.Fatal("the server logged no url within 10 s")
			}
		}
		cmd.Process.Kill()
		_ = cmd.Wait()
		want := web.LANURLs(&net.TCPAddr{IP: net.IPv4zero, Port: port})
		if addr != ":0" {
			want = nil
		}
		if !slices.Equal(lan, want) {
			t.Errorf("-addr %s: logged %v, want %v", addr, lan, want)
		}
		t.Logf("-addr %s: %v", addr, lan)
	}
}
