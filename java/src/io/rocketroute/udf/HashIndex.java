package io.rocketroute.udf;

import org.apache.spark.sql.api.java.UDF2;

/**
 * {@code SelectMessageQueueByHash} as Spark UDFs: {@code Math.abs(key.hashCode() % n)} for a
 * {@code String} key ({@link OfString}) and a {@code Long} one ({@link OfLong}: {@code Long.hashCode},
 * {@code (int) (v ^ (v >>> 32))}). A null key or queue count gives null.
 */
public final class HashIndex {
    private HashIndex() {}

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
