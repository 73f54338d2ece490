package com.alibaba.fastjson.serializer;

/** Stub. */
public class SerializeWriter {
    public void writeString(String s) { throw new UnsupportedOperationException("fastjson is stubbed"); }
    public void writeByteArray(byte[] b) { throw new UnsupportedOperationException("fastjson is stubbed"); }
    public void write(String s) { throw new UnsupportedOperationException("fastjson is stubbed"); }
}
