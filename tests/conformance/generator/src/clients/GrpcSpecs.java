/*
 * The vectors' gRPC route specs as the 5.x gRPC Java client's own objects (our own code), shared by the vector
 * generator (GenGrpcBalancer) and the live oracle (tests/peers/java/oracle/GrpcOracle): a queue spec {topic,
 * broker {name, id, endpoints {scheme, addresses [[host, port]]}}, queue_id, permission, accept_message_types}
 * becomes an apache.rocketmq.v2.MessageQueue, a list of them a TopicRouteData. Also the balancers' test hooks, by
 * reflection: the round-robin AtomicInteger `index`, and the package-private update(TopicRouteData).
 */
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.java.impl.producer.PublishingLoadBalancer;
import org.apache.rocketmq.client.java.route.Endpoints;
import org.apache.rocketmq.client.java.route.MessageQueueImpl;
import org.apache.rocketmq.client.java.route.TopicRouteData;

final class GrpcSpecs {
    private GrpcSpecs() {
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private static int i(Object o) {
        return ((Number) o).intValue();
    }

    static apache.rocketmq.v2.Endpoints pbEndpoints(Map<String, Object> s) {
        apache.rocketmq.v2.Endpoints.Builder b = apache.rocketmq.v2.Endpoints.newBuilder()
            .setScheme(apache.rocketmq.v2.AddressScheme.valueOf((String) s.get("scheme")));
        for (Object o : list(s.get("addresses"))) {
            List<Object> hostPort = list(o);
            b.addAddresses(apache.rocketmq.v2.Address.newBuilder().setHost((String) hostPort.get(0))
                .setPort(i(hostPort.get(1))));
        }
        return b.build();
    }

    static apache.rocketmq.v2.MessageQueue pbQueue(Map<String, Object> s) {
        Map<String, Object> broker = map(s.get("broker"));
        apache.rocketmq.v2.MessageQueue.Builder b = apache.rocketmq.v2.MessageQueue.newBuilder()
            .setTopic(apache.rocketmq.v2.Resource.newBuilder().setName((String) s.get("topic")))
            .setId(i(s.get("queue_id")))
            .setPermission(apache.rocketmq.v2.Permission.valueOf((String) s.get("permission")))
            .setBroker(apache.rocketmq.v2.Broker.newBuilder().setName((String) broker.get("name"))
                .setId(i(broker.get("id"))).setEndpoints(pbEndpoints(map(broker.get("endpoints")))));
        for (Object t : list(s.get("accept_message_types"))) {
            b.addAcceptMessageTypes(apache.rocketmq.v2.MessageType.valueOf((String) t));
        }
        return b.build();
    }

    static TopicRouteData route(List<Object> specs) {
        List<apache.rocketmq.v2.MessageQueue> queues = new ArrayList<>();
        for (Object o : specs) {
            queues.add(pbQueue(map(o)));
        }
        return new TopicRouteData(queues);
    }

    static Set<Endpoints> excluded(List<Object> specs) {
        Set<Endpoints> s = new HashSet<>();
        for (Object o : specs) {
            s.add(new Endpoints(pbEndpoints(map(o))));
        }
        return s;
    }

    /** A picked queue as the vectors write it: [topic, brokerName, queueId]. */
    static List<Object> show(MessageQueueImpl q) {
        return J.arr(q.getTopic(), q.getBroker().getName(), q.getQueueId());
    }

    /** One takeMessageQueues(excluded, count) call as a vector writes it: its inputs, what it returned or threw,
     *  and the index after it. */
    static Map<String, Object> takeCall(PublishingLoadBalancer lb, List<Object> excluded, int count) throws Exception {
        Map<String, Object> c = J.obj("excluded", excluded, "count", count);
        try {
            List<Object> picked = new ArrayList<>();
            for (MessageQueueImpl q : lb.takeMessageQueues(excluded(excluded), count)) {
                picked.add(show(q));
            }
            c.put("expect", picked);
        } catch (Throwable t) {
            c.put("exception", J.exc(t));
        }
        c.put("index_after", index(lb).get());
        return c;
    }

    /** One takeMessageQueueByMessageGroup(group) call as a vector writes it: the group, what it returned or
     *  threw, and whether the index stayed where it was. */
    static Map<String, Object> groupCall(PublishingLoadBalancer lb, String group) throws Exception {
        Map<String, Object> c = J.obj("group", group);
        int before = index(lb).get();
        try {
            c.put("expect", show(lb.takeMessageQueueByMessageGroup(group)));
        } catch (Throwable t) {
            c.put("exception", J.exc(t));
        }
        c.put("index_unchanged", index(lb).get() == before);
        return c;
    }

    static AtomicInteger index(Object balancer) throws Exception {
        Field f = balancer.getClass().getDeclaredField("index");
        f.setAccessible(true);
        return (AtomicInteger) f.get(balancer);
    }

    /** balancer.update(route), the package-private method; what it throws is thrown as it is. */
    static Object update(Object balancer, TopicRouteData r) throws Throwable {
        Method m = balancer.getClass().getDeclaredMethod("update", TopicRouteData.class);
        m.setAccessible(true);
        try {
            return m.invoke(balancer, r);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
