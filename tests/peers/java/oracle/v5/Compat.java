// The live Java oracle (Oracle.java): the fault-tolerance calls of the rocketmq-client 5.x jars. Our own code.
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingInfo;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingUtils;
import org.apache.rocketmq.remoting.rpc.ClientMetadata;

final class Compat {
    private Compat() {
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

    /** The vectors' topic_queue_mapping_by_broker (null stays null) as TopicQueueMappingInfo objects. */
    @SuppressWarnings("unchecked")
    static void setMapping(Object route, Map<String, Object> mapping) {
        TopicRouteData r = (TopicRouteData) route;
        if (mapping == null) {
            r.setTopicQueueMappingByBroker(null);
            return;
        }
        Map<String, TopicQueueMappingInfo> byBroker = new HashMap<>();
        for (Map.Entry<String, Object> e : mapping.entrySet()) {
            Map<String, Object> s = (Map<String, Object>) e.getValue();
            TopicQueueMappingInfo info = new TopicQueueMappingInfo((String) s.get("topic"),
                ((Number) s.get("total_queues")).intValue(), (String) s.get("bname"), ((Number) s.get("epoch")).longValue());
            info.setScope((String) s.get("scope"));
            info.setDirty((Boolean) s.get("dirty"));
            ConcurrentHashMap<Integer, Integer> ids = new ConcurrentHashMap<>();
            for (Map.Entry<String, Object> id : ((Map<String, Object>) s.get("curr_id_map")).entrySet()) {
                ids.put(Integer.parseInt(id.getKey()), ((Number) id.getValue()).intValue());
            }
            info.setCurrIdMap(ids);
            byBroker.put(e.getKey(), info);
        }
        r.setTopicQueueMappingByBroker(byBroker);
    }

    static Map<MessageQueue, String> endpoints(String topic, Object route) {
        return ClientMetadata.topicRouteData2EndpointsForStaticTopic(topic, (TopicRouteData) route);
    }

    static String mockBrokerName(String scope) {
        return TopicQueueMappingUtils.getMockBrokerName(scope);
    }
}
