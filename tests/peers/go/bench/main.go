// The Go client's side of `make bench-clients` (benches/bench_clients.py): the real
// github.com/apache/rocketmq-client-go/v2 (pinned in ../go.mod, from the Go module proxy) in the shapes
// ProducerBench.java and ConsumerBench.java drive the Java client in, with the same arguments, and one JSON line
// of the same fields written to OUT: msgs, seconds, msgs/s, p50/p99 latency (producer) and the process's CPU
// time (getrusage RUSAGE_SELF, user + system, every thread) over the measured part. Ours.
//
//	bench producer NAMESRV TOPIC SHAPE THREADS IN_FLIGHT WARMUP COUNT BODY_BYTES KEYED OUT
//	bench consumer NAMESRV TOPIC GROUP BATCH WARMUP COUNT OUT
//
// SHAPE: sync (THREADS goroutines, one SendSync each at a time), async (SendAsync, IN_FLIGHT unanswered at
// most), batch (SendSync of IN_FLIGHT messages, one goroutine). KEYED: true sends through the Go client's
// hash queue selector (fnv32a of the sharding key, one of 1000 keys), false through its round-robin.
// BATCH: ConsumeMessageBatchMaxSize, the messages per listener call of a push consumer of a new group that reads
// TOPIC from its first offset. Retries are off (WithRetry(0)) and the client logs errors only.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

// cpuTime is the process's user + system time so far, every thread.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// body is the same bytes as the Python and Java sides' body: printable, compressible as text is (the Go client
// compresses bodies over 4 KiB too).
func body(size int) []byte {
	b := make([]byte, size)
	x := int64(12345)
	for i := range b {
		x = (x*1103515245 + 12345) & 0x7fffffff
		b[i] = byte('a' + (x>>16)%26)
	}
	return b
}

type producerBench struct {
	p        rocketmq.Producer
	topic    string
	shape    string
	threads  int
	inFlight int
	keyed    bool
	body     []byte
	failure  atomic.Pointer[error]
	ctx      context.Context
}

func (b *producerBench) fail(err error) {
	b.failure.CompareAndSwap(nil, &err)
}

func (b *producerBench) message(i int) *primitive.Message {
	msg := primitive.NewMessage(b.topic, b.body)
	if b.keyed {
		msg.WithShardingKey("k" + strconv.Itoa(i%1000))
	}
	return msg
}

func (b *producerBench) check(r *primitive.SendResult, err error) {
	if err != nil {
		b.fail(err)
	} else if r.Status != primitive.SendOK {
		b.fail(fmt.Errorf("send status %d", r.Status))
	}
}

// run sends n messages; it returns each send's (or batch's) latency.
func (b *producerBench) run(n int) []time.Duration {
	switch b.shape {
	case "sync":
		return b.sync(n)
	case "async":
		return b.async(n)
	case "batch":
		return b.batch(n)
	}
	panic("shape " + b.shape)
}

func (b *producerBench) sync(n int) []time.Duration {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for t := 0; t < b.threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				t0 := time.Now()
				r, err := b.p.SendSync(b.ctx, b.message(i))
				lat[i] = time.Since(t0)
				b.check(r, err)
			}
		}()
	}
	wg.Wait()
	return lat
}

func (b *producerBench) async(n int) []time.Duration {
	lat := make([]time.Duration, n)
	window := make(chan struct{}, b.inFlight)
	var done sync.WaitGroup
	done.Add(n)
	for i := 0; i < n; i++ {
		window <- struct{}{}
		k, t0 := i, time.Now()
		err := b.p.SendAsync(b.ctx, func(_ context.Context, r *primitive.SendResult, err error) {
			lat[k] = time.Since(t0)
			b.check(r, err)
			<-window
			done.Done()
		}, b.message(i))
		if err != nil {
			b.fail(err)
			<-window
			done.Done()
		}
	}
	done.Wait()
	return lat
}

func (b *producerBench) batch(n int) []time.Duration {
	lat := make([]time.Duration, n/b.inFlight)
	for k := range lat {
		msgs := make([]*primitive.Message, b.inFlight)
		for i := range msgs {
			msgs[i] = b.message(k*b.inFlight + i)
		}
		t0 := time.Now()
		r, err := b.p.SendSync(b.ctx, msgs...)
		lat[k] = time.Since(t0)
		b.check(r, err)
	}
	return lat
}

