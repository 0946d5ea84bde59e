@@HEADER@@

// Command sluice-client subscribes to or publishes on an endpoint of @@TITLE@@.
//
//	sluice-client subscribe <path> [--from earliest|latest|<ms since epoch>]
//	sluice-client publish <path> '<json>'
//
// SLUICE_TOKEN (required) is the app token; SLUICE_GATEWAY_URL overrides the gateway.
// subscribe prints one JSON line per message and runs until stopped; publish
// prints the acknowledgement as one JSON line.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"@@MODULE@@/sluice"
)

const usage = `usage:
  sluice-client subscribe <path> [--from earliest|latest|<ms since epoch>]
  sluice-client publish <path> '<json>'`

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
			return 2
		}
		err = subscribe(ctx, args[1], from)
	case len(args) == 3 && args[0] == "publish":
		err = publish(ctx, args[1], args[2])
	default:
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	if err != nil {
		if ctx.Err() != nil {
			return 130
		}
		fmt.Fprintf(os.Stderr, "sluice: %v\n", err)
		return 1
	}
	return 0
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
	if !json.Valid([]byte(text)) {
		return fmt.Errorf("the message is not JSON: %s", text)
	}
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
