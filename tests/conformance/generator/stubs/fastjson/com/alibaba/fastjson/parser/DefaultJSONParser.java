package com.alibaba.fastjson.parser;

/** Stub. */
public class DefaultJSONParser {
    public <T> T parseObject(Class<T> clazz) { throw new UnsupportedOperationException("fastjson is stubbed"); }
    public Object parse() { throw new UnsupportedOperationException("fastjson is stubbed"); }
}
