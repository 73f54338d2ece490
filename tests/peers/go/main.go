// keyed_sender sends one message per key with the real Go client's hash queue selector (sharding key) and writes
// where the broker stored each. Ours: built by tests/cluster/test_peers_go.py with `go build` against
// github.com/apache/rocketmq-client-go/v2 from the Go module proxy.
//
//	keyed_sender NAMESRV TOPIC GROUP OUT_FILE < keys
//
// Each input line is a key as hex UTF-8 bytes; each line of OUT_FILE is "BROKER QUEUE_ID QUEUE_OFFSET" of that
// key's send, or "ERROR <text>".
package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: keyed_sender NAMESRV TOPIC GROUP OUT_FILE < keys")
		os.Exit(2)
	}
	rlog.SetLogLevel("error")
	p, err := rocketmq.NewProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver(strings.Split(os.Args[1], ";"))),
		producer.WithGroupName(os.Args[3]),
		producer.WithQueueSelector(producer.NewHashQueueSelector()),
		producer.WithSendMsgTimeout(10*time.Second),
		producer.WithRetry(0),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "new producer:", err)
		os.Exit(1)
	}
	if err := p.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start:", err)
		os.Exit(1)
	}
	defer p.Shutdown()
	var out strings.Builder
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		key, err := hex.DecodeString(in.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad key line:", err)
			os.Exit(2)
		}
		msg := primitive.NewMessage(os.Args[2], append([]byte("go:"), key...))
		msg.WithShardingKey(string(key))
		res, err := p.SendSync(context.Background(), msg)
		if err != nil {
			fmt.Fprintf(&out, "ERROR %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Fprintf(&out, "%s %d %d\n", res.MessageQueue.BrokerName, res.MessageQueue.QueueId, res.QueueOffset)
	}
	if err := os.WriteFile(os.Args[4], []byte(out.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}
