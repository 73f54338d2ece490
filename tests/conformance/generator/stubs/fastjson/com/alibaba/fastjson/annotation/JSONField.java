package com.alibaba.fastjson.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Stub of fastjson's JSONField annotation (attributes used by the compiled sources only). */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER})
public @interface JSONField {
    boolean serialize() default true;
    boolean deserialize() default true;
    String name() default "";
    String[] alternateNames() default {};
    Class<?> serializeUsing() default Void.class;
    Class<?> deserializeUsing() default Void.class;
}
