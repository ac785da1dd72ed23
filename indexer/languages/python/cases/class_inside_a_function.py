def outer():
    class Local:
        def m(self):
            self.n()
    return Local

# expect:
# entity function outer 1-5
# entity class outer.Local 2-4 parent=outer
# entity method outer.Local.m 3-4 parent=outer.Local
# no inherits
# call outer.Local.m -> <self>.n/0 @4
