/*
 * Vector generator (our own code): what differs between RocketMQ 4.9.8 and 5.3.3, 4.9.8 side.
 * Compiled only against rocketmq-all-4.9.8.
 */
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;

final class V {
    static final String LABEL = "4.9.8";
    static final boolean V5 = false;
    static final Class<?>[] RESPONSE_CODE_CLASSES = {
        org.apache.rocketmq.common.protocol.ResponseCode.class,
        org.apache.rocketmq.remoting.protocol.RemotingSysResponseCode.class,
    };

    static MQFaultStrategy newFaultStrategy() {
        return new MQFaultStrategy();
    }

    static void updateFaultItem(MQFaultStrategy s, String broker, long latency, boolean isolation) {
        s.updateFaultItem(broker, latency, isolation);
    }

    /** Replaces the final field latencyFaultTolerance (test hook, reflection). */
    static void setTolerance(MQFaultStrategy s, Object tolerance) throws Exception {
        Field f = MQFaultStrategy.class.getDeclaredField("latencyFaultTolerance");
        f.setAccessible(true);
        f.set(s, tolerance);
    }

    static Class<?> toleranceInterface() {
        return org.apache.rocketmq.client.latency.LatencyFaultTolerance.class;
    }

    static void setMapping(TopicRouteData r, Map<String, Object> mapping) {
        // 4.9.8's TopicRouteData has no topicQueueMappingByBroker: a mapping is dropped.
    }

    static void setBrokerExtras(BrokerData bd, Map<String, Object> spec) {
        // 4.9.8's BrokerData has no zoneName / enableActingMaster.
    }

    static TopicRouteData deepClone(TopicRouteData r) {
        throw new UnsupportedOperationException();
    }

    static TopicRouteData copyConstructor(TopicRouteData r) {
        throw new UnsupportedOperationException();
    }

    static boolean changed(TopicRouteData now, TopicRouteData old) {
        throw new UnsupportedOperationException();
    }

    static Map<Object, String> endpoints(String topic, TopicRouteData r) {
        return null;
    }

    static String mockBrokerName(String scope) {
        throw new UnsupportedOperationException();
    }

    static Map<String, Object> staticConstants() {
        return null;
    }

    /** Mutates the clone's mapping map / first info; null when not applicable. */
    static Boolean[] mappingIndependence(TopicRouteData original, TopicRouteData clone) {
        return new Boolean[] {null, null};
    }
}
