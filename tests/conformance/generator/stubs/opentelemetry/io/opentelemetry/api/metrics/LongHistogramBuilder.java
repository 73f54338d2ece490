package io.opentelemetry.api.metrics;

/** Stub of the OpenTelemetry API. */
public interface LongHistogramBuilder {
    LongHistogram build();
}
