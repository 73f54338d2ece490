package com.google.common.hash;

/** The part of Guava's {@code HashCode} our UDFs call, for javac alone (see HashFunction.java). */
public abstract class HashCode {
    public abstract long asLong();
}
