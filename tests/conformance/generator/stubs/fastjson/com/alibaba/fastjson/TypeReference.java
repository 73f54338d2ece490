package com.alibaba.fastjson;

/** Stub of fastjson's TypeReference (constructed in static initialisers; never used for parsing here). */
public class TypeReference<T> {
    protected TypeReference() { }
    public java.lang.reflect.Type getType() { throw new UnsupportedOperationException("fastjson is stubbed"); }
}
