// Command gateway is Sluice's data plane: it serves streaming endpoints to
// WebSocket/SSE/HTTP clients from Kafka.
//
//	gateway [flags]              run (the default)
//	gateway checkconfig [flags]  validate the configuration and print it, then exit
//	gateway version              print the version
//	gateway healthcheck [flags]  exit 0 if this node's /healthz answers 200 (the
//	                             container image's HEALTHCHECK: it has no curl)
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/sluicehq/sluice/apps/gateway/internal/config"
	"github.com/sluicehq/sluice/apps/gateway/internal/node"
	"github.com/sluicehq/sluice/apps/gateway/internal/server"
)

// defaultGCPercent is the collector's target unless GOGC is set: the heap may
// grow to 1.5 times what is live after a collection, not Go's default 2 times.
// A node's live heap is mostly its connections and cached frames, so the
// headroom is most of its memory per connection; with the fetch path
// allocating little but the frames themselves, collecting more often costs
// little CPU (docs/benchmarks.md, "The gateway at the floor").
const defaultGCPercent = 50

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	command := "serve"
	if len(args) > 0 && (args[0] == "checkconfig" || args[0] == "version" || args[0] == "serve" || args[0] == "healthcheck") {
		command, args = args[0], args[1:]
	}
	if command == "version" {
		fmt.Println(server.Version)
		return 0
	}
	cfg, err := config.Load(args, os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gateway: invalid configuration:\n%v\n", err)
		return 2
	}
	if command == "healthcheck" {
		return healthcheck(cfg)
	}
	if command == "checkconfig" {
		fmt.Print("configuration OK\n", cfg.Describe())
		return 0
	}

	var handler slog.Handler = slog.NewTextHandler(os.Stderr, nil)
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(os.Stderr, nil)
	}
	log := slog.New(handler)

	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := node.Run(ctx, cfg, log); err != nil {
		log.Error("gateway stopped with an error", "err", err)
		return 1
	}
	log.Info("gateway stopped")
	return 0
}
