"""The notebook side: IPython, display and widgets, over the client.

The ``%mcp`` magics (:mod:`.magics`), rich display (:mod:`.render`), forms and panels for a person
(:mod:`.forms`), the calling cell where answers and progress land (:mod:`.cell`), ``%config Mcp``
(:mod:`.settings`), task views (:mod:`.taskview`), starting probe-kit from a cell (:mod:`.launch`)
and the course's self-checking exercises (:mod:`.teach`, also ``mcpnb.teach``).
"""
