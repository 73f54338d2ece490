// The live Java oracle (Oracle.java): what differs in the rocketmq-client 5.x jars. Our own code.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.client.impl.factory.MQClientInstance;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.QueueData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

final class Compat {
    private Compat() {
    }

    /** A TopicRouteData from the vectors' route object, lists in the given order. */
    @SuppressWarnings("unchecked")
    static Object route(Map<String, Object> json) {
        TopicRouteData r = new TopicRouteData();
        r.setOrderTopicConf((String) json.get("order_topic_conf"));
        List<QueueData> qds = new ArrayList<>();
        for (Object o : (List<Object>) json.get("queue_datas")) {
            Map<String, Object> q = (Map<String, Object>) o;
            QueueData qd = new QueueData();
            qd.setBrokerName((String) q.get("broker_name"));
            qd.setReadQueueNums(Oracle.i(q.get("read_queue_nums")));
            qd.setWriteQueueNums(Oracle.i(q.get("write_queue_nums")));
            qd.setPerm(Oracle.i(q.get("perm")));
            qd.setTopicSysFlag(Oracle.i(q.get("topic_sys_flag")));
            qds.add(qd);
        }
        r.setQueueDatas(qds);
        List<BrokerData> bds = new ArrayList<>();
        for (Object o : (List<Object>) json.get("broker_datas")) {
            Map<String, Object> b = (Map<String, Object>) o;
            HashMap<Long, String> addrs = null;
            if (b.get("broker_addrs") != null) {
                addrs = new HashMap<>();
                for (Map.Entry<String, Object> e : ((Map<String, Object>) b.get("broker_addrs")).entrySet()) {
                    addrs.put(Long.parseLong(e.getKey()), (String) e.getValue());
                }
            }
            bds.add(new BrokerData((String) b.get("cluster"), (String) b.get("broker_name"), addrs));
        }
        r.setBrokerDatas(bds);
        return r;
    }

    static TopicPublishInfo publishInfo(String topic, Object route) {
        return MQClientInstance.topicRouteData2TopicPublishInfo(topic, (TopicRouteData) route);
    }

    static Set<MessageQueue> subscribeInfo(String topic, Object route) {
        return MQClientInstance.topicRouteData2TopicSubscribeInfo(topic, (TopicRouteData) route);
    }

    static List<Object> queueDataNames(Object route) {
        List<Object> names = new ArrayList<>();
        for (QueueData qd : ((TopicRouteData) route).getQueueDatas()) {
            names.add(qd.getBrokerName());
        }
        return names;
    }

    /** As DefaultMQProducerImpl builds it: a fresh ClientConfig, a resolver and no detector. */
    static MQFaultStrategy faultStrategy() {
        return new MQFaultStrategy(new ClientConfig(), name -> null, null);
    }

    static Object latencyFaultTolerance() {
        return new LatencyFaultToleranceImpl(null, null);
    }

    static void updateLft(Object lft, String name, long latency, long duration) {
        ((LatencyFaultToleranceImpl) lft).updateFaultItem(name, latency, duration, true);
    }

    static void updateFaultItem(MQFaultStrategy s, String broker, long latency, boolean isolation) {
        s.updateFaultItem(broker, latency, isolation, true);
    }

    static MessageQueue select(MQFaultStrategy s, TopicPublishInfo tp, String lastBroker) {
        return s.selectOneMessageQueue(tp, lastBroker, false);
    }

    static void shutdown(Object lft) {
        ((LatencyFaultToleranceImpl) lft).shutdown();
    }

    static boolean isAvailable(Object lft, String name) {
        return ((LatencyFaultToleranceImpl) lft).isAvailable(name);
    }

    static void remove(Object lft, String name) {
        ((LatencyFaultToleranceImpl) lft).remove(name);
    }

    static String pickOneAtLeast(Object lft) {
        return ((LatencyFaultToleranceImpl) lft).pickOneAtLeast();
    }
}
