package io.opentelemetry.sdk.metrics;

/** Stub of the OpenTelemetry SDK. */
public final class InstrumentSelector {
    public static Builder builder() { return new Builder(); }
    public static final class Builder {
        public Builder setType(InstrumentType t) { return this; }
        public Builder setName(String n) { return this; }
        public InstrumentSelector build() { return new InstrumentSelector(); }
    }
}
