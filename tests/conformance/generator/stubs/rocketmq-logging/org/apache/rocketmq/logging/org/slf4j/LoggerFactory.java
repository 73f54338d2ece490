package org.apache.rocketmq.logging.org.slf4j;

/** Stub of RocketMQ's shaded slf4j LoggerFactory: returns a logger that does nothing. */
public final class LoggerFactory {
    private static final Logger NOP = new Logger() { };
    private LoggerFactory() { }
    public static Logger getLogger(String name) { return NOP; }
    public static Logger getLogger(Class<?> clazz) { return NOP; }
}
