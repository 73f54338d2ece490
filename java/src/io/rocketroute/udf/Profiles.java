package io.rocketroute.udf;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The queue index each client's keyed routing picks for a key among {@code n} queues, as
 * {@code rocketroute.profiles.profile_select_index} computes it, or {@link #REFUSED} for a key that
 * client refuses (or does not hash). The methods take any {@link CharSequence}: its UTF-16 units are
 * the Java string the client would hold, lone surrogates included (a Spark string, being UTF-8, never
 * carries one).
 *
 * <pre>
 * java-hashcode        Math.abs(key.hashCode() % n)              (SelectMessageQueueByHash)
 * java5-grpc-siphash   floorMod(sipHash24(utf8(key)).asLong(), n) (refuses a blank group)
 * proxy-jump           Hashing.consistentHash(key.hashCode(), n)
 * python5-sha256       big-endian sha256(utf8(key)) mod n         (refuses a blank group, a lone surrogate)
 * go4-fnv32a           unsigned fnv1a32(utf8(key)) mod n          (refuses "", a lone surrogate)
 * kafka-murmur2        (murmur2(utf8(key)) &amp; 0x7fffffff) % n
 * cpp2-stdhash         unsigned stdHash(utf8(key) up to its first NUL) mod n (refuses a lone surrogate)
 * </pre>
 *
 * utf8 is Java's {@code getBytes(UTF_8)}: a lone surrogate becomes {@code ?}.
 */
public final class Profiles {
    /** The index of a key the client refuses. */
    public static final int REFUSED = -1;

    private static final HashFunction SIP_HASH_24 = Hashing.sipHash24();

    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    });

    private Profiles() {}

    /** The index {@code profile} picks, or {@link #REFUSED}; an unknown profile is an IllegalArgumentException. */
    public static int index(String profile, CharSequence key, int n) {
        switch (profile) {
            case "java-hashcode":
                return javaHashcode(key, n);
            case "java5-grpc-siphash":
                return grpcSiphash(key, n);
            case "proxy-jump":
                return proxyJump(key, n);
            case "python5-sha256":
                return pythonSha256(key, n);
            case "go4-fnv32a":
                return goFnv32a(key, n);
            case "kafka-murmur2":
                return kafkaMurmur2(key, n);
            case "cpp2-stdhash":
                return cppStdHash(key, n);
            default:
                throw new IllegalArgumentException("unknown routing profile " + profile);
        }
    }

    /** {@code Math.abs(key.hashCode() % n)}: never negative, since {@code |h % n| < n}. */
    public static int javaHashcode(CharSequence key, int n) {
        return Math.abs(hashCode(key) % checkN(n));
    }

    public static int grpcSiphash(CharSequence key, int n) {
        checkN(n);
        if (isBlank(key, false)) {
            return REFUSED;
        }
        return (int) Math.floorMod(SIP_HASH_24.hashBytes(javaUtf8(key)).asLong(), (long) n);
    }

    public static int proxyJump(CharSequence key, int n) {
        return Hashing.consistentHash((long) hashCode(key), checkN(n));
    }

    public static int pythonSha256(CharSequence key, int n) {
        checkN(n);
        if (isBlank(key, true) || hasLoneSurrogate(key)) {
            return REFUSED;
        }
        byte[] digest = SHA_256.get().digest(javaUtf8(key));
        long r = 0; // the 256-bit big-endian number mod n, a byte at a time: r < n < 2^31, so r << 8 fits
        for (byte b : digest) {
            r = ((r << 8) | (b & 0xff)) % n;
        }
        return (int) r;
    }

    public static int goFnv32a(CharSequence key, int n) {
        checkN(n);
        if (key.length() == 0 || hasLoneSurrogate(key)) {
            return REFUSED;
        }
        int h = 0x811c9dc5;
        for (byte b : javaUtf8(key)) {
            h = (h ^ (b & 0xff)) * 0x01000193;
        }
        return Integer.remainderUnsigned(h, n);
    }

    public static int kafkaMurmur2(CharSequence key, int n) {
        checkN(n);
        return (murmur2(javaUtf8(key)) & 0x7fffffff) % n;
    }

    /**
     * The C++ client 2.x's sharding-key selector: libstdc++'s {@code std::hash<std::string>} (64-bit) of the key
     * read as a C string (up to its first NUL), unsigned, mod n.
     */
    public static int cppStdHash(CharSequence key, int n) {
        checkN(n);
        if (hasLoneSurrogate(key)) {
            return REFUSED;
        }
        byte[] utf8 = javaUtf8(key);
        int len = 0;
        while (len < utf8.length && utf8[len] != 0) {
            len++;
        }
        return (int) Long.remainderUnsigned(stdHash(utf8, len), n);
    }

    /** libstdc++'s {@code std::_Hash_bytes} for 64-bit words (MurmurHash2, seed 0xc70f6907) of data[0, len). */
    static long stdHash(byte[] data, int len) {
        final long mul = (0xc6a4a793L << 32) + 0x5bd1e995L;
        long h = 0xc70f6907L ^ (len * mul);
        int aligned = len - len % 8;
        for (int i = 0; i < aligned; i += 8) {
            long word = 0;
            for (int j = 7; j >= 0; j--) {
                word = (word << 8) | (data[i + j] & 0xffL);
            }
            long mixed = word * mul;
            h = (h ^ ((mixed ^ (mixed >>> 47)) * mul)) * mul;
        }
        if (len % 8 != 0) {
            long word = 0;
            for (int j = len - 1; j >= aligned; j--) {
                word = (word << 8) | (data[j] & 0xffL);
            }
            h = (h ^ word) * mul;
        }
        h = (h ^ (h >>> 47)) * mul;
        return h ^ (h >>> 47);
    }

    /** {@code String.hashCode()} of the UTF-16 units. */
    static int hashCode(CharSequence key) {
        if (key instanceof String) {
            return key.hashCode();
        }
        int h = 0;
        for (int i = 0; i < key.length(); i++) {
            h = 31 * h + key.charAt(i);
        }
        return h;
    }

    /** MurmurHash2 with Kafka's seed (0x9747b28c), as a signed int. */
    static int murmur2(byte[] data) {
        final int m = 0x5bd1e995;
        int len = data.length;
        int h = 0x9747b28c ^ len;
        int end = len - len % 4;
        for (int i = 0; i < end; i += 4) {
            int k = (data[i] & 0xff) | (data[i + 1] & 0xff) << 8 | (data[i + 2] & 0xff) << 16 | (data[i + 3] & 0xff) << 24;
            k *= m;
            k ^= k >>> 24;
            k *= m;
            h = h * m ^ k;
        }
        if (len % 4 != 0) {
            for (int i = len % 4 - 1; i >= 0; i--) {
                h ^= (data[end + i] & 0xff) << (8 * i);
            }
            h *= m;
        }
        h ^= h >>> 13;
        h *= m;
        h ^= h >>> 15;
        return h;
    }

    /** Java's {@code getBytes(UTF_8)}: a lone surrogate is {@code ?}. */
    static byte[] javaUtf8(CharSequence key) {
        return key.toString().getBytes(StandardCharsets.UTF_8);
    }

    static boolean hasLoneSurrogate(CharSequence key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Every unit whitespace (the empty key too): Java's {@code Character.isWhitespace}, or Python's
     * {@code str.isspace} (which adds U+0085, U+00A0, U+2007 and U+202F). Surrogates are neither.
     */
    static boolean isBlank(CharSequence key, boolean python) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean space = python ? isPythonSpace(c) : Character.isWhitespace(c);
            if (!space) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPythonSpace(char c) {
        return (c >= 9 && c <= 13) || (c >= 28 && c <= 32) || c == 0x85 || c == 0xa0 || c == 0x1680
            || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f
            || c == 0x3000;
    }

    static int checkN(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("the queue count must be at least 1, not " + n);
        }
        return n;
    }
}
