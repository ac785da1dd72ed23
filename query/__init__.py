"""spider query layer: issue text -> the functions most likely to need edits."""
