// The live Java oracle (Oracle.java): the fault-tolerance calls of the rocketmq-client 5.x jars. Our own code.
import java.util.Map;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
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

    /** The vectors' topic_queue_mapping_by_broker (null stays null), through the generator's Mappings. */
    static void setMapping(Object route, Map<String, Object> mapping) {
        ((TopicRouteData) route).setTopicQueueMappingByBroker(mapping == null ? null : Mappings.byBroker(mapping));
    }

    static Map<MessageQueue, String> endpoints(String topic, Object route) {
        return ClientMetadata.topicRouteData2EndpointsForStaticTopic(topic, (TopicRouteData) route);
    }

    static String mockBrokerName(String scope) {
        return TopicQueueMappingUtils.getMockBrokerName(scope);
    }
}
