package io.opentelemetry.context;

/** Stub of the OpenTelemetry API. */
public interface Context { }
