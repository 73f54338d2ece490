// The live Java oracle: answers JSON-lines requests on stdin with JSON lines on stdout, by calling the real classes
// of the rocketmq-client jar it was compiled against (Maven Central, `make clients`). Our own code; nothing of
// RocketMQ is copied. tests/oracle/ drives it with Hypothesis and checks every answer on both backends with the
// checkers of the golden vectors (tests/conformance): an answer is a vector case, in the vectors' schema.
//
//   java -cp <classes>:<lib>/* Oracle LABEL
//
// A request is one object: "id", "kind" and the kind's inputs (the vector fields that are inputs). The answer is
// the case: "id", "versions" [LABEL], "kind", the inputs and what the real classes returned or threw (the loop,
// and the error answer to a request it cannot read, are Serve's).
//
// What differs between the 4.9 and 5.x jars is compiled in beside this file: Routes (Routes.java.in, with the
// route classes' package filled in) and Compat (v4/ or v5/: the fault strategy's constructor and the 5.x-only
// arguments).
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.rocketmq.client.common.ThreadLocalIndex;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl;
import org.apache.rocketmq.client.latency.MQFaultStrategy;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;

public final class Oracle {
    static String label;

    public static void main(String[] args) throws Exception {
        label = args[0];
        Serve.lines(label, Oracle::answer);
    }

    static Map<String, Object> answer(Map<String, Object> req) throws Exception {
        String kind = (String) req.get("kind");
        Map<String, Object> out = J.obj("id", req.get("id"), "versions", J.arr(label), "kind", kind);
        switch (kind) {
            case "select_by_hash": selectByHash(req, out); break;
            case "select_by_random_seeded": selectByRandom(req, out); break;
            case "tpinfo_sequence": tpinfoSequence(req, out); break;
            case "allocate": allocate(req, out); break;
            case "route_conversion": routeConversion(req, out); break;
            case "compute_not_available_duration": computeNad(req, out); break;
            case "lft_scenario": lftScenario(req, out); break;
            case "mqfs_scenario": mqfsScenario(req, out); break;
            case "static_route": staticRoute(req, out); break;
            case "mock_broker_name": mockBrokerName(req, out); break;
            default: throw new IllegalArgumentException("unknown kind " + kind);
        }
        return out;
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    static MessageQueue mq(Object encoded) {
        List<Object> e = Serve.list(encoded);
        return new MessageQueue((String) e.get(0), (String) e.get(1), Serve.i(e.get(2)));
    }

    static List<MessageQueue> mqs(Object encoded) {
        if (encoded == null) {
            return null;
        }
        List<MessageQueue> r = new ArrayList<>();
        for (Object e : Serve.list(encoded)) {
            r.add(mq(e));
        }
        return r;
    }

    static List<Object> show(MessageQueue q) {
        return q == null ? null : J.arr(q.getTopic(), q.getBrokerName(), q.getQueueId());
    }

    static List<Object> show(List<MessageQueue> qs) {
        if (qs == null) {
            return null;
        }
        List<Object> r = new ArrayList<>();
        for (MessageQueue q : qs) {
            r.add(show(q));
        }
        return r;
    }

    static List<MessageQueue> numbered(int n) {
        List<MessageQueue> r = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            r.add(new MessageQueue("TopicTest", "broker-" + (k % 3), k));
        }
        return r;
    }

