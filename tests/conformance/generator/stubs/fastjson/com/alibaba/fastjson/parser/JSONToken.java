package com.alibaba.fastjson.parser;

/** Stub. */
public class JSONToken {
    public static final int LITERAL_STRING = 4;
}
