import java.lang.reflect.Method;
import java.util.Set;

import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The bodies of LOCK_BATCH_MQ and UNLOCK_BATCH_MQ as the real client encodes them (tests/protocol/test_bodies_java.py):
 * args are the consumer group, the client id and one queue (topic, broker name, queue id); prints the lock body, then
 * the unlock body, one a line. The classes moved package in 5.0, so they are found by name.
 */
public class LockBodies {
    public static void main(String[] args) throws Exception {
        MessageQueue mq = new MessageQueue(args[2], args[3], Integer.parseInt(args[4]));
        for (String name : new String[] {"LockBatchRequestBody", "UnlockBatchRequestBody"}) {
            Object body = bodyClass(name).getDeclaredConstructor().newInstance();
            body.getClass().getMethod("setConsumerGroup", String.class).invoke(body, args[0]);
            body.getClass().getMethod("setClientId", String.class).invoke(body, args[1]);
            @SuppressWarnings("unchecked")
            Set<MessageQueue> mqs = (Set<MessageQueue>) body.getClass().getMethod("getMqSet").invoke(body);
            mqs.add(mq);
            Method encode = body.getClass().getMethod("encode");
            System.out.println(new String((byte[]) encode.invoke(body), "UTF-8"));
        }
    }

    private static Class<?> bodyClass(String name) throws ClassNotFoundException {
        try {
            return Class.forName("org.apache.rocketmq.remoting.protocol.body." + name); // 5.x
        } catch (ClassNotFoundException e) {
            return Class.forName("org.apache.rocketmq.common.protocol.body." + name); // 4.x
        }
    }
}
