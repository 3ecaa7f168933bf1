"""Finding failing cases, shrinking them and keeping them (`pipeline stress`), and searching for
slow inputs (`pipeline hunt`). Importing this package imports nothing heavy: problems import
`edits` for their passes.
"""
