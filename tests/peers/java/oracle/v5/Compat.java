// The live Java oracle (Oracle.java): the fault-tolerance calls of the rocketmq-client 5.x jars. Our own code.
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.common.message.MessageQueue;

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
}
