package org.apache.spark.sql.api.java;

import java.io.Serializable;

/**
 * The signature of Spark's {@code UDF2} our UDFs implement, for javac alone: Spark provides the class at run time
 * (spark-sql-api), and the jar never carries this one. It lets a wheel build compile the UDFs with nothing but a
 * JDK (see build.rs of rust/python); the Spark tests load the jar in a real Spark, which proves it matches.
 */
public interface UDF2<T1, T2, R> extends Serializable {
    R call(T1 t1, T2 t2) throws Exception;
}