func runProducer(a []string) (string, error) {
	if len(a) != 10 {
		return "", errors.New("usage: bench producer NAMESRV TOPIC SHAPE THREADS IN_FLIGHT WARMUP COUNT BODY_BYTES KEYED OUT")
	}
	ints := make([]int, 0, 5)
	for _, s := range a[3:8] {
		v, err := strconv.Atoi(s)
		if err != nil {
			return "", err
		}
		ints = append(ints, v)
	}
	threads, inFlight, warmup, count, size := ints[0], ints[1], ints[2], ints[3], ints[4]
	keyed, err := strconv.ParseBool(a[8])
	if err != nil {
		return "", err
	}
	selector := producer.NewRoundRobinQueueSelector()
	if keyed {
		selector = producer.NewHashQueueSelector()
	}
	p, err := rocketmq.NewProducer(
		producer.WithNsResolver(primitive.NewPassthroughResolver(strings.Split(a[0], ";"))),
		producer.WithGroupName("bench-go"),
		producer.WithQueueSelector(selector),
		producer.WithSendMsgTimeout(10*time.Second),
		producer.WithRetry(0),
	)
	if err != nil {
		return "", fmt.Errorf("new producer: %w", err)
	}
	if err := p.Start(); err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	defer func() { _ = p.Shutdown() }()
	b := &producerBench{
		p: p, topic: a[1], shape: a[2], threads: threads, inFlight: inFlight, keyed: keyed, body: body(size),
		ctx: context.Background(),
	}
	b.run(warmup)
	cpu0, t0 := cpuTime(), time.Now()
	lat := b.run(count)
	wall, cpu := time.Since(t0), cpuTime()-cpu0
	if err := b.failure.Load(); err != nil {
		return "", fmt.Errorf("a send failed: %w", *err)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	msgs := count
	if b.shape == "batch" {
		msgs = len(lat) * inFlight
	}
	p99 := lat[min(len(lat)-1, int(float64(len(lat))*0.99))]
	return fmt.Sprintf(`{"msgs":%d,"seconds":%.6f,"msgs_per_s":%.1f,"p50_ms":%.4f,"p99_ms":%.4f,"cpu_s":%.6f}`,
		msgs, wall.Seconds(), float64(msgs)/wall.Seconds(), float64(lat[len(lat)/2])/1e6, float64(p99)/1e6,
		cpu.Seconds()), nil
}

func runConsumer(a []string) (string, error) {
	if len(a) != 7 {
		return "", errors.New("usage: bench consumer NAMESRV TOPIC GROUP BATCH WARMUP COUNT OUT")
	}
	batch, err := strconv.Atoi(a[3])
	if err != nil {
		return "", err
	}
	warmup, err := strconv.ParseInt(a[4], 10, 64)
	if err != nil {
		return "", err
	}
	count, err := strconv.ParseInt(a[5], 10, 64)
	if err != nil {
		return "", err
	}
	var (
		seen    atomic.Int64
		marks   [4]time.Duration // wall (since start) and CPU at the start and at the end of the measured part
		start   = time.Now()
		started = make(chan struct{})
		done    = make(chan struct{})
	)
	c, err := rocketmq.NewPushConsumer(
		consumer.WithNsResolver(primitive.NewPassthroughResolver(strings.Split(a[0], ";"))),
		consumer.WithGroupName(a[2]),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumeMessageBatchMaxSize(batch),
		consumer.WithRetry(0),
	)
	if err != nil {
		return "", fmt.Errorf("new push consumer: %w", err)
	}
	err = c.Subscribe(a[1], consumer.MessageSelector{}, func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		after := seen.Add(int64(len(msgs)))
		before := after - int64(len(msgs))
		if before < warmup && after >= warmup {
			marks[0], marks[1] = time.Since(start), cpuTime()
			close(started)
		}
		if before < warmup+count && after >= warmup+count {
			marks[2], marks[3] = time.Since(start), cpuTime()
			close(done)
		}
		return consumer.ConsumeSuccess, nil
	})
	if err != nil {
		return "", fmt.Errorf("subscribe: %w", err)
	}
	if err := c.Start(); err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	defer func() { _ = c.Shutdown() }()
	select {
	case <-done:
	case <-time.After(300 * time.Second):
		return "", fmt.Errorf("consumed %d of %d in 300 s", seen.Load(), warmup+count)
	}
	<-started
	wall, cpu := marks[2]-marks[0], marks[3]-marks[1]
	return fmt.Sprintf(`{"msgs":%d,"seconds":%.6f,"msgs_per_s":%.1f,"cpu_s":%.6f}`,
		count, wall.Seconds(), float64(count)/wall.Seconds(), cpu.Seconds()), nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench producer|consumer ARGS... OUT")
		os.Exit(2)
	}
	rlog.SetLogLevel("error")
	var (
		json string
		err  error
	)
	switch os.Args[1] {
	case "producer":
		json, err = runProducer(os.Args[2:])
	case "consumer":
		json, err = runConsumer(os.Args[2:])
	default:
		err = errors.New("usage: bench producer|consumer ARGS... OUT")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[len(os.Args)-1], []byte(json+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}
