"""The one base class of errors a user can act on (bad data, a run that must not start,
runs that cannot be scored, a folder that may not be published). The command line prints
them as one line, ``mira-math <command>: <message>``, and exits with status 1."""


class MiraError(Exception):
    """An error whose message is the whole story: no traceback needed."""
