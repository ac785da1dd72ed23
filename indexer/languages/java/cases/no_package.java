class A {}

// expect:
// package: none
// entity class A 1-1
