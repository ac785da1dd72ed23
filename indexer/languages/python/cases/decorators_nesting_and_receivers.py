import os.path, a.b as ab
from .x import y as z, w
from .. import *


@dec
@dec2(arg)
def f(a=g()):
    def inner():
        return h()
    return inner()


class C(Base, mod.Other, metaclass=M):
    def __init__(self):
        self.repo = Repo()
        super().__init__()

    @property
    def x(self):
        return self.repo.load()

    @x.setter
    def x(self, v):
        r = Foo(1)
        r.go(v)
        Bar(v).run()
        self.save()

# expect:
# entity function f 6-11 -- decorators are part of the span
# entity function f.inner 9-10 parent=f
# entity class C 14-28
# entity method C.__init__ 15-17 parent=C
# entity method C.x 19-21 parent=C
# entity method C.x#2 23-28 parent=C -- a repeated name gets #2
# import os.path @1
# import os @1 alias=os
# import a.b @1 alias=ab
# import .x @2 name=y alias=z
# import .x @2 name=w alias=w
# import .. @3 name=*
# inherit C -> Base @14
# inherit C -> mod.Other @14
# call f -> dec/1 @6
# call f -> dec2/1 @7
# call f.inner -> h/0 @10
# call f -> inner/0 @11
# call C.__init__ -> Repo/0 @16
# call C.__init__ -> <super>.__init__/0 @17
# call C.__init__ -> super/0 @17
# call C.x -> property/1 @19
# call C.x -> Repo.load/0 @21 inferred -- self.repo = Repo() in __init__
# call C.x#2 -> x.setter/1 @23
# call C.x#2 -> Foo/1 @25
# call C.x#2 -> Foo.go/1 @26 inferred -- r = Foo(1)
# call C.x#2 -> Bar.run/0 @27 inferred -- Bar(v).run()
# call C.x#2 -> Bar/1 @27
# call C.x#2 -> <self>.save/0 @28
