package com.alibaba.fastjson.serializer;

/** Stub of fastjson's SerializerFeature enum. */
public enum SerializerFeature { PrettyFormat, WriteMapNullValue, WriteNullListAsEmpty, DisableCircularReferenceDetect, SortField, MapSortField, BrowserCompatible, WriteEnumUsingToString }
