// Sends one message per key with the real Java remoting client's SelectMessageQueueByHash and prints where the
// broker stored it. Ours: compiled by tests/cluster/test_peers_java.py against the rocketmq-client jar that
// `make clients` resolved from Maven Central (any of 4.9.x / 5.x: the API used here is the same).
//
//   java -cp <dir>:<lib>/* KeyedSender NAMESRV TOPIC GROUP OUT_FILE < keys
//
// Each input line is a key as hex UTF-16 code units (4 hex digits each, so lone surrogates survive); each line of
// OUT_FILE is "BROKER QUEUE_ID QUEUE_OFFSET" of that key's send, or "ERROR <text>" (a file, not stdout: the 4.9
// client logs to the console).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash;
import org.apache.rocketmq.common.message.Message;

public final class KeyedSender {
    public static void main(String[] args) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(args[2]);
        producer.setNamesrvAddr(args[0]);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        SelectMessageQueueByHash selector = new SelectMessageQueueByHash();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        try {
            String line;
            while ((line = in.readLine()) != null) {
                StringBuilder key = new StringBuilder();
                for (int i = 0; i + 4 <= line.length(); i += 4) {
                    key.append((char) Integer.parseInt(line.substring(i, i + 4), 16));
                }
                Message msg = new Message(args[1], ("java:" + line).getBytes(StandardCharsets.UTF_8));
                try {
                    SendResult r = producer.send(msg, selector, key.toString());
                    out.append(r.getMessageQueue().getBrokerName()).append(' ')
                        .append(r.getMessageQueue().getQueueId()).append(' ')
                        .append(r.getQueueOffset()).append('\n');
                } catch (Exception e) {
                    out.append("ERROR ").append(String.valueOf(e).replace('\n', ' ')).append('\n');
                }
            }
        } finally {
            producer.shutdown();
        }
        Files.write(Paths.get(args[3]), out.toString().getBytes(StandardCharsets.UTF_8));
    }
}
