package io.opentelemetry.sdk.metrics;

/** Stub of the OpenTelemetry SDK. */
public final class View {
    public static ViewBuilder builder() { return new ViewBuilder(); }
}
