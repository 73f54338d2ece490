package io.opentelemetry.api.common;

/** Stub of the OpenTelemetry API (metrics are infrastructure; not available here). */
public interface Attributes {
    static AttributesBuilder builder() { return new AttributesBuilder() { }; }
}
