package com.google.common.hash;

/**
 * The part of Guava's {@code Hashing} our UDFs call, for javac alone (see HashFunction.java): javac reads the
 * signatures; the bodies never run, since the jar carries none of these classes.
 */
public final class Hashing {
    private Hashing() {}

    public static HashFunction sipHash24() {
        throw new UnsupportedOperationException("a compile-time declaration: Guava provides Hashing at run time");
    }

    public static int consistentHash(long input, int buckets) {
        throw new UnsupportedOperationException("a compile-time declaration: Guava provides Hashing at run time");
    }
}
