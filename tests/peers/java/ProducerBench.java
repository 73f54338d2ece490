// The Java producer's side of `make bench-clients`: DefaultMQProducer (the real jar `make clients` resolved from
// Maven Central) sends COUNT messages in one shape once it is warm, and writes one JSON line to OUT: msgs, seconds,
// msgs/s, p50/p99 latency and the process's CPU time over the measured part (every thread: JIT and GC included), so
// CPU per message compares with a Python client measured the same way; beside them the warm-up (its seconds, its
// windows' msgs/s, whether it became steady) and the JIT's compilation time and the GC's time inside the measured
// part. Ours.
//
// Warm: windows of about one second each (the first WARMUP messages) until three in a row are within 5 % of their
// mean msgs/s, for at most MAX_WARMUP_S seconds (a JVM's JIT levels off after several seconds; a fixed warm-up of a
// few thousand messages measures its ramp).
//
//   java -cp <dir>:<lib>/* ProducerBench NAMESRV TOPIC SHAPE THREADS IN_FLIGHT WARMUP COUNT BODY_BYTES KEYED OUT [MAX_WARMUP_S]
//
// SHAPE: sync (THREADS threads, one send each at a time), async (IN_FLIGHT sends unanswered at most, on one
// thread), batch (sync batches of IN_FLIGHT messages on one thread). KEYED: true sends through
// SelectMessageQueueByHash with one of 1000 keys, false through the round-robin.
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash;
import org.apache.rocketmq.common.message.Message;

public final class ProducerBench {
    private final DefaultMQProducer producer;
    private final String topic, shape;
    private final int threads, inFlight;
    private final boolean keyed;
    private final byte[] body;
    private final SelectMessageQueueByHash selector = new SelectMessageQueueByHash();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ProducerBench(DefaultMQProducer producer, String[] a) {
        this.producer = producer;
        this.topic = a[1];
        this.shape = a[2];
        this.threads = Integer.parseInt(a[3]);
        this.inFlight = Integer.parseInt(a[4]);
        this.keyed = Boolean.parseBoolean(a[8]);
        this.body = body(Integer.parseInt(a[7]));
    }

    /** The same bytes as the Python side's body: printable, compressible as text is (Java compresses > 4 KiB). */
    static byte[] body(int size) {
        byte[] b = new byte[size];
        long x = 12345;
        for (int i = 0; i < size; i++) {
            x = (x * 1103515245L + 12345L) & 0x7fffffffL;
            b[i] = (byte) ('a' + (int) ((x >> 16) % 26));
        }
        return b;
    }

    private Message message() {
        return new Message(topic, body);
    }

    private void check(SendResult r) {
        if (r.getSendStatus() != SendStatus.SEND_OK) {
            failure.compareAndSet(null, new IllegalStateException("send status " + r.getSendStatus()));
        }
    }

    /** Sends n messages; returns each send's (or batch's) latency in nanoseconds. */
    private long[] run(int n) throws Exception {
        switch (shape) {
            case "sync": return sync(n);
            case "async": return async(n);
            case "batch": return batch(n);
            default: throw new IllegalArgumentException("shape " + shape);
        }
    }

    private long[] sync(int n) throws Exception {
        long[] lat = new long[n];
        AtomicInteger next = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    for (int i; (i = next.getAndIncrement()) < n; ) {
                        long t0 = System.nanoTime();
                        SendResult r = keyed ? producer.send(message(), selector, "k" + (i % 1000)) : producer.send(message());
                        lat[i] = System.nanoTime() - t0;
                        check(r);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        return lat;
    }

    private long[] async(int n) throws Exception {
        long[] lat = new long[n];
        Semaphore window = new Semaphore(inFlight);
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            window.acquire();
            final int k = i;
            final long t0 = System.nanoTime();
            SendCallback cb = new SendCallback() {
                @Override public void onSuccess(SendResult r) {
                    lat[k] = System.nanoTime() - t0;
                    check(r);
                    window.release();
                    done.countDown();
                }
                @Override public void onException(Throwable e) {
                    failure.compareAndSet(null, e);
                    window.release();
                    done.countDown();
                }
            };
            if (keyed) {
                producer.send(message(), selector, "k" + (i % 1000), cb);
            } else {
                producer.send(message(), cb);
            }
        }
        done.await();
        return lat;
    }

