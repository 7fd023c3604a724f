"""What the course sets right in nbgrader's formgrader when its ``nbgrader_config.py`` is loaded in a Jupyter server.

The formgrader's success and error boxes show the log of the step it ran (collect, autograde, generate or release
feedback), captured by a handler of no level on the server's own logger, at the level nbgrader reads off that logger
(``NbGraderAPI.log_level = handler.log.level``). traitlets sets an application's logger to ``DEBUG`` and filters in
its console handler instead, so every box shows hundreds of DEBUG lines (template paths, each preprocessor applied)
around the one line that matters. :func:`quiet_log` puts the logger at the level the server prints at, which the
boxes then use too. It changes nothing outside a Jupyter server, and nothing when the server itself logs DEBUG.
"""

from __future__ import annotations

import logging
import sys


def quiet_log(logger: logging.Logger | None = None) -> bool:
    """Raise the Jupyter server's logger (or ``logger``) to the lowest level its handlers print at (INFO without any).

    Returns:
        Whether a logger was there to set (``False`` outside a Jupyter server: ``nbgrader`` on the command line).

    Example:
        >>> log = logging.getLogger("bpe-course-example")
        >>> log.setLevel(logging.DEBUG)
        >>> handler = logging.StreamHandler(); handler.setLevel(logging.INFO); log.addHandler(handler)
        >>> quiet_log(log), logging.getLevelName(log.level)
        (True, 'INFO')
    """
    if logger is None:
        serverapp = sys.modules.get("jupyter_server.serverapp")
        if serverapp is None or not serverapp.ServerApp.initialized():
            return False
        logger = serverapp.ServerApp.instance().log
    printed = [h.level for h in getattr(logger, "handlers", []) if h.level]
    wanted = min(printed) if printed else logging.INFO
    if logger.level < wanted:
        logger.setLevel(wanted)
    return True
