package io.rocketroute.udf;

import java.nio.charset.StandardCharsets;
import org.apache.spark.sql.api.java.UDF2;

/**
 * {@code SelectMessageQueueByHash} as Spark UDFs: {@code Math.abs(key.hashCode() % n)} for a
 * {@code String} key ({@link OfString}), for the UTF-8 bytes of one ({@link OfUtf8}: a Spark string cast to
 * binary, the same answer without making a {@code String} of every row), and for a {@code Long} key
 * ({@link OfLong}: {@code Long.hashCode}, {@code (int) (v ^ (v >>> 32))}). A null key or queue count gives
 * null.
 */
public final class HashIndex {
    private HashIndex() {}

    /**
     * {@code String.hashCode()} of the string whose UTF-8 bytes these are, as Spark makes it
     * ({@code new String(bytes, UTF_8)}): computed on the bytes while they are ASCII (each byte is its
     * UTF-16 unit), else by decoding them.
     */
    public static int utf8HashCode(byte[] utf8) {
        int h = 0;
        for (byte b : utf8) {
            if (b < 0) {
                return new String(utf8, StandardCharsets.UTF_8).hashCode();
            }
            h = 31 * h + b;
        }
        return h;
    }

    /** {@code abs(key.hashCode() % n)} of a string key. */
    public static final class OfString implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            if (key == null || n == null) {
                return null;
            }
            return Math.abs(key.hashCode() % Profiles.checkN(n));
        }
    }

    /** {@code abs(key.hashCode() % n)} of a string key given as its UTF-8 bytes. */
    public static final class OfUtf8 implements UDF2<byte[], Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(byte[] utf8, Integer n) {
            if (utf8 == null || n == null) {
                return null;
            }
            return Math.abs(utf8HashCode(utf8) % Profiles.checkN(n));
        }
    }

    /** {@code abs(Long.hashCode(key) % n)} of a long key. */
    public static final class OfLong implements UDF2<Long, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(Long key, Integer n) {
            if (key == null || n == null) {
                return null;
            }
            return Math.abs(Long.hashCode(key) % Profiles.checkN(n));
        }
    }
}
