package com.alibaba.fastjson;

import java.lang.reflect.Type;
import java.util.List;

/** Stub of fastjson's JSON facade: fastjson is not available here. Every method throws; no vector depends on it. */
public abstract class JSON {
    private static UnsupportedOperationException no() {
        return new UnsupportedOperationException("fastjson is stubbed in the vector generator");
    }
    public static String toJSONString(Object o) { throw no(); }
    public static String toJSONString(Object o, boolean pretty) { throw no(); }
    public static String toJSONString(Object o, com.alibaba.fastjson.serializer.SerializerFeature... f) { throw no(); }
    public static <T> T parseObject(String s, Class<T> c) { throw no(); }
    public static <T> T parseObject(byte[] s, Type c) { throw no(); }
    public static <T> T parseObject(String s, TypeReference<T> t) { throw no(); }
    public static <T> T parseObject(String s, Type t) { throw no(); }
    public static <T> List<T> parseArray(String s, Class<T> c) { throw no(); }
}
