package com.alibaba.fastjson.serializer;

import java.io.IOException;
import java.lang.reflect.Type;

/** Stub. */
public interface ObjectSerializer {
    void write(JSONSerializer serializer, Object object, Object fieldName, Type fieldType, int features) throws IOException;
}
