package io.opentelemetry.api.metrics;

/** Stub of the OpenTelemetry API. */
public interface DoubleHistogramBuilder {
    DoubleHistogramBuilder setDescription(String d);
    DoubleHistogramBuilder setUnit(String u);
    LongHistogramBuilder ofLongs();
}
