// What Apache's admin tools see of a consumer group, for tests/cluster/test_admin_view.py: the real
// DefaultMQAdminExt of the rocketmq-tools jar that `make clients` resolved (the classes behind `mqadmin
// consumerConnection`, `consumerStatus` and `consumerProgress`). Our own code.
//
//   java -cp <dir>:<lib>/* AdminView NAMESRV GROUP [TOPIC MSG_ID]
//
// Prints one JSON object: "connections" (clientId, language, version of each member the brokers list), "running"
// (per member: the ConsumerRunningInfo its client answered through the broker, decoded by the tools' own fastjson
// classes: properties, subscribed topics, owned queues with their commit offsets, whether a stack dump came, and
// its first line), and "progress" (per queue: the broker's max offset and the group's committed offset). With TOPIC
// and MSG_ID, "direct" too: per member, what consumeMessageDirectly (mqadmin consumeMessage) got back when that
// member's listener consumed the message again.
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.body.Connection;
import org.apache.rocketmq.remoting.protocol.body.ConsumeMessageDirectlyResult;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.ProcessQueueInfo;
import org.apache.rocketmq.remoting.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

public final class AdminView {
    public static void main(String[] args) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(args[0]);
        admin.setInstanceName("admin-view-" + System.nanoTime());
        String group = args[1];
        admin.start();
        try {
            Map<String, Object> out = J.obj();
            ConsumerConnection cc = admin.examineConsumerConnectionInfo(group);
            List<Object> connections = new ArrayList<>();
            Map<String, Object> running = new TreeMap<>();
            for (Connection c : cc.getConnectionSet()) {
                connections.add(J.obj("clientId", c.getClientId(), "language", c.getLanguage().name(),
                    "version", c.getVersion()));
                ConsumerRunningInfo info = admin.getConsumerRunningInfo(group, c.getClientId(), true);
                Map<String, Object> props = new TreeMap<>();
                for (Map.Entry<Object, Object> e : info.getProperties().entrySet()) {
                    props.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
                }
                List<Object> topics = new ArrayList<>();
                for (SubscriptionData s : info.getSubscriptionSet()) {
                    topics.add(s.getTopic());
                }
                List<Object> queues = new ArrayList<>();
                for (Map.Entry<MessageQueue, ProcessQueueInfo> e : info.getMqTable().entrySet()) {
                    queues.add(J.arr(e.getKey().getTopic(), e.getKey().getBrokerName(), e.getKey().getQueueId(),
                        e.getValue().getCommitOffset(), e.getValue().isDroped()));
                }
                String jstack = info.getJstack();
                running.put(c.getClientId(), J.obj("properties", props, "topics", topics, "queues", queues,
                    "jstack_first_line", jstack == null ? null : jstack.split("\n", 2)[0]));
            }
            if (args.length >= 4) {
                Map<String, Object> direct = new TreeMap<>();
                for (Connection c : cc.getConnectionSet()) {
                    ConsumeMessageDirectlyResult r = admin.consumeMessageDirectly(group, c.getClientId(), args[2], args[3]);
                    direct.put(c.getClientId(), J.obj("consumeResult", String.valueOf(r.getConsumeResult()),
                        "order", r.isOrder(), "autoCommit", r.isAutoCommit(), "remark", r.getRemark()));
                }
                out.put("direct", direct);
            }
            out.put("connections", connections);
            out.put("running", running);
            ConsumeStats stats = admin.examineConsumeStats(group);
            List<Object> progress = new ArrayList<>();
            for (Map.Entry<MessageQueue, OffsetWrapper> e : new TreeMap<>(stats.getOffsetTable()).entrySet()) {
                progress.add(J.arr(e.getKey().getTopic(), e.getKey().getBrokerName(), e.getKey().getQueueId(),
                    e.getValue().getBrokerOffset(), e.getValue().getConsumerOffset()));
            }
            out.put("progress", progress);
            StringBuilder sb = new StringBuilder();
            J.write(sb, out);
            System.out.println(sb);
        } finally {
            admin.shutdown();
        }
    }
}
