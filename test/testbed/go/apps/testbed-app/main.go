// testbed-app is the testbed's workload image: an HTTP server whose readiness the manifest controls, so that tests
// and the example see Deployments become Available (or never) for a real reason.
//
//	PORT          listen port (default 8080)
//	READY_AFTER   a Go duration or seconds: /healthz answers 503 until then, 200 after (default 0); "never": always 503
//	MESSAGE       returned by / (with the pod's hostname), so a test can tell which Service answered
//	EXIT_AFTER    a Go duration: exit 1 after it (a crash-looping container)
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

func duration(name string) (time.Duration, bool) {
	v := os.Getenv(name)
	if v == "" {
		return 0, true
	}
	if v == "never" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(n * float64(time.Second)), true
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		log.Fatalf("%s=%q: not a duration, seconds or \"never\"", name, v)
	}
	return d, true
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	host, _ := os.Hostname()
	var ready atomic.Bool
	if after, ok := duration("READY_AFTER"); ok {
		time.AfterFunc(after, func() { ready.Store(true); log.Printf("ready after %s", after) })
	} else {
		log.Printf("READY_AFTER=never: /healthz stays 503")
	}
	if v := os.Getenv("EXIT_AFTER"); v != "" {
		d, _ := duration("EXIT_AFTER")
		time.AfterFunc(d, func() { log.Printf("EXIT_AFTER=%s: exiting 1", v); os.Exit(1) })
	}
	mux := http.NewServeMux()
	health := func(w http.ResponseWriter, _ *http.Request) {
		if ready.Load() {
			fmt.Fprintln(w, "ok")
			return
		}
		http.Error(w, "not ready", http.StatusServiceUnavailable)
	}
	mux.HandleFunc("/healthz", health)
	mux.HandleFunc("/readyz", health)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "%s %s\n", os.Getenv("MESSAGE"), host)
	})
	srv := &http.Server{Addr: ":" + port, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	log.Printf("listening on :%s", port)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
