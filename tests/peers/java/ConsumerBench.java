// The Java push consumer's side of `make bench-clients`: DefaultMQPushConsumer (the real jar `make clients`
// resolved from Maven Central) consumes a topic filled beforehand, from its first offset, through a listener that
// only counts; after WARMUP messages it measures the next COUNT: wall time and the process's CPU time (every thread:
// JIT and GC included), written as one JSON line to OUT. Ours.
//
//   java -cp <dir>:<lib>/* ConsumerBench NAMESRV TOPIC GROUP BATCH WARMUP COUNT OUT
//
// BATCH: consumeMessageBatchMaxSize, the messages per listener call.
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

public final class ConsumerBench {
    public static void main(String[] a) throws Exception {
        int batch = Integer.parseInt(a[3]);
        long warmup = Long.parseLong(a[4]), count = Long.parseLong(a[5]);
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong seen = new AtomicLong();
        long[] marks = new long[4]; // wall and CPU at the start and at the end of the measured part
        CountDownLatch started = new CountDownLatch(1), done = new CountDownLatch(1);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(a[2]);
        consumer.setNamesrvAddr(a[0]);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setConsumeMessageBatchMaxSize(batch);
        consumer.subscribe(a[1], "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            long before = seen.getAndAdd(msgs.size()), after = before + msgs.size();
            if (before < warmup && after >= warmup) {
                marks[0] = System.nanoTime();
                marks[1] = os.getProcessCpuTime();
                started.countDown();
            }
            if (before < warmup + count && after >= warmup + count) {
                marks[2] = System.nanoTime();
                marks[3] = os.getProcessCpuTime();
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        String json;
        try {
            if (!done.await(300, TimeUnit.SECONDS)) {
                throw new IllegalStateException("consumed " + seen.get() + " of " + (warmup + count) + " in 300 s");
            }
            started.await();
            double seconds = (marks[2] - marks[0]) / 1e9;
            json = String.format(java.util.Locale.ROOT,
                "{\"msgs\":%d,\"seconds\":%.6f,\"msgs_per_s\":%.1f,\"cpu_s\":%.6f}",
                count, seconds, count / seconds, (marks[3] - marks[1]) / 1e9);
        } finally {
            consumer.shutdown();
        }
        Files.write(Paths.get(a[6]), (json + "\n").getBytes(StandardCharsets.UTF_8));
    }
}
