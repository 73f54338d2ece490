package com.alibaba.fastjson2.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Stub of fastjson2's JSONField annotation. */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
public @interface JSONField {
    boolean serialize() default true;
    boolean deserialize() default true;
    String name() default "";
    String[] alternateNames() default {};
    boolean value() default false;
}
