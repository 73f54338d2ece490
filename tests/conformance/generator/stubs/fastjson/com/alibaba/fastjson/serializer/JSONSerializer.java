package com.alibaba.fastjson.serializer;

/** Stub. */
public class JSONSerializer {
    public SerializeWriter out = new SerializeWriter();
}
