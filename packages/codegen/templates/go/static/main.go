@@HEADER@@

// Command sluice-client subscribes to or publishes on an endpoint of @@TITLE@@.
//
//	sluice-client [--gateway <url>[,<url>...]] subscribe <path> [--from earliest|latest|<ms since epoch>]
//	sluice-client [--gateway <url>[,<url>...]] publish <path> '<json>'
//
// SLUICE_TOKEN (required) is the app token; SLUICE_GATEWAY_URL (or --gateway)
// overrides the gateway: one URL or several nodes separated by commas.
// subscribe prints one JSON line per message and runs until stopped; publish
// prints the acknowledgement as one JSON line. Exit codes: 0 done, 1 error,
// 2 usage, 3 no token or token refused, 4 token expired, 5 token revoked,
// 6 no gateway reachable.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"@@MODULE@@/sluice"
)

const usage = `usage:
  sluice-client [--gateway <url>[,<url>...]] subscribe <path> [--from earliest|latest|<ms since epoch>]
  sluice-client [--gateway <url>[,<url>...]] publish <path> '<json>'`

// Exit codes shared by every generated client (codegen README, "Exit codes").
const (
	exitError        = 1
	exitUsage        = 2
	exitTokenRefused = 3
	exitTokenExpired = 4
	exitTokenRevoked = 5
	exitNoGateway    = 6
	exitInterrupted  = 130
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) >= 2 && args[0] == "--gateway" {
		os.Setenv("SLUICE_GATEWAY_URL", args[1])
		args = args[2:]
	}
	var err error
	switch {
	case len(args) >= 2 && args[0] == "subscribe":
		from := sluice.Latest()
		if len(args) == 4 && args[2] == "--from" {
			if from, err = parseFrom(args[3]); err != nil {
				break
			}
		} else if len(args) != 2 {
			fmt.Fprintln(os.Stderr, usage)
			return exitUsage
		}
		err = subscribe(ctx, args[1], from)
	case len(args) == 3 && args[0] == "publish":
		if !json.Valid([]byte(args[2])) {
			fmt.Fprintf(os.Stderr, "sluice: the message is not JSON: %s\n", args[2])
			return exitUsage
		}
		err = publish(ctx, args[1], args[2])
	default:
		fmt.Fprintln(os.Stderr, usage)
		return exitUsage
	}
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		code, line := ending(err)
		fmt.Fprintln(os.Stderr, line)
		return code
	}
	return 0
}

// ending returns the exit code and the one line on stderr that end the program after err.
func ending(err error) (int, string) {
	var e *sluice.Error
	if !errors.As(err, &e) {
		return exitError, fmt.Sprintf("sluice: %v", err)
	}
	switch {
	case e.Code == sluice.CodeRevoked:
		return exitTokenRevoked, "sluice: token revoked (4009): mint a new token in the portal"
	case e.Code == sluice.CodeTokenExpired:
		return exitTokenExpired, "sluice: token expired (4008): mint a new token in the portal"
	case e.Code == sluice.CodeUnauthenticated && os.Getenv("SLUICE_TOKEN") == "":
		return exitTokenRefused, "sluice: no token: set SLUICE_TOKEN to an app token from the portal"
	case e.Code == sluice.CodeUnauthenticated:
		return exitTokenRefused, "sluice: token refused (4001): " + e.Message
	case e.Code == sluice.CodeUnreachable:
		return exitNoGateway, "sluice: " + e.Message
	}
	return exitError, fmt.Sprintf("sluice: %v", err)
}

func parseFrom(v string) (sluice.From, error) {
	switch v {
	case "earliest":
		return sluice.Earliest(), nil
	case "latest":
		return sluice.Latest(), nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 {
		return sluice.From{}, fmt.Errorf("--from must be earliest, latest or a time in ms since the epoch, not %q", v)
	}
	return sluice.FromTime(ms), nil
}

// findChannel returns the channel serving a concrete path (an exact endpoint
// first, then its topic's parameterised one) and the path's key.
func findChannel(path string) (*sluice.Channel, string, error) {
	canonical, topic, key, err := sluice.ParsePath(path)
	if err != nil {
		return nil, "", err
	}
	for i, ch := range sluice.Channels {
		if ch.Key != "" {
			if c, _, _, _ := sluice.ParsePath(ch.Address); c == canonical {
				return &sluice.Channels[i], key, nil
			}
		}
	}
	for i, ch := range sluice.Channels {
		if ch.Key == "" && ch.Topic == topic {
			return &sluice.Channels[i], key, nil
		}
	}
	return nil, key, nil
}

func printLine(v any) {
	line, _ := json.Marshal(v)
	os.Stdout.Write(append(line, '\n'))
}

type outputLine struct {
	Endpoint  string          `json:"endpoint"`
	Partition int             `json:"partition"`
	Seq       int64           `json:"seq"`
	Epoch     string          `json:"epoch"`
	Key       string          `json:"key"`
	Data      json.RawMessage `json:"data"`
	Encoding  string          `json:"encoding,omitempty"`
	Ts        int64           `json:"ts"`
}

func subscribe(ctx context.Context, path string, from sluice.From) error {
	client, err := sluice.Connect(ctx, sluice.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	handler := func(m sluice.Message) {
		printLine(outputLine{m.Endpoint, m.Position.Partition, m.Position.Seq, m.Position.Epoch, m.Key, m.Data, m.Encoding, m.Ts})
	}
	opts := sluice.SubscribeOptions{From: from}
	channel, key, err := findChannel(path)
	if err != nil {
		return err
	}
	var sub *sluice.Subscription
	if channel != nil && channel.Subscribe != nil {
		sub, err = channel.Subscribe(ctx, client, key, handler, opts)
	} else {
		fmt.Fprintf(os.Stderr, "sluice: %s is not a subscribable endpoint of this API; trying anyway\n", path)
		sub, err = client.Subscribe(ctx, path, handler, opts)
	}
	if err != nil {
		return err
	}
	printLine(map[string]string{"subscribed": sub.Endpoint})
	select {
	case <-sub.Ended():
		return sub.Err()
	case <-client.Done():
		return client.Err()
	case <-ctx.Done():
		return nil
	}
}

func publish(ctx context.Context, path, text string) error {
	client, err := sluice.Connect(ctx, sluice.Options{})
	if err != nil {
		return err
	}
	defer client.Close()
	channel, key, err := findChannel(path)
	if err != nil {
		return err
	}
	var ack sluice.Ack
	if channel != nil && channel.Publish != nil {
		ack, err = channel.Publish(ctx, client, key, json.RawMessage(text))
	} else {
		fmt.Fprintf(os.Stderr, "sluice: %s is not a publishable endpoint of this API; trying anyway\n", path)
		ack, err = client.Publish(ctx, path, json.RawMessage(text))
	}
	if err != nil {
		return err
	}
	printLine(ack)
	return nil
}
