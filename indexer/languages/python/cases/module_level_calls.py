setup()
x = build(1)

# expect:
# no entities
# no inherits
# no calls -- module-level calls have no source entity: not recorded
