// The Java push consumer's side of `make bench-clients`: DefaultMQPushConsumer (the real jar `make clients`
// resolved from Maven Central) consumes a topic filled beforehand, from its first offset, through a listener that
// only counts; after WARMUP messages it measures the next COUNT: wall time and the process's CPU time (every thread:
// JIT and GC included), and the JIT's compilation time and the GC's time inside that part, written as one JSON line
// to OUT. Ours.
//
// Warm first: warm-up groups, one after another in this JVM, each read the topic's first WARMUP messages (a new
// group reads from the first offset), until three passes in a row are within 5 % of their mean msgs/s, for at most
// MAX_WARMUP_S seconds; then the measured group. A JVM's JIT levels off after several seconds, and one pass of a few
// thousand messages measures its ramp.
//
//   java -cp <dir>:<lib>/* ConsumerBench NAMESRV TOPIC GROUP BATCH WARMUP COUNT OUT [MAX_WARMUP_S [KIND]]
//
// KIND: push (the default; BATCH is consumeMessageBatchMaxSize, the messages per listener call) or lite (a
// DefaultLitePullConsumer polled on one thread, BATCH its pullBatchSize: the most messages per poll).
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

public final class ConsumerBench {
    static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            t += Math.max(0, gc.getCollectionTime());
        }
        return t;
    }

    static void mark(long[] marks, int at) {
        marks[at] = System.nanoTime();
        marks[at + 1] = OS.getProcessCpuTime();
        marks[at + 2] = JIT.getTotalCompilationTime();
        marks[at + 3] = gcMillis();
    }

    /** A lite pull group reads the topic on this thread: the marks at message `skip` and `skip + count`. */
    static long[] litePull(String namesrv, String topic, String group, int batch, long skip, long count)
            throws Exception {
        long[] marks = new long[8];
        DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPullBatchSize(batch);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            long seen = 0, deadline = System.nanoTime() + 300_000_000_000L;
            while (seen < skip + count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("polled " + seen + " of " + (skip + count) + " in 300 s");
                }
                List<MessageExt> msgs = consumer.poll(1000);
                long before = seen;
                seen += msgs.size();
                if (before < skip && seen >= skip) {
                    mark(marks, 0);
                }
                if (before < skip + count && seen >= skip + count) {
                    mark(marks, 4);
                }
            }
        } finally {
            consumer.shutdown();
        }
        return marks;
    }

    /** One group reads the topic: wall, CPU, JIT and GC at message `skip` and at message `skip + count`. */
    static long[] consume(String namesrv, String topic, String group, int batch, long skip, long count)
            throws Exception {
        if (LITE) {
            return litePull(namesrv, topic, group, batch, skip, count);
        }
        AtomicLong seen = new AtomicLong();
        long[] marks = new long[8];
        CountDownLatch started = new CountDownLatch(1), done = new CountDownLatch(1);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeMessageBatchMaxSize(batch);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            long before = seen.getAndAdd(msgs.size()), after = before + msgs.size();
            if (before < skip && after >= skip) {
                marks[0] = System.nanoTime();
                marks[1] = OS.getProcessCpuTime();
                marks[2] = JIT.getTotalCompilationTime();
                marks[3] = gcMillis();
                started.countDown();
            }
            if (before < skip + count && after >= skip + count) {
                // the window's start is another listener thread's, which may not have read its marks yet when a
                // short window (a quick run's 200 messages) is already over: the end waits for it, never before it
                try {
                    started.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                marks[4] = System.nanoTime();
                marks[5] = OS.getProcessCpuTime();
                marks[6] = JIT.getTotalCompilationTime();
                marks[7] = gcMillis();
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            if (!done.await(300, TimeUnit.SECONDS)) {
                throw new IllegalStateException("consumed " + seen.get() + " of " + (skip + count) + " in 300 s");
            }
            started.await();
        } finally {
            consumer.shutdown();
        }
        return marks;
    }

    static boolean LITE = false;

    public static void main(String[] a) throws Exception {
        LITE = a.length > 8 && a[8].equals("lite");
        if (a.length > 8 && !LITE && !a[8].equals("push")) {
            throw new IllegalArgumentException("KIND is push or lite, not " + a[8]);
        }
        int batch = Integer.parseInt(a[3]);
        long warmup = Long.parseLong(a[4]), count = Long.parseLong(a[5]);
        double maxWarm = a.length > 7 ? Double.parseDouble(a[7]) : 30.0;
        long skip = Math.max(1, Math.min(1000, warmup / 4)); // a pass's rate leaves out its start (the rebalance)
        List<Double> rates = new ArrayList<>();
        boolean steady = false;
        long begin = System.nanoTime();
        for (int pass = 0; ; pass++) {
            long[] m = consume(a[0], a[1], a[2] + "-warm-" + pass, batch, skip, warmup - skip);
            rates.add((warmup - skip) / ((m[4] - m[0]) / 1e9));
            int k = rates.size();
            if (k >= 3) {
                double x = rates.get(k - 1), y = rates.get(k - 2), z = rates.get(k - 3);
                if (Math.max(x, Math.max(y, z)) - Math.min(x, Math.min(y, z)) <= 0.05 * (x + y + z) / 3) {
                    steady = true;
                    break;
                }
            }
            if ((System.nanoTime() - begin) / 1e9 >= maxWarm) {
                break;
            }
        }
        double warmS = (System.nanoTime() - begin) / 1e9;
        long[] m = consume(a[0], a[1], a[2], batch, warmup, count);
        double seconds = (m[4] - m[0]) / 1e9;
        StringBuilder r = new StringBuilder();
        for (double x : rates) {
            r.append(r.length() == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.1f", x));
        }
        String json = String.format(Locale.ROOT,
            "{\"msgs\":%d,\"seconds\":%.6f,\"msgs_per_s\":%.1f,\"cpu_s\":%.6f,\"jit_ms\":%d,\"gc_ms\":%d,"
                + "\"warmup_s\":%.3f,\"steady\":%b,\"warmup_rates\":[%s]}",
            count, seconds, count / seconds, (m[5] - m[1]) / 1e9, m[6] - m[2], m[7] - m[3], warmS, steady, r);
        Files.write(Paths.get(a[6]), (json + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