    static Object field(Object target, Class<?> cls, String name) throws Exception {
        Field f = cls.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    static void setField(Object target, Class<?> cls, String name, Object value) throws Exception {
        Field f = cls.getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    @SuppressWarnings("unchecked")
    static ThreadLocal<Integer> indexOf(ThreadLocalIndex index) throws Exception {
        return (ThreadLocal<Integer>) field(index, ThreadLocalIndex.class, "threadLocalIndex");
    }

    static void forceIndex(ThreadLocalIndex index, Object value) throws Exception {
        indexOf(index).set(value == null ? null : Serve.i(value));
    }

    static Integer storedIndex(ThreadLocalIndex index) throws Exception {
        return indexOf(index).get();
    }

    // ---- selectors -----------------------------------------------------------------------------------------

    static void selectByHash(Map<String, Object> req, Map<String, Object> out) {
        String type = (String) req.get("arg_type");
        Object raw = req.get("arg");
        Object arg = type.equals("string") ? (String) raw : type.equals("int") ? (Object) Serve.i(raw) : (Object) Serve.l(raw);
        int n = Serve.i(req.get("num_queues"));
        out.put("arg_type", type);
        out.put("arg", raw);
        out.put("num_queues", n);
        out.put("arg_hash", arg.hashCode());
        try {
            MessageQueue q = new SelectMessageQueueByHash().select(numbered(n), new Message(), arg);
            out.put("selected_index", q.getQueueId());
        } catch (Exception e) {
            out.put("exception", J.exc(e));
        }
    }

    static void selectByRandom(Map<String, Object> req, Map<String, Object> out) throws Exception {
        long seed = Serve.l(req.get("random_seed"));
        int n = Serve.i(req.get("num_queues"));
        out.put("random_seed", seed);
        out.put("num_queues", n);
        SelectMessageQueueByRandom selector = new SelectMessageQueueByRandom();
        setField(selector, SelectMessageQueueByRandom.class, "random", new Random(seed));
        List<MessageQueue> queues = numbered(n);
        List<Object> picked = new ArrayList<>();
        try {
            for (int k = 0; k < 12; k++) {
                picked.add(selector.select(queues, new Message(), "arg").getQueueId());
            }
            out.put("selected_indexes", picked);
        } catch (Exception e) {
            out.put("exception", J.exc(e));
        }
    }

    static void tpinfoSequence(Map<String, Object> req, Map<String, Object> out) throws Exception {
        TopicPublishInfo tp = new TopicPublishInfo();
        tp.setMessageQueueList(mqs(req.get("message_queue_list")));
        forceIndex(tp.getSendWhichQueue(), req.get("start_index"));
        out.put("message_queue_list", req.get("message_queue_list"));
        out.put("start_index", req.get("start_index"));
        List<Object> calls = new ArrayList<>();
        for (Object c : Serve.list(req.get("calls"))) {
            String last = (String) Serve.map(c).get("last_broker");
            Map<String, Object> call = J.obj("last_broker", last);
            try {
                call.put("expect", show(tp.selectOneMessageQueue(last)));
            } catch (Exception e) {
                call.put("exception", J.exc(e));
            }
            call.put("index_after", storedIndex(tp.getSendWhichQueue()));
            calls.add(call);
        }
        out.put("calls", calls);
    }

    // ---- allocation ----------------------------------------------------------------------------------------

    /** The README's resolver, recording every lookup in the line's tables. */
    static final class Rooms implements AllocateMachineRoomNearby.MachineRoomResolver {
        final Map<String, Object> brokers = new LinkedHashMap<>();
        final Map<String, Object> consumers = new LinkedHashMap<>();

        @Override
        public String brokerDeployIn(MessageQueue q) {
            String room = q.getBrokerName().split("-")[0];
            brokers.put(q.getBrokerName(), room);
            return room;
        }

        @Override
        public String consumerDeployIn(String cid) {
            String room = cid.split("-")[0];
            consumers.put(cid, room);
            return room;
        }
    }

    /** The strategy of a request's {strategy, params}; fills params' outputs (names, resolver tables). */
    static AllocateMessageQueueStrategy strategy(String kind, Map<String, Object> params, Rooms rooms) throws Exception {
        switch (kind) {
            case "AVG": return new AllocateMessageQueueAveragely();
            case "AVG_BY_CIRCLE": return new AllocateMessageQueueAveragelyByCircle();
            case "CONFIG": {
                AllocateMessageQueueByConfig s = new AllocateMessageQueueByConfig();
                s.setMessageQueueList(mqs(params.get("message_queue_list")));
                return s;
            }
            case "MACHINE_ROOM": {
                AllocateMessageQueueByMachineRoom s = new AllocateMessageQueueByMachineRoom();
                Set<String> idcs = new HashSet<>();
                for (Object o : Serve.list(params.get("consumer_idcs"))) {
                    idcs.add((String) o);
                }
                s.setConsumeridcs(idcs);
                return s;
            }
            case "CONSISTENT_HASH":
                if (params.containsKey("constructor")) {
                    return new AllocateMessageQueueConsistentHash();
                }
                return new AllocateMessageQueueConsistentHash(Serve.i(params.get("virtual_node_cnt")));
            case "MACHINE_ROOM_NEARBY": {
                Map<String, Object> inner = Serve.map(params.get("inner_strategy"));
                AllocateMessageQueueStrategy s = strategy((String) inner.get("strategy"), Serve.map(inner.get("params")), rooms);
                inner.put("strategy_name", s.getName());
                return new AllocateMachineRoomNearby(s, rooms);
            }
            default: throw new IllegalArgumentException("unknown strategy " + kind);
        }
    }

    @SuppressWarnings("unchecked")
    static void allocate(Map<String, Object> req, Map<String, Object> out) throws Exception {
        String kind = (String) req.get("strategy");
        Map<String, Object> params = Serve.map(req.get("params"));
        String group = (String) req.get("consumer_group");
        boolean presorted = (Boolean) req.get("presorted");
        List<MessageQueue> mqAll = mqs(req.get("mq_all"));
        List<String> cidAll = req.get("cid_all") == null ? null : new ArrayList<>((List<String>) req.get("cid_all"));
        if (presorted) {  // as RebalanceImpl does before it calls the strategy
            if (mqAll != null) {
                Collections.sort(mqAll);
            }
            if (cidAll != null) {
                Collections.sort(cidAll);
            }
        }
        out.put("strategy", kind);
        out.put("params", params);
        out.put("consumer_group", group);
        out.put("presorted", presorted);
        out.put("mq_all", show(mqAll));
        out.put("cid_all", cidAll == null ? null : new ArrayList<Object>(cidAll));
        Rooms rooms = new Rooms();
        AllocateMessageQueueStrategy s;
        try {
            s = strategy(kind, params, rooms);
        } catch (Exception e) {
            out.put("strategy_name", null);
            out.put("constructor_exception", J.exc(e));
            return;
        }
        out.put("strategy_name", s.getName());
        LinkedHashSet<String> asked = new LinkedHashSet<>();
        if (cidAll != null) {
            asked.addAll(cidAll);
        }
        List<Object> probes = Serve.list(req.get("probes"));
        List<Object> results = new ArrayList<>();
        // a partition of mq_all over the members: not applicable without a member list or without mq_all
        boolean partition = cidAll != null && !cidAll.isEmpty() && mqAll != null;
        Map<String, Integer> union = new LinkedHashMap<>();
        List<Object> everyone = new ArrayList<>(asked);
        for (Object p : probes) {
            if (!asked.contains(p)) {
                everyone.add(p);
            }
        }
        for (Object o : everyone) {
            String cid = (String) o;
            boolean member = cidAll != null && cidAll.contains(cid);
            Map<String, Object> entry = J.obj("current_cid", cid, "in_cid_all", member);
            List<MessageQueue> got;
            try {
                got = s.allocate(group, cid, mqAll, cidAll);
            } catch (Exception e) {
                entry.put("exception", J.exc(e));
                results.add(entry);
                partition &= !member;  // a member without a result: no partition to speak of
                continue;
            }
            entry.put("result", show(got));
            results.add(entry);
            if (member && got != null) {
                for (MessageQueue q : got) {
                    union.merge(String.valueOf(show(q)), 1, Integer::sum);
                }
            }
        }
        out.put("results", results);
        if (!partition) {
            out.put("union_is_partition", null);
        } else {
            Map<String, Integer> all = new LinkedHashMap<>();
            for (MessageQueue q : mqAll) {
                all.merge(String.valueOf(show(q)), 1, Integer::sum);
            }
            out.put("union_is_partition", all.equals(union));
        }
        if (kind.equals("MACHINE_ROOM_NEARBY")) {
            params.put("broker_rooms", rooms.brokers);
            params.put("consumer_rooms", rooms.consumers);
        }
    }

    // ---- routes --------------------------------------------------------------------------------------------

    static void routeConversion(Map<String, Object> req, Map<String, Object> out) throws Exception {
        String topic = (String) req.get("topic");
        Map<String, Object> routeJson = Serve.map(req.get("route"));
        out.put("topic", topic);
        out.put("route", routeJson);
        Object route = Routes.route(routeJson);
        try {
            TopicPublishInfo tp = Routes.publishInfo(topic, route);
            out.put("publish", J.obj("order_topic", tp.isOrderTopic(), "message_queue_list",
                show(tp.getMessageQueueList()), "ok", tp.ok()));
        } catch (Exception e) {
            out.put("publish_exception", J.exc(e));
        }
        out.put("queue_datas_order_after_publish", Routes.queueDataNames(route));
        try {
            List<MessageQueue> sub = new ArrayList<>(Routes.subscribeInfo(topic, route));
            Collections.sort(sub);
            out.put("subscribe", show(sub));
        } catch (Exception e) {
            out.put("subscribe_exception", J.exc(e));
        }
    }

    /** A route with a static-topic mapping (topic_queue_mapping_by_broker) through the three converters; the
     *  4.9 jars have no mapping (Compat drops it) and no endpoints converter (null). */
    static void staticRoute(Map<String, Object> req, Map<String, Object> out) throws Exception {
        String topic = (String) req.get("topic");
        Map<String, Object> routeJson = Serve.map(req.get("route"));
        out.put("topic", topic);
        out.put("route", routeJson);
        try {
            TopicPublishInfo tp = Routes.publishInfo(topic, Routes.route(routeJson));
            Set<Integer> ids = new HashSet<>();
            boolean ties = false;
            for (MessageQueue q : tp.getMessageQueueList()) {
                ties |= !ids.add(q.getQueueId());
            }
            out.put("publish", J.obj("order_topic", tp.isOrderTopic(), "message_queue_list",
                show(tp.getMessageQueueList()), "ok", tp.ok()));
            out.put("publish_queue_id_ties", ties);
        } catch (Exception e) {
            out.put("publish_exception", J.exc(e));
        }
        try {
            List<MessageQueue> sub = new ArrayList<>(Routes.subscribeInfo(topic, Routes.route(routeJson)));
            Collections.sort(sub);
            out.put("subscribe", show(sub));
        } catch (Exception e) {
            out.put("subscribe_exception", J.exc(e));
        }
        try {
            Map<MessageQueue, String> byQueue = Compat.endpoints(topic, Routes.route(routeJson));
            if (byQueue == null) {
                out.put("endpoints", null);
            } else {
                List<MessageQueue> keys = new ArrayList<>(byQueue.keySet());
                Collections.sort(keys);
                List<Object> shown = new ArrayList<>();
                for (MessageQueue q : keys) {
                    shown.add(J.arr(show(q), byQueue.get(q)));
                }
                out.put("endpoints", shown);
            }
        } catch (Exception e) {
            out.put("endpoints_exception", J.exc(e));
        }
    }

    static void mockBrokerName(Map<String, Object> req, Map<String, Object> out) throws Exception {
        String scope = (String) req.get("scope");
        if (label.startsWith("4.")) {  // not an answer: the request is wrong for this jar
            throw new IllegalArgumentException("4.9 has no TopicQueueMappingUtils.getMockBrokerName");
        }
        out.put("scope", scope);
        try {
            out.put("expect", Compat.mockBrokerName(scope));
        } catch (Exception e) {
            out.put("exception", J.exc(e));
        }
    }

    // ---- fault tolerance -----------------------------------------------------------------------------------

    static void computeNad(Map<String, Object> req, Map<String, Object> out) throws Exception {
        long latency = Serve.l(req.get("latency"));
        MQFaultStrategy s = Compat.faultStrategy();
        Method m = MQFaultStrategy.class.getDeclaredMethod("computeNotAvailableDuration", long.class);
        m.setAccessible(true);
        out.put("latency", latency);
        out.put("expect", m.invoke(s, latency));
    }

    /** One scenario on a fresh LatencyFaultToleranceImpl; the clock is the wall clock, so a test keeps every
     *  duration at <= 0 or >= 2000 ms and the scenario well under a second (vectors README, section 7). */
    static void lftScenario(Map<String, Object> req, Map<String, Object> out) throws Exception {
        Object lft = Compat.latencyFaultTolerance();
        try {
            List<Object> ops = new ArrayList<>();
            for (Object o : Serve.list(req.get("ops"))) {
                Map<String, Object> op = new LinkedHashMap<>(Serve.map(o));
                String name = (String) op.get("name");
                switch ((String) op.get("op")) {
                    case "update": Compat.updateLft(lft, name, Serve.l(op.get("latency")), Serve.l(op.get("duration"))); break;
                    case "is_available": op.put("expect", ((LatencyFaultToleranceImpl) lft).isAvailable(name)); break;
                    case "remove": ((LatencyFaultToleranceImpl) lft).remove(name); break;
                    case "pick_one_at_least": op.put("expect", ((LatencyFaultToleranceImpl) lft).pickOneAtLeast()); break;
                    default: throw new IllegalArgumentException("unknown op " + op.get("op"));
                }
                ops.add(op);
            }
            out.put("ops", ops);
        } finally {
            Compat.shutdown(lft);
        }
    }

    static void mqfsScenario(Map<String, Object> req, Map<String, Object> out) throws Exception {
        String topic = (String) req.get("topic");
        Map<String, Object> routeJson = Serve.map(req.get("route"));
        out.put("topic", topic);
        out.put("route", routeJson);
        TopicPublishInfo tp = Routes.publishInfo(topic, Routes.route(routeJson));
        out.put("message_queue_list", show(tp.getMessageQueueList()));
        boolean enable = (Boolean) req.get("send_latency_fault_enable");
        out.put("send_latency_fault_enable", enable);
        out.put("start_index", req.get("start_index"));
        out.put("which_item_worst_start", req.get("which_item_worst_start"));
        MQFaultStrategy s = Compat.faultStrategy();
        s.setSendLatencyFaultEnable(enable);
        Object lft = field(s, MQFaultStrategy.class, "latencyFaultTolerance");
        forceIndex((ThreadLocalIndex) field(lft, lft.getClass(), "whichItemWorst"), req.get("which_item_worst_start"));
        forceIndex(tp.getSendWhichQueue(), req.get("start_index"));
        try {
            List<Object> ops = new ArrayList<>();
            for (Object o : Serve.list(req.get("ops"))) {
                Map<String, Object> op = new LinkedHashMap<>(Serve.map(o));
                switch ((String) op.get("op")) {
                    case "update_fault_item":
                        Compat.updateFaultItem(s, (String) op.get("broker"), Serve.l(op.get("latency")), (Boolean) op.get("isolation"));
                        break;
                    case "select":
                        try {
                            op.put("expect", show(Compat.select(s, tp, (String) op.get("last_broker"))));
                        } catch (Exception e) {
                            op.put("exception", J.exc(e));
                        }
                        op.put("index_after", storedIndex(tp.getSendWhichQueue()));
                        break;
                    case "is_available": op.put("expect", ((LatencyFaultToleranceImpl) lft).isAvailable((String) op.get("broker"))); break;
                    default: throw new IllegalArgumentException("unknown op " + op.get("op"));
                }
                ops.add(op);
            }
            out.put("ops", ops);
        } finally {
            Compat.shutdown(lft);
        }
    }
}
