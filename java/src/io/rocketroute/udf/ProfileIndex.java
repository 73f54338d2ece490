package io.rocketroute.udf;

import org.apache.spark.sql.api.java.UDF2;

/**
 * One Spark UDF per routing profile: {@code (key string, n int) -> int}, the index {@link Profiles}
 * computes, or null for a key the client refuses, a null key or a null queue count.
 */
public final class ProfileIndex {
    private ProfileIndex() {}

    private static Integer placed(int index) {
        return index == Profiles.REFUSED ? null : index;
    }

    /** java-hashcode. */
    public static final class JavaHashcode implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : Profiles.javaHashcode(key, n);
        }
    }

    /** java5-grpc-siphash. */
    public static final class GrpcSiphash implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : placed(Profiles.grpcSiphash(key, n));
        }
    }

    /** proxy-jump. */
    public static final class ProxyJump implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : Profiles.proxyJump(key, n);
        }
    }

    /** python5-sha256. */
    public static final class PythonSha256 implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : placed(Profiles.pythonSha256(key, n));
        }
    }

    /** go4-fnv32a. */
    public static final class GoFnv32a implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : placed(Profiles.goFnv32a(key, n));
        }
    }

    /** kafka-murmur2. */
    public static final class KafkaMurmur2 implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : Profiles.kafkaMurmur2(key, n);
        }
    }

    /** cpp2-stdhash. */
    public static final class CppStdHash implements UDF2<String, Integer, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer call(String key, Integer n) {
            return key == null || n == null ? null : placed(Profiles.cppStdHash(key, n));
        }
    }
}
