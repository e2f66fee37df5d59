"""The MCP client: everything that works in any Python process, with no IPython and no widgets.

The pool and its connections, the runtime loop they live on, transports, auth, configuration,
results, tasks, errors and redaction. Nothing here imports IPython, ipywidgets or
:mod:`mcpnb.notebook`; objects that show richly in Jupyter reach the notebook room's renderers
through :mod:`mcpnb.client.display`, and only when a frontend asks for a repr.
"""
