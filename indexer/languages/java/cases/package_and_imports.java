package com.acme.util;

import a.b.C;
import a.b.*;
import static a.b.C.m;
import static a.b.C.*;
import  java . util . List ;

// expect:
// language: java
// package: com.acme.util
// no entities
// import a.b @3 name=C alias=C
// import a.b @4 name=*
// import a.b.C @5 name=m alias=m
// import a.b.C @6 name=*
// import java.util @7 name=List alias=List
// no exports
// no inherits
// no calls
