// Java lite pull members of a consumer group, for the mixed-group tests: the real DefaultLitePullConsumer of the
// rocketmq-client jar that `make clients` resolved, compiled with GroupMember.java by tests/cluster/test_lite_pull.py.
//
//   java -cp <dir>:<lib>/* LitePullMember NAMESRV GROUP TOPIC DIR STRATEGY NAME [NAME ...]
//
// The arguments and files are GroupMember's: one consumer per NAME (its instance name), subscribing TOPIC,
// clustering, from the first offset, auto-committing (Java's default), with the allocation strategy STRATEGY. A
// thread per member polls and appends a line per message to DIR/NAME.consumed ("BODY_HEX WALL_MS"); every 200 ms
// DIR/NAME.owned gets its client id and the queues assignment() gives; DIR/NAME.stop shuts that member down.
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

public final class LitePullMember {
    public static void main(String[] args) throws Exception {
        String namesrv = args[0], group = args[1], topic = args[2];
        Path dir = Paths.get(args[3]);
        String strategy = args[4];
        List<DefaultLitePullConsumer> consumers = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Thread> pollers = new ArrayList<>();
        for (int i = 5; i < args.length; i++) {
            String name = args[i];
            DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
            c.setAllocateMessageQueueStrategy(GroupMember.strategy(strategy, name, topic));
            c.setNamesrvAddr(namesrv);
            c.setInstanceName(name);
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            c.subscribe(topic, "*");
            c.start();
            OutputStream consumed = new FileOutputStream(dir.resolve(name + ".consumed").toFile(), true);
            Thread poller = new Thread(() -> {
                while (c.isRunning()) {
                    List<MessageExt> msgs;
                    try {
                        msgs = c.poll(200);
                    } catch (IllegalStateException stopped) {  // shut down between the check and the poll
                        return;
                    }
                    if (!msgs.isEmpty() && !GroupMember.record(consumed, msgs)) {
                        throw new IllegalStateException("cannot write " + name + ".consumed");
                    }
                }
            }, "poll-" + name);
            poller.start();
            consumers.add(c);
            names.add(name);
            pollers.add(poller);
        }
        boolean[] stopped = new boolean[consumers.size()];
        int running = consumers.size();
        while (running > 0) {
            for (int i = 0; i < consumers.size(); i++) {
                if (stopped[i]) {
                    continue;
                }
                DefaultLitePullConsumer c = consumers.get(i);
                String name = names.get(i);
                if (Files.exists(dir.resolve(name + ".stop"))) {
                    c.shutdown();
                    pollers.get(i).join(10_000);
                    stopped[i] = true;
                    running--;
                    Files.write(dir.resolve(name + ".owned"), new byte[0]);
                    continue;
                }
                GroupMember.writeOwned(dir, name, topic, c.buildMQClientId(), c.assignment());
            }
            Thread.sleep(200);
        }
        System.exit(0);
    }
}
