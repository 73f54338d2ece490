/*
 * Vector generator (our own code, not upstream) for acl_signature.jsonl: what the released AclClientRPCHook
 * (rocketmq-acl 4.9.8, rocketmq-client 5.3.3) adds to a request's ext fields. Compiled once per release against
 * its jars; args: OUT_DIR LABEL.
 */
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

public final class GenAcl {
    /** Ext field names a client sends (send v2 a..m, 5.x's bname / lo, the pull's and the offsets' fields). */
    private static final String[] NAMES = {
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "bname", "lo", "topic", "queueId",
        "consumerGroup", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset", "suspendTimeoutMillis",
        "subscription", "subVersion", "expressionType", "maxMsgBytes", "clientID", "producerGroup",
        "AccessKey", "SecurityToken", "Signature", "Zz", "_x", "\u00e9t\u00e9", "\ue000", "\ud83d\ude00",
    };

    public static void main(String[] args) throws Exception {
        J out = new J(args[0] + "/acl_signature." + args[1] + ".jsonl");
        Random rnd = new Random(20260427L);
        int n = 0;
        // the fixed cases first: no ext fields, no body; one field; a body alone; a token
        out.line("acl-empty", "sign", sign("AK", "SK", null, new LinkedHashMap<>(), null, false));
        out.line("acl-no-fields", "sign", sign("AK", "SK", null, null, null, false));
        Map<String, String> one = new LinkedHashMap<>();
        one.put("topic", "TopicTest");
        out.line("acl-one-field", "sign", sign("rocketmq2", "12345678", null, one, null, false));
        out.line("acl-body", "sign", sign("rocketmq2", "12345678", null, one, "hello".getBytes("UTF-8"), false));
        out.line("acl-empty-body", "sign", sign("rocketmq2", "12345678", null, one, new byte[0], false));
        out.line("acl-token", "sign", sign("rocketmq2", "12345678", "token-\u00e9", one, null, false));
        out.line("acl-resign", "sign", sign("rocketmq2", "12345678", "t", one, "x".getBytes("UTF-8"), true));
        // seeded random requests: names from NAMES (astral and private-use ones included: Java orders them by
        // UTF-16 code unit), values and keys with any characters, bodies of any bytes
        for (int i = 0; i < 200; i++) {
            Map<String, String> ext = new LinkedHashMap<>();
            int fields = rnd.nextInt(12);
            for (int f = 0; f < fields; f++) {
                ext.put(NAMES[rnd.nextInt(NAMES.length)], text(rnd, rnd.nextInt(24)));
            }
            byte[] body = null;
            int shape = rnd.nextInt(4);
            if (shape == 1) {
                body = new byte[0];
            } else if (shape >= 2) {
                body = new byte[rnd.nextInt(300)];
                rnd.nextBytes(body);
            }
            String ak = text(rnd, 1 + rnd.nextInt(16));
            String sk = text(rnd, 1 + rnd.nextInt(32));
            String token = rnd.nextInt(3) == 0 ? text(rnd, 1 + rnd.nextInt(20)) : null;
            out.line("acl-rnd-" + n++, "sign", sign(ak, sk, token, ext, body, rnd.nextInt(5) == 0));
        }
        out.close();
        System.exit(0);
    }

    /** A string of {@code len} characters: ASCII mostly, some Latin-1, BMP, private-use and astral ones. */
    private static String text(Random rnd, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            int kind = rnd.nextInt(10);
            if (kind < 6) {
                sb.append((char) (0x20 + rnd.nextInt(0x5f)));
            } else if (kind == 6) {
                sb.append((char) (0xa0 + rnd.nextInt(0x60)));
            } else if (kind == 7) {
                sb.append((char) (0x4e00 + rnd.nextInt(0x100)));
            } else if (kind == 8) {
                sb.append((char) (0xe000 + rnd.nextInt(0x100)));
            } else {
                sb.appendCodePoint(0x1f600 + rnd.nextInt(0x40));
            }
        }
        return sb.toString();
    }

    /** The hook run on a request with {@code ext} (null: none at all) and {@code body}; {@code twice}: run again,
     * as on a retried request. The case: the inputs and the ext fields after. */
    private static Map<String, Object> sign(String ak, String sk, String token, Map<String, String> ext, byte[] body,
                                            boolean twice) {
        RemotingCommand request = RemotingCommand.createRequestCommand(10, null);
        if (ext != null) {
            for (Map.Entry<String, String> e : ext.entrySet()) {
                request.addExtField(e.getKey(), e.getValue());
            }
        }
        request.setBody(body);
        AclClientRPCHook hook = new AclClientRPCHook(new SessionCredentials(ak, sk, token));
        hook.doBeforeRequest("127.0.0.1:10911", request);
        if (twice) {
            hook.doBeforeRequest("127.0.0.1:10911", request);
        }
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("access_key", ak);
        payload.put("secret_key", sk);
        payload.put("security_token", token);
        payload.put("ext_fields", ext == null ? null : new LinkedHashMap<String, Object>(ext));
        payload.put("body", body == null ? null : Base64.getEncoder().encodeToString(body));
        payload.put("twice", twice);
        payload.put("expect", new TreeMap<String, Object>(request.getExtFields()));
        return payload;
    }
}
