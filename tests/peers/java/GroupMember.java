// Java members of a consumer group, for the mixed-group tests: the real DefaultMQPushConsumer of the
// rocketmq-client jar that `make clients` resolved, compiled by tests/cluster/test_peers_java_group.py.
//
//   java -cp <dir>:<lib>/* GroupMember NAMESRV GROUP TOPIC DIR STRATEGY NAME [NAME ...]
//
// Starts one consumer per NAME (its instance name), clustering, consuming from the first offset, with the real
// allocation strategy STRATEGY: AVG, AVG_BY_CIRCLE, CONSISTENT_HASH (10 virtual nodes), MACHINE_ROOM_NEARBY-AVG
// (the test's resolver: a broker's room is its name after '-', a consumer's the part after '-' of its instance
// name), MACHINE_ROOM:IDC[,IDC...] (the consumer's rooms; brokers are named IDC@NAME) or CONFIG (each member's
// queues from the system property groupmember.config.NAME: "BROKER/QUEUE_ID" items separated by commas). Each appends a line per message it consumes to DIR/NAME.consumed (the body in hex, a space, the wall
// clock in ms), and every 200 ms rewrites DIR/NAME.owned with the queues it owns ("BROKER QUEUE_ID" lines) and its
// client id on the first line. A consumer whose file DIR/NAME.stop appears shuts down (the others keep running);
// the program ends when all have. With -Dgroupmember.orderly=true the members consume orderly
// (MessageListenerOrderly: each queue locked on its broker, one thread at a time).
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.TreeSet;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

public final class GroupMember {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final boolean ORDERLY = Boolean.getBoolean("groupmember.orderly");

    public static void main(String[] args) throws Exception {
        String namesrv = args[0], group = args[1], topic = args[2];
        Path dir = Paths.get(args[3]);
        String strategy = args[4];
        List<DefaultMQPushConsumer> consumers = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int i = 5; i < args.length; i++) {
            String name = args[i];
            DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
            c.setAllocateMessageQueueStrategy(strategy(strategy, name, topic));
            c.setNamesrvAddr(namesrv);
            c.setInstanceName(name);
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            c.subscribe(topic, "*");
            OutputStream consumed = new FileOutputStream(dir.resolve(name + ".consumed").toFile(), true);
            if (ORDERLY) {
                c.registerMessageListener((MessageListenerOrderly) (msgs, context) ->
                    record(consumed, msgs) ? ConsumeOrderlyStatus.SUCCESS : ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT);
            } else {
                c.registerMessageListener((MessageListenerConcurrently) (msgs, context) ->
                    record(consumed, msgs) ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS : ConsumeConcurrentlyStatus.RECONSUME_LATER);
            }
            c.start();
            consumers.add(c);
            names.add(name);
        }
        boolean[] stopped = new boolean[consumers.size()];
        int running = consumers.size();
        while (running > 0) {
            for (int i = 0; i < consumers.size(); i++) {
                if (stopped[i]) {
                    continue;
                }
                DefaultMQPushConsumer c = consumers.get(i);
                String name = names.get(i);
                if (Files.exists(dir.resolve(name + ".stop"))) {
                    c.shutdown();
                    stopped[i] = true;
                    running--;
                    Files.write(dir.resolve(name + ".owned"), new byte[0]);
                    continue;
                }
                writeOwned(dir, name, topic, c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId(),
                    c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet());
            }
            Thread.sleep(200);
        }
        // every member has shut down; the orderly service leaves a non-daemon thread behind, which would keep the
        // JVM running after main returns
        System.exit(0);
    }

    /** Rewrites DIR/NAME.owned: the client id, then the queues of TOPIC among `queues` ("BROKER QUEUE_ID"). */
    static void writeOwned(Path dir, String name, String topic, String clientId, Iterable<MessageQueue> queues)
            throws IOException {
        TreeSet<String> owned = new TreeSet<>();
        for (MessageQueue mq : queues) {
            if (mq.getTopic().equals(topic)) {
                owned.add(mq.getBrokerName() + " " + mq.getQueueId());
            }
        }
        StringBuilder text = new StringBuilder();
        text.append(clientId).append('\n');
        for (String q : owned) {
            text.append(q).append('\n');
        }
        Path tmp = dir.resolve(name + ".owned.tmp");
        Files.write(tmp, text.toString().getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, dir.resolve(name + ".owned"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Appends "BODY_HEX WALL_MS" lines for the messages; false when the file cannot be written. */
    static boolean record(OutputStream consumed, List<MessageExt> msgs) {
        StringBuilder lines = new StringBuilder();
        for (MessageExt m : msgs) {
            for (byte b : m.getBody()) {
                lines.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
            lines.append(' ').append(System.currentTimeMillis()).append('\n');
        }
        synchronized (consumed) {
            try {
                consumed.write(lines.toString().getBytes(StandardCharsets.US_ASCII));
                consumed.flush();
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }

    static AllocateMessageQueueStrategy strategy(String name, String member, String topic) {
        if (name.startsWith("MACHINE_ROOM:")) {
            AllocateMessageQueueByMachineRoom s = new AllocateMessageQueueByMachineRoom();
            s.setConsumeridcs(new HashSet<>(Arrays.asList(name.substring("MACHINE_ROOM:".length()).split(","))));
            return s;
        }
        if (name.equals("CONFIG")) {
            String configured = System.getProperty("groupmember.config." + member);
            if (configured == null) {
                throw new IllegalArgumentException("no groupmember.config." + member);
            }
            List<MessageQueue> queues = new ArrayList<>();
            for (String item : configured.split(",")) {
                int slash = item.lastIndexOf('/');
                queues.add(new MessageQueue(topic, item.substring(0, slash), Integer.parseInt(item.substring(slash + 1))));
            }
            AllocateMessageQueueByConfig s = new AllocateMessageQueueByConfig();
            s.setMessageQueueList(queues);
            return s;
        }
        switch (name) {
            case "AVG": return new AllocateMessageQueueAveragely();
            case "AVG_BY_CIRCLE": return new AllocateMessageQueueAveragelyByCircle();
            case "CONSISTENT_HASH": return new AllocateMessageQueueConsistentHash();
            case "MACHINE_ROOM_NEARBY-AVG":
                return new AllocateMachineRoomNearby(new AllocateMessageQueueAveragely(),
                    new AllocateMachineRoomNearby.MachineRoomResolver() {
                        @Override
                        public String brokerDeployIn(MessageQueue mq) {
                            return mq.getBrokerName().split("-")[1];
                        }

                        @Override
                        public String consumerDeployIn(String clientId) {
                            return clientId.split("@")[1].split("-")[1];
                        }
                    });
            default: throw new IllegalArgumentException("unknown strategy " + name);
        }
    }
}
