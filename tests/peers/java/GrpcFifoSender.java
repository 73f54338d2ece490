// The Java 5.x gRPC client beside ours, for tests/cluster/test_peers_grpc.py: the real Producer of the
// rocketmq-client-java jar that `make clients` resolved (5.2.0), sending one FIFO message per message group
// through a proxy. Our own code.
//
//   java -cp <dir>:<lib>/* GrpcFifoSender ENDPOINT TOPIC < groups
//
// Reads message groups from stdin, one per line as UTF-16 code units in hex (4 digits each), and sends one
// message per group with the group as its message group and "java:" + the group as its body (UTF-8). Prints "sent N" at the end;
// any send that fails ends the program with a stack trace and a non-zero status.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;

public final class GrpcFifoSender {
    public static void main(String[] args) throws Exception {
        String endpoint = args[0], topic = args[1];
        ClientServiceProvider provider = ClientServiceProvider.loadService();
        ClientConfiguration conf = ClientConfiguration.newBuilder().setEndpoints(endpoint).enableSsl(false).build();
        int sent = 0;
        try (Producer producer = provider.newProducerBuilder().setClientConfiguration(conf).setTopics(topic).build()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            for (String line; (line = in.readLine()) != null; ) {
                StringBuilder group = new StringBuilder();
                for (int i = 0; i < line.length(); i += 4) {
                    group.append((char) Integer.parseInt(line.substring(i, i + 4), 16));
                }
                String key = group.toString();
                Message m = provider.newMessageBuilder().setTopic(topic).setMessageGroup(key)
                    .setBody(("java:" + key).getBytes(StandardCharsets.UTF_8)).build();
                producer.send(m);
                sent++;
            }
        }
        System.out.println("sent " + sent);
    }
}
