/*
 * Vector generator (our own code): what differs between RocketMQ 4.9.8 and 5.3.3, 5.3.3 side.
 * Compiled only against rocketmq-all-5.3.3.
 */
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingInfo;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingUtils;
import org.apache.rocketmq.remoting.rpc.ClientMetadata;

final class V {
    static final String LABEL = "5.3.3";
    static final boolean V5 = true;
    static final Class<?>[] RESPONSE_CODE_CLASSES = {
        org.apache.rocketmq.remoting.protocol.ResponseCode.class,
        org.apache.rocketmq.remoting.protocol.RemotingSysResponseCode.class,
    };

    /** As DefaultMQProducerImpl builds it: a fresh ClientConfig, a resolver and no detector. */
    static MQFaultStrategy newFaultStrategy() {
        return new MQFaultStrategy(new ClientConfig(), name -> null, null);
    }

    static void updateFaultItem(MQFaultStrategy s, String broker, long latency, boolean isolation) {
        s.updateFaultItem(broker, latency, isolation, true);
    }

    static void setTolerance(MQFaultStrategy s, Object tolerance) throws Exception {
        java.lang.reflect.Field f = MQFaultStrategy.class.getDeclaredField("latencyFaultTolerance");
        f.setAccessible(true);
        f.set(s, tolerance);
    }

    static Class<?> toleranceInterface() {
        return org.apache.rocketmq.client.latency.LatencyFaultTolerance.class;
    }

    static void setMapping(TopicRouteData r, Map<String, Object> mapping) {
        r.setTopicQueueMappingByBroker(mapping == null ? null : Mappings.byBroker(mapping));
    }

    static void setBrokerExtras(BrokerData bd, Map<String, Object> spec) {
        if (spec.containsKey("zone_name")) {
            bd.setZoneName((String) spec.get("zone_name"));
        }
        if (spec.containsKey("enable_acting_master")) {
            bd.setEnableActingMaster((Boolean) spec.get("enable_acting_master"));
        }
    }

    static TopicRouteData deepClone(TopicRouteData r) {
        return r.deepCloneTopicRouteData();
    }

    static TopicRouteData copyConstructor(TopicRouteData r) {
        return new TopicRouteData(r);
    }

    static boolean changed(TopicRouteData now, TopicRouteData old) {
        return now.topicRouteDataChanged(old);
    }

    /** ClientMetadata.topicRouteData2EndpointsForStaticTopic, unmodified. */
    static Map<Object, String> endpoints(String topic, TopicRouteData r) {
        return new LinkedHashMap<Object, String>(ClientMetadata.topicRouteData2EndpointsForStaticTopic(topic, r));
    }

    static String mockBrokerName(String scope) {
        return TopicQueueMappingUtils.getMockBrokerName(scope);
    }

    static Map<String, Object> staticConstants() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("LOGICAL_QUEUE_MOCK_BROKER_PREFIX", MixAll.LOGICAL_QUEUE_MOCK_BROKER_PREFIX);
        m.put("LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST", MixAll.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST);
        m.put("METADATA_SCOPE_GLOBAL", MixAll.METADATA_SCOPE_GLOBAL);
        m.put("default_scope_of_new_TopicQueueMappingInfo", new TopicQueueMappingInfo().getScope());
        return m;
    }

    static Boolean[] mappingIndependence(TopicRouteData original, TopicRouteData clone) {
        Boolean[] res = new Boolean[] {null, null};
        if (clone.getTopicQueueMappingByBroker() == null) {
            return res;
        }
        int before = original.getTopicQueueMappingByBroker().size();
        clone.getTopicQueueMappingByBroker().put("__added_by_generator__", new TopicQueueMappingInfo());
        res[0] = original.getTopicQueueMappingByBroker().size() == before;
        if (!clone.getTopicQueueMappingByBroker().isEmpty()) {
            for (Map.Entry<String, TopicQueueMappingInfo> e : clone.getTopicQueueMappingByBroker().entrySet()) {
                if (e.getKey().equals("__added_by_generator__")) {
                    continue;
                }
                long epoch = original.getTopicQueueMappingByBroker().get(e.getKey()).getEpoch();
                e.getValue().setEpoch(epoch + 1);
                res[1] = original.getTopicQueueMappingByBroker().get(e.getKey()).getEpoch() == epoch;
                break;
            }
        }
        return res;
    }
}
