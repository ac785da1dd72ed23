package broken

func ok() {
	a()
}

func broken( {
	b()
}

func after() {
	c()
}
// expect:
// syntax-errors: 1
// entity function ok 3-5
// entity function broken 7-9
// entity function after 11-13
// call ok -> a/0 @4
// call broken -> b/0 @8
// call after -> c/0 @12
