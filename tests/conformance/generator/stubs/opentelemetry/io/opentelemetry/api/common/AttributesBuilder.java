package io.opentelemetry.api.common;

/** Stub of the OpenTelemetry API. */
public interface AttributesBuilder {
    default Attributes build() { return new Attributes() { }; }
    default AttributesBuilder put(String key, String value) { return this; }
    default AttributesBuilder put(String key, long value) { return this; }
    default AttributesBuilder put(String key, double value) { return this; }
    default AttributesBuilder put(String key, boolean value) { return this; }
}
