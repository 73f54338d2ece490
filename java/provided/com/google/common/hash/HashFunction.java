package com.google.common.hash;

/**
 * The part of Guava's {@code HashFunction} our UDFs call, for javac alone: Spark's class path provides Guava at
 * run time, and the jar never carries this one (see UDF2.java beside Spark's package).
 */
public interface HashFunction {
    HashCode hashBytes(byte[] input);
}