    private long[] batch(int n) throws Exception {
        long[] lat = new long[n / inFlight];
        for (int b = 0; b < lat.length; b++) {
            List<Message> msgs = new ArrayList<>(inFlight);
            for (int i = 0; i < inFlight; i++) {
                msgs.add(message());
            }
            long t0 = System.nanoTime();
            check(producer.send(msgs));
            lat[b] = System.nanoTime() - t0;
        }
        return lat;
    }

    /** Milliseconds the JVM's collectors have spent, all of them together. */
    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            t += Math.max(0, gc.getCollectionTime());
        }
        return t;
    }

    /** Runs one-second windows until three in a row agree within 5 % (or maxSeconds pass): "seconds,steady,[rates]". */
    private String warmUp(int first, double maxSeconds) throws Exception {
        List<Double> rates = new ArrayList<>();
        long begin = System.nanoTime();
        int n = first;
        boolean steady = false;
        while (true) {
            long t0 = System.nanoTime();
            long[] lat = run(n);
            double s = (System.nanoTime() - t0) / 1e9;
            int msgs = shape.equals("batch") ? lat.length * inFlight : n;
            double rate = msgs / s;
            rates.add(rate);
            int k = rates.size();
            if (k >= 3) {
                double lo = Math.min(rates.get(k - 1), Math.min(rates.get(k - 2), rates.get(k - 3)));
                double hi = Math.max(rates.get(k - 1), Math.max(rates.get(k - 2), rates.get(k - 3)));
                double mean = (rates.get(k - 1) + rates.get(k - 2) + rates.get(k - 3)) / 3;
                if (hi - lo <= 0.05 * mean) {
                    steady = true;
                    break;
                }
            }
            if ((System.nanoTime() - begin) / 1e9 >= maxSeconds) {
                break;
            }
            n = Math.max(shape.equals("batch") ? inFlight : 50, (int) rate); // about one second's worth
        }
        StringBuilder r = new StringBuilder();
        for (double x : rates) {
            r.append(r.length() == 0 ? "" : ",").append(String.format(java.util.Locale.ROOT, "%.1f", x));
        }
        return String.format(java.util.Locale.ROOT, "\"warmup_s\":%.3f,\"steady\":%b,\"warmup_rates\":[%s]",
            (System.nanoTime() - begin) / 1e9, steady, r);
    }

    public static void main(String[] a) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("bench-java");
        producer.setNamesrvAddr(a[0]);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        String json;
        try {
            ProducerBench bench = new ProducerBench(producer, a);
            String warm = bench.warmUp(Integer.parseInt(a[5]), a.length > 10 ? Double.parseDouble(a[10]) : 30.0);
            com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            int count = Integer.parseInt(a[6]);
            long jit0 = jit.getTotalCompilationTime(), gc0 = gcMillis();
            long cpu0 = os.getProcessCpuTime(), t0 = System.nanoTime();
            long[] lat = bench.run(count);
            long wall = System.nanoTime() - t0, cpu = os.getProcessCpuTime() - cpu0;
            long jitMs = jit.getTotalCompilationTime() - jit0, gcMs = gcMillis() - gc0;
            if (bench.failure.get() != null) {
                throw new IllegalStateException("a send failed", bench.failure.get());
            }
            Arrays.sort(lat);
            int msgs = bench.shape.equals("batch") ? lat.length * bench.inFlight : count;
            json = String.format(java.util.Locale.ROOT,
                "{\"msgs\":%d,\"seconds\":%.6f,\"msgs_per_s\":%.1f,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"cpu_s\":%.6f,"
                    + "\"jit_ms\":%d,\"gc_ms\":%d,%s}",
                msgs, wall / 1e9, msgs / (wall / 1e9), lat[(int) (lat.length * 0.50)] / 1e6,
                lat[Math.min(lat.length - 1, (int) (lat.length * 0.99))] / 1e6, cpu / 1e9, jitMs, gcMs, warm);
        } finally {
            producer.shutdown();
        }
        Files.write(Paths.get(a[9]), (json + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
