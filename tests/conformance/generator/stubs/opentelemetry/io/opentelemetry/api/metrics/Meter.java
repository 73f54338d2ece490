package io.opentelemetry.api.metrics;

/** Stub of the OpenTelemetry API. */
public interface Meter {
    DoubleHistogramBuilder histogramBuilder(String name);
}
