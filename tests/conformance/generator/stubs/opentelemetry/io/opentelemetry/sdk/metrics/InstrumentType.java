package io.opentelemetry.sdk.metrics;

/** Stub of the OpenTelemetry SDK. */
public enum InstrumentType { COUNTER, UP_DOWN_COUNTER, HISTOGRAM, OBSERVABLE_COUNTER, OBSERVABLE_UP_DOWN_COUNTER, OBSERVABLE_GAUGE }
