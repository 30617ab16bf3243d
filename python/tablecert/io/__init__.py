"""Reading from and writing to the outside world, in one place.

Small inputs are read whole from regular files only (:mod:`~tablecert.io.inputs`, with their
digests), outputs are written atomically and never over an input
(:mod:`~tablecert.io.outputs`), JSON and TOML from outside are parsed strictly with errors
naming the file and line (:mod:`~tablecert.io.strict_json`, :mod:`~tablecert.io.toml_input`),
paths are taken as one or many with a file named twice refused (:mod:`~tablecert.io.pathlike`),
and the line of each key is found by one locator per format (:mod:`~tablecert.io.locate`).
"""
