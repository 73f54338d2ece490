// The live Java oracle (Oracle.java): the fault-tolerance calls of the rocketmq-client 4.9 jars. Our own code.
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

final class Compat {
    private Compat() {
    }

    static MQFaultStrategy faultStrategy() {
        return new MQFaultStrategy();
    }

    static Object latencyFaultTolerance() {
        return new LatencyFaultToleranceImpl();
    }

    static void updateLft(Object lft, String name, long latency, long duration) {
        ((LatencyFaultToleranceImpl) lft).updateFaultItem(name, latency, duration);
    }

    static void updateFaultItem(MQFaultStrategy s, String broker, long latency, boolean isolation) {
        s.updateFaultItem(broker, latency, isolation);
    }

    static MessageQueue select(MQFaultStrategy s, TopicPublishInfo tp, String lastBroker) {
        return s.selectOneMessageQueue(tp, lastBroker);
    }

    static void shutdown(Object lft) {
    }

    /** 4.9's TopicRouteData has no static-topic mapping: it is dropped, as the 4.9 client never sees one. */
    static void setMapping(Object route, java.util.Map<String, Object> mapping) {
    }

    /** 4.9 has no ClientMetadata.topicRouteData2EndpointsForStaticTopic. */
    static java.util.Map<MessageQueue, String> endpoints(String topic, Object route) {
        return null;
    }

    static String mockBrokerName(String scope) {
        throw new IllegalStateException("unreachable: Oracle refuses mock_broker_name on 4.9");
    }
}
